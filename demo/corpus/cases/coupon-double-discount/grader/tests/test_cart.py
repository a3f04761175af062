from decimal import Decimal

import pytest

from shop.cart import Cart


def test_empty_cart_totals_zero(catalog):
    assert Cart(catalog).total() == 0


def test_add_accumulates_quantity(catalog):
    cart = Cart(catalog)
    cart.add("APPLE")
    cart.add("APPLE", 2)
    assert [(line.sku, line.quantity) for line in cart.lines()] == [("APPLE", 3)]
    assert cart.total() == 360


def test_add_rejects_non_positive_quantity(catalog):
    with pytest.raises(ValueError):
        Cart(catalog).add("APPLE", 0)


def test_remove(catalog):
    cart = Cart(catalog)
    cart.add("APPLE")
    cart.add("BREAD")
    cart.remove("APPLE")
    assert cart.total() == 349


def test_coupon_is_applied_once(catalog):
    cart = Cart(catalog)
    cart.add("APPLE", 2)
    cart.add("COFFEE")
    cart.apply_coupon("SAVE10")
    assert cart.subtotal() == 2239
    assert cart.discounted() == 2015
    assert cart.total() == 2015


def test_total_includes_tax(catalog):
    cart = Cart(catalog, tax_rate=Decimal("0.10"))
    cart.add("APPLE")
    assert cart.tax() == 12
    assert cart.total() == 132
