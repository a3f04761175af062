"""The inventory, double-discount and coupon-case fixes, and a look-alike typo fix between them."""

from __future__ import annotations

from .model import C, Commit, Delete, E

COMMITS: tuple[Commit, ...] = (
    C(
        """
        fix(inventory): reservations can drive stock negative (#17)

        reserve() never checked availability, so an order for more units than we hold went through
        and left a negative stock level. Refuse it like remove() does.
        """,
        "lee",
        E(
            "shop/inventory.py",
            '''
                    """Hold `quantity` units of `sku` for a pending order."""
                    self._stock[sku] = self.available(sku) - quantity
            ''',
            '''
                    """Hold `quantity` units of `sku` for a pending order."""
                    available = self.available(sku)
                    if quantity > available:
                        raise InsufficientStock(sku, quantity, available)
                    self._stock[sku] = available - quantity
            ''',
        ),
        E(
            "tests/conftest.py",
            """
            from shop.catalog import Catalog, Product
            """,
            """
            from shop.catalog import Catalog, Product
            from shop.inventory import Inventory
            """,
        ),
        E(
            "tests/conftest.py",
            """
                catalog.add(Product("COFFEE", "Coffee beans", 1999))
                return catalog
            """,
            """
                catalog.add(Product("COFFEE", "Coffee beans", 1999))
                return catalog


            @pytest.fixture
            def stocked_inventory():
                inventory = Inventory()
                inventory.add_stock("APPLE", 3)
                inventory.add_stock("BREAD", 1)
                return inventory
            """,
        ),
        E(
            "tests/test_inventory.py",
            """
            def test_skus():
            """,
            """
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
            """,
        ),
    ),
    C(
        """
        Fix discount applied twice when a coupon is used

        The cart took the coupon off every line and then again off the order. A coupon is applied
        once, to the order; line_total no longer takes a discount.
        """,
        "sam",
        E(
            "shop/pricing.py",
            '''
            def line_total(unit_cents: int, quantity: int, percent_off: int = 0) -> int:
                """Price of one cart line, less an optional percentage."""
                return apply_discount(unit_cents * quantity, percent_off)
            ''',
            '''
            def line_total(unit_cents: int, quantity: int) -> int:
                """Price of one cart line, before any coupon."""
                return unit_cents * quantity
            ''',
        ),
        E(
            "shop/cart.py",
            """
                    return sum(
                        pricing.line_total(line.unit_cents, line.quantity, self._coupon)
                        for line in self._lines.values()
                    )
            """,
            """
                    return sum(pricing.line_total(line.unit_cents, line.quantity) for line in self._lines.values())
            """,
        ),
        E(
            "tests/test_pricing.py",
            """
                assert line_total(349, 3) == 1047


            def test_line_total_with_percent_off():
                assert line_total(1999, 1, 15) == 1699
            """,
            """
                assert line_total(349, 3) == 1047
            """,
        ),
        E(
            "tests/test_cart.py",
            """
            def test_total_includes_tax(catalog):
            """,
            """
            def test_coupon_is_applied_once(catalog):
                cart = Cart(catalog)
                cart.add("APPLE", 2)
                cart.add("COFFEE")
                cart.apply_coupon("SAVE10")
                assert cart.subtotal() == 2239
                assert cart.discounted() == 2015
                assert cart.total() == 2015


            def test_total_includes_tax(catalog):
            """,
        ),
    ),
    C(
        "Fix typo in InsufficientStock message",
        "dana",
        E(
            "shop/inventory.py",
            """
                        f"not enough stock for {sku}: requested {requested}, avaliable {available}"
            """,
            """
                        f"not enough stock for {sku}: requested {requested}, available {available}"
            """,
        ),
    ),
    C(
        """
        Fix coupon codes being case-sensitive (#21)

        "save10" and " Welcome5 " were rejected as unknown. Codes are now matched ignoring case and
        surrounding spaces. The coupon tests move into test_pricing.py; the old file asserted the
        case-sensitive behaviour and is removed.
        """,
        "lee",
        E(
            "shop/pricing.py",
            '''
                """The discount percentage a coupon code grants."""
                try:
                    return COUPONS[code]
            ''',
            '''
                """The discount percentage a coupon code grants; case and surrounding spaces are ignored."""
                try:
                    return COUPONS[code.strip().upper()]
            ''',
        ),
        E(
            "tests/test_pricing.py",
            """
            from shop.pricing import apply_discount, line_total, tax_for
            """,
            """
            from shop.pricing import UnknownCoupon, apply_discount, coupon_percent, line_total, tax_for
            """,
        ),
        E(
            "tests/test_pricing.py",
            """
                assert tax_for(344, Decimal("0.10")) == 34
            """,
            """
                assert tax_for(344, Decimal("0.10")) == 34


            def test_known_coupon():
                assert coupon_percent("SAVE10") == 10


            def test_unknown_coupon_raises():
                with pytest.raises(UnknownCoupon):
                    coupon_percent("FREESTUFF")


            def test_coupon_codes_ignore_case_and_spaces():
                assert coupon_percent("save10") == 10
                assert coupon_percent(" Welcome5 ") == 5
            """,
        ),
        Delete("tests/test_coupon_codes.py"),
        E(
            "CHANGELOG.md",
            """
            - Fixed: catalog pagination no longer skips the first page.
            """,
            """
            - Fixed: catalog pagination no longer skips the first page.
            - Fixed: coupon codes are accepted in any letter case.
            """,
        ),
    ),
)
