import pytest

from shop.catalog import Catalog, Product


@pytest.fixture
def seven_products():
    catalog = Catalog()
    for i in range(1, 8):
        catalog.add(Product(f"SKU{i:02d}", f"Item {i}", 100 * i))
    return catalog


def skus(products):
    return [p.sku for p in products]


def test_first_page_starts_with_first_product(seven_products):
    assert skus(seven_products.page(1, per_page=3)) == ["SKU01", "SKU02", "SKU03"]


def test_last_page_is_partial(seven_products):
    assert skus(seven_products.page(3, per_page=3)) == ["SKU07"]


def test_page_count(seven_products):
    assert seven_products.page_count(per_page=3) == 3


def test_page_past_the_end_is_empty(seven_products):
    assert seven_products.page(4, per_page=3) == []


def test_page_number_must_be_positive(seven_products):
    with pytest.raises(ValueError):
        seven_products.page(0)
