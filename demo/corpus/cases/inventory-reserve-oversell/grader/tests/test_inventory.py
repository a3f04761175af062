import pytest

from shop.inventory import InsufficientStock, Inventory


def test_add_and_remove_stock():
    inventory = Inventory()
    inventory.add_stock("APPLE", 5)
    inventory.remove("APPLE", 2)
    assert inventory.available("APPLE") == 3


def test_remove_more_than_available_raises():
    inventory = Inventory()
    inventory.add_stock("APPLE", 1)
    with pytest.raises(InsufficientStock):
        inventory.remove("APPLE", 2)
    assert inventory.available("APPLE") == 1


def test_reserve_moves_stock_to_reserved():
    inventory = Inventory()
    inventory.add_stock("APPLE", 5)
    inventory.reserve("APPLE", 2)
    assert inventory.available("APPLE") == 3
    assert inventory.reserved("APPLE") == 2


def test_release_returns_stock():
    inventory = Inventory()
    inventory.add_stock("APPLE", 5)
    inventory.reserve("APPLE", 2)
    inventory.release("APPLE", 5)
    assert inventory.available("APPLE") == 5
    assert inventory.reserved("APPLE") == 0


def test_reserve_more_than_available_raises(stocked_inventory):
    with pytest.raises(InsufficientStock):
        stocked_inventory.reserve("APPLE", 4)
    assert stocked_inventory.available("APPLE") == 3
    assert stocked_inventory.reserved("APPLE") == 0


def test_reserve_everything_available(stocked_inventory):
    stocked_inventory.reserve("BREAD", 1)
    assert stocked_inventory.available("BREAD") == 0
    assert stocked_inventory.reserved("BREAD") == 1


def test_skus():
    inventory = Inventory()
    inventory.add_stock("BREAD", 1)
    inventory.add_stock("APPLE", 1)
    assert inventory.skus() == ["BREAD", "APPLE"]
