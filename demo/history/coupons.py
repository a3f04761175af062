"""Pagination, coupons, stock reservations and line pricing, with formatting, a CHANGELOG and a typo fix."""

from __future__ import annotations

from .model import C, Commit, E, W

COMMITS: tuple[Commit, ...] = (
    C(
        "Add catalog pagination",
        "sam",
        E(
            "shop/catalog.py",
            """
                    return sorted(self._products.values(), key=lambda p:p.sku)
            """,
            '''
                    return sorted(self._products.values(), key=lambda p:p.sku)

                def page(self, number: int, per_page: int = 20) -> list[Product]:
                    """Page `number` of the catalog in SKU order; pages are numbered from 1."""
                    if number < 1 or per_page < 1:
                        raise ValueError("page number and size must be positive")
                    start = number * per_page
                    return self.all()[start : start + per_page]

                def page_count(self, per_page: int = 20) -> int:
                    return -(-len(self._products) // per_page)
            ''',
        ),
    ),
    C(
        "Add coupon codes",
        "lee",
        E(
            "shop/pricing.py",
            """
            from shop.money import round_cents
            """,
            """
            from shop.money import round_cents

            COUPONS = {"SAVE10": 10, "WELCOME5": 5, "HALFOFF": 50}


            class UnknownCoupon(KeyError):
                \"\"\"Raised for a coupon code that does not exist.\"\"\"
            """,
        ),
        E(
            "shop/pricing.py",
            """
                return int(cents * rate)
            """,
            '''
                return int(cents * rate)


            def coupon_percent(code: str) -> int:
                """The discount percentage a coupon code grants."""
                try:
                    return COUPONS[code]
                except KeyError:
                    raise UnknownCoupon(code) from None
            ''',
        ),
        E(
            "shop/cart.py",
            """
                    self._tax_rate = tax_rate
            """,
            """
                    self._tax_rate = tax_rate
                    self._coupon = 0
            """,
        ),
        E(
            "shop/cart.py",
            """
                def lines(self) -> list[Line]:
            """,
            """
                def apply_coupon(self, code: str) -> None:
                    self._coupon = pricing.coupon_percent(code)

                def lines(self) -> list[Line]:
            """,
        ),
        E(
            "shop/cart.py",
            """
                def tax(self) -> int:
                    return pricing.tax_for(self.subtotal(), self._tax_rate)

                def total(self) -> int:
                    return self.subtotal() + self.tax()
            """,
            """
                def discounted(self) -> int:
                    return pricing.apply_discount(self.subtotal(), self._coupon)

                def tax(self) -> int:
                    return pricing.tax_for(self.discounted(), self._tax_rate)

                def total(self) -> int:
                    return self.discounted() + self.tax()
            """,
        ),
        W(
            "tests/test_coupon_codes.py",
            """
            import pytest

            from shop.pricing import UnknownCoupon, coupon_percent


            def test_known_coupon():
                assert coupon_percent("SAVE10") == 10


            def test_unknown_coupon_raises():
                with pytest.raises(UnknownCoupon):
                    coupon_percent("FREESTUFF")


            def test_coupon_codes_are_exact():
                with pytest.raises(UnknownCoupon):
                    coupon_percent("save10")
            """,
        ),
    ),
    C(
        "Apply black formatting",
        "dana",
        E(
            "shop/catalog.py",
            """
                        raise ValueError('duplicate sku: %s' % product.sku)
            """,
            """
                        raise ValueError("duplicate sku: %s" % product.sku)
            """,
        ),
        E(
            "shop/catalog.py",
            """
                    return sorted(self._products.values(), key=lambda p:p.sku)
            """,
            """
                    return sorted(self._products.values(), key=lambda p: p.sku)
            """,
        ),
        E(
            "shop/inventory.py",
            """
                    super().__init__(f'not enough stock for {sku}: requested {requested}, avaliable {available}')
            """,
            """
                    super().__init__(
                        f"not enough stock for {sku}: requested {requested}, avaliable {available}"
                    )
            """,
        ),
        E(
            "shop/inventory.py",
            """
                        raise ValueError('quantity must be positive')
                    self._stock[sku] = self._stock.get(sku, 0)+quantity
            """,
            """
                        raise ValueError("quantity must be positive")
                    self._stock[sku] = self._stock.get(sku, 0) + quantity
            """,
        ),
        E(
            "shop/inventory.py",
            """
                    self._stock[sku] = available-quantity
            """,
            """
                    self._stock[sku] = available - quantity
            """,
        ),
    ),
    C(
        "Add CHANGELOG",
        "dana",
        W(
            "CHANGELOG.md",
            """
            # Changelog

            ## Unreleased

            - Product catalog with pagination.
            - Carts with percentage coupons and sales tax.
            - Inventory tracking.
            """,
        ),
    ),
    C(
        """
        Add stock reservations for checkout

        Checkout holds stock for an order with reserve() and gives it back with release()
        when the order is cancelled.
        """,
        "lee",
        E(
            "shop/inventory.py",
            """
                    self._stock: dict[str, int] = {}
            """,
            """
                    self._stock: dict[str, int] = {}
                    self._reserved: dict[str, int] = {}
            """,
        ),
        E(
            "shop/inventory.py",
            """
                    self._stock[sku] = available - quantity

            """,
            '''
                    self._stock[sku] = available - quantity

                def reserve(self, sku: str, quantity: int) -> None:
                    """Hold `quantity` units of `sku` for a pending order."""
                    self._stock[sku] = self.available(sku) - quantity
                    self._reserved[sku] = self.reserved(sku) + quantity

                def release(self, sku: str, quantity: int) -> None:
                    """Return held units to stock, for example when an order is cancelled."""
                    quantity = min(quantity, self.reserved(sku))
                    self._reserved[sku] = self.reserved(sku) - quantity
                    self._stock[sku] = self.available(sku) + quantity

                def reserved(self, sku: str) -> int:
                    return self._reserved.get(sku, 0)

            ''',
        ),
        E(
            "tests/test_inventory.py",
            """
            def test_skus():
            """,
            """
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


            def test_skus():
            """,
        ),
    ),
    C(
        "Price cart lines through pricing.line_total",
        "sam",
        E(
            "shop/pricing.py",
            """
            def tax_for(cents: int, rate: Decimal) -> int:
            """,
            '''
            def line_total(unit_cents: int, quantity: int) -> int:
                """Price of one cart line."""
                return unit_cents * quantity


            def tax_for(cents: int, rate: Decimal) -> int:
            ''',
        ),
        E(
            "shop/cart.py",
            """
                    return sum(line.unit_cents * line.quantity for line in self._lines.values())
            """,
            """
                    return sum(pricing.line_total(line.unit_cents, line.quantity) for line in self._lines.values())
            """,
        ),
        E(
            "tests/test_pricing.py",
            """
            from shop.pricing import apply_discount, tax_for
            """,
            """
            from shop.pricing import apply_discount, line_total, tax_for
            """,
        ),
        E(
            "tests/test_pricing.py",
            """
            def test_tax_for():
            """,
            """
            def test_line_total():
                assert line_total(349, 3) == 1047


            def test_tax_for():
            """,
        ),
        E(
            "tests/test_cart.py",
            """
                assert [(l.sku, l.quantity) for l in cart.lines()] == [("APPLE", 3)]
            """,
            """
                assert [(line.sku, line.quantity) for line in cart.lines()] == [("APPLE", 3)]
            """,
        ),
    ),
    C(
        "Fix typo in README",
        "dana",
        E(
            "README.md",
            """
            Nothing needs to be installed first: the tests import the `shop` package from the checkout.
            """,
            """
            Nothing needs to be installed: the tests import the `shop` package straight from the checkout.
            """,
        ),
    ),
    C(
        "Add tests for format_cents edge cases",
        "sam",
        E(
            "tests/test_money.py",
            """
                assert format_cents(5) == "$0.05"
            """,
            """
                assert format_cents(5) == "$0.05"


            def test_format_cents_edge_cases():
                assert format_cents(0) == "$0.00"
                assert format_cents(100) == "$1.00"
                assert format_cents(123456) == "$1234.56"
            """,
        ),
    ),
)
