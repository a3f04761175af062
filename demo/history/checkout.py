"""Pricing with percentage discounts, inventory tracking, the README's setup and sales tax."""

from __future__ import annotations

from .model import C, Commit, E, W

COMMITS: tuple[Commit, ...] = (
    C(
        "Add pricing module with percentage discounts",
        "lee",
        W(
            "shop/pricing.py",
            '''
            """Prices, discounts and taxes, all in integer cents."""

            from __future__ import annotations

            from decimal import Decimal

            from shop.money import round_cents


            def apply_discount(cents: int, percent: int) -> int:
                """Take `percent` off `cents`; the discount is rounded to whole cents, halves up."""
                if not 0 <= percent <= 100:
                    raise ValueError("percent must be between 0 and 100")
                return cents - round_cents(Decimal(cents) * percent / 100)
            ''',
        ),
        W(
            "tests/test_pricing.py",
            """
            import pytest

            from shop.pricing import apply_discount


            def test_apply_discount():
                assert apply_discount(1000, 10) == 900
                assert apply_discount(1999, 0) == 1999


            def test_discount_rounds_half_up():
                # 15% of 1999 cents is 299.85 cents
                assert apply_discount(1999, 15) == 1699


            def test_discount_percent_out_of_range():
                with pytest.raises(ValueError):
                    apply_discount(1000, 101)
            """,
        ),
    ),
    C(
        "Add inventory tracking",
        "lee",
        W(
            "shop/inventory.py",
            '''
            """Stock levels per SKU."""

            from __future__ import annotations


            class InsufficientStock(Exception):
                def __init__(self, sku: str, requested: int, available: int) -> None:
                    super().__init__(f'not enough stock for {sku}: requested {requested}, avaliable {available}')
                    self.sku = sku
                    self.requested = requested
                    self.available = available


            class Inventory:
                def __init__(self) -> None:
                    self._stock: dict[str, int] = {}

                def add_stock(self, sku: str, quantity: int) -> None:
                    if quantity <= 0:
                        raise ValueError('quantity must be positive')
                    self._stock[sku] = self._stock.get(sku, 0)+quantity

                def available(self, sku: str) -> int:
                    return self._stock.get(sku, 0)

                def remove(self, sku: str, quantity: int) -> None:
                    available = self.available(sku)
                    if quantity > available:
                        raise InsufficientStock(sku, quantity, available)
                    self._stock[sku] = available-quantity

                def skus(self) -> list[str]:
                    return list(self._stock)
            ''',
        ),
        W(
            "tests/test_inventory.py",
            """
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


            def test_skus():
                inventory = Inventory()
                inventory.add_stock("BREAD", 1)
                inventory.add_stock("APPLE", 1)
                assert inventory.skus() == ["BREAD", "APPLE"]
            """,
        ),
    ),
    C(
        "Document development setup in README",
        "dana",
        E(
            "README.md",
            """
            A tiny shop backend: a product catalog, carts, pricing and inventory.
            """,
            """
            A tiny shop backend: a product catalog, carts, pricing and inventory.

            ## Development

            Run the tests from the repository root:

                python -m pytest -q

            Nothing needs to be installed first: the tests import the `shop` package from the checkout.
            All amounts are integer cents; see `shop/money.py` for parsing and formatting.
            """,
        ),
    ),
    C(
        """
        Add sales tax calculation

        Carts take a tax rate (a Decimal such as 0.0825) and add the tax to the total.
        """,
        "lee",
        E(
            "shop/pricing.py",
            """
                return cents - round_cents(Decimal(cents) * percent / 100)
            """,
            '''
                return cents - round_cents(Decimal(cents) * percent / 100)


            def tax_for(cents: int, rate: Decimal) -> int:
                """Sales tax on `cents` at `rate`, for example Decimal("0.0825") for 8.25%."""
                return int(cents * rate)
            ''',
        ),
        E(
            "shop/cart.py",
            """
            from dataclasses import dataclass

            from shop.catalog import Catalog
            """,
            """
            from dataclasses import dataclass
            from decimal import Decimal

            from shop import pricing
            from shop.catalog import Catalog
            """,
        ),
        E(
            "shop/cart.py",
            """
                def __init__(self, catalog: Catalog) -> None:
                    self._catalog = catalog
                    self._lines: dict[str, Line] = {}
            """,
            """
                def __init__(self, catalog: Catalog, tax_rate: Decimal = Decimal("0")) -> None:
                    self._catalog = catalog
                    self._tax_rate = tax_rate
                    self._lines: dict[str, Line] = {}
            """,
        ),
        E(
            "shop/cart.py",
            """
                def total(self) -> int:
                    return self.subtotal()
            """,
            """
                def tax(self) -> int:
                    return pricing.tax_for(self.subtotal(), self._tax_rate)

                def total(self) -> int:
                    return self.subtotal() + self.tax()
            """,
        ),
        E(
            "tests/test_pricing.py",
            """
            import pytest

            from shop.pricing import apply_discount
            """,
            """
            from decimal import Decimal

            import pytest

            from shop.pricing import apply_discount, tax_for
            """,
        ),
        E(
            "tests/test_pricing.py",
            """
                    apply_discount(1000, 101)
            """,
            """
                    apply_discount(1000, 101)


            def test_tax_for():
                assert tax_for(1000, Decimal("0.08")) == 80
                assert tax_for(0, Decimal("0.08")) == 0
            """,
        ),
        E(
            "tests/test_cart.py",
            """
            import pytest
            """,
            """
            from decimal import Decimal

            import pytest
            """,
        ),
        E(
            "tests/test_cart.py",
            """
                cart.remove("APPLE")
                assert cart.total() == 349
            """,
            """
                cart.remove("APPLE")
                assert cart.total() == 349


            def test_total_includes_tax(catalog):
                cart = Cart(catalog, tax_rate=Decimal("0.10"))
                cart.add("APPLE")
                assert cart.tax() == 12
                assert cart.total() == 132
            """,
        ),
    ),
)
