import pytest

from shop.catalog import Catalog, Product
from shop.inventory import Inventory


@pytest.fixture
def catalog():
    catalog = Catalog()
    catalog.add(Product("APPLE", "Apple", 120))
    catalog.add(Product("BREAD", "Bread", 349))
    catalog.add(Product("COFFEE", "Coffee beans", 1999))
    return catalog


@pytest.fixture
def stocked_inventory():
    inventory = Inventory()
    inventory.add_stock("APPLE", 3)
    inventory.add_stock("BREAD", 1)
    return inventory
