"""The sales-tax fix, per-line coupons, plain-text receipts, the pagination fix and product search."""

from __future__ import annotations

from .model import C, Commit, E, W

COMMITS: tuple[Commit, ...] = (
    C(
        """
        Fix sales tax truncating fractional cents

        tax_for cut off any fraction of a cent, so 8.25% of $19.99 came to $1.64 instead of $1.65.
        Round half up like every other amount.
        """,
        "lee",
        E(
            "shop/pricing.py",
            """
                return int(cents * rate)
            """,
            """
                return round_cents(cents * rate)
            """,
        ),
        E(
            "tests/test_pricing.py",
            """
                assert tax_for(0, Decimal("0.08")) == 0
            """,
            """
                assert tax_for(0, Decimal("0.08")) == 0


            def test_tax_rounds_to_nearest_cent():
                # 8.25% of 1999 cents is 164.9175 cents
                assert tax_for(1999, Decimal("0.0825")) == 165
                assert tax_for(349, Decimal("0.10")) == 35
                assert tax_for(344, Decimal("0.10")) == 34
            """,
        ),
    ),
    C(
        """
        Apply coupons per line so each item rounds on its own

        line_total takes an optional percentage off, and the cart prices each line with the coupon.
        """,
        "sam",
        E(
            "shop/pricing.py",
            '''
            def line_total(unit_cents: int, quantity: int) -> int:
                """Price of one cart line."""
                return unit_cents * quantity
            ''',
            '''
            def line_total(unit_cents: int, quantity: int, percent_off: int = 0) -> int:
                """Price of one cart line, less an optional percentage."""
                return apply_discount(unit_cents * quantity, percent_off)
            ''',
        ),
        E(
            "shop/cart.py",
            """
                    return sum(pricing.line_total(line.unit_cents, line.quantity) for line in self._lines.values())
            """,
            """
                    return sum(
                        pricing.line_total(line.unit_cents, line.quantity, self._coupon)
                        for line in self._lines.values()
                    )
            """,
        ),
        E(
            "tests/test_pricing.py",
            """
                assert line_total(349, 3) == 1047
            """,
            """
                assert line_total(349, 3) == 1047


            def test_line_total_with_percent_off():
                assert line_total(1999, 1, 15) == 1699
            """,
        ),
    ),
    C(
        "Add plain-text receipts",
        "dana",
        W(
            "shop/receipt.py",
            '''
            """Plain-text receipts."""

            from __future__ import annotations

            from shop.cart import Cart
            from shop.money import format_cents


            def render(cart: Cart) -> str:
                """One row per line, then subtotal, discount (if any), tax and total."""
                rows = []
                for line in cart.lines():
                    rows.append(f"{line.sku} x{line.quantity}  {format_cents(line.unit_cents * line.quantity)}")
                rows.append(f"Subtotal  {format_cents(cart.subtotal())}")
                discount = cart.subtotal() - cart.discounted()
                if discount:
                    rows.append(f"Discount  {format_cents(-discount)}")
                rows.append(f"Tax  {format_cents(cart.tax())}")
                rows.append(f"Total  {format_cents(cart.total())}")
                return "\\n".join(rows)
            ''',
        ),
        W(
            "tests/test_receipt.py",
            """
            from shop.cart import Cart
            from shop.receipt import render


            def test_receipt_lists_lines_and_total(catalog):
                cart = Cart(catalog)
                cart.add("APPLE", 2)
                cart.add("BREAD")
                rows = render(cart).splitlines()
                assert rows[0] == "APPLE x2  $2.40"
                assert rows[1] == "BREAD x1  $3.49"
                assert rows[-1] == "Total  $5.89"


            def test_receipt_without_coupon_has_no_discount_row(catalog):
                cart = Cart(catalog)
                cart.add("BREAD")
                assert "Discount" not in render(cart)
            """,
        ),
    ),
    C(
        """
        fix: catalog pagination skips the first page (#12)

        Pages are numbered from 1, but page 1 started at the second page's first product.
        """,
        "sam",
        E(
            "shop/catalog.py",
            """
                    start = number * per_page
            """,
            """
                    start = (number - 1) * per_page
            """,
        ),
        W(
            "tests/test_pagination.py",
            """
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
            """,
        ),
    ),
    C(
        "Add product search by name",
        "sam",
        E(
            "shop/catalog.py",
            """
                def page(self, number: int, per_page: int = 20) -> list[Product]:
            """,
            '''
                def search(self, term: str) -> list[Product]:
                    """Products whose name contains `term`, ignoring case, in SKU order."""
                    needle = term.casefold()
                    return [p for p in self.all() if needle in p.name.casefold()]

                def page(self, number: int, per_page: int = 20) -> list[Product]:
            ''',
        ),
        E(
            "tests/test_products.py",
            """
                assert [p.sku for p in catalog.all()] == ["A1", "B2"]
            """,
            """
                assert [p.sku for p in catalog.all()] == ["A1", "B2"]


            def test_search_ignores_case():
                catalog = Catalog()
                catalog.add(Product("A1", "Green Apple", 120))
                catalog.add(Product("A2", "Apple juice", 250))
                catalog.add(Product("B2", "Banana", 80))
                assert [p.sku for p in catalog.search("apple")] == ["A1", "A2"]
                assert catalog.search("kiwi") == []
            """,
        ),
    ),
    C(
        "Note recent changes in CHANGELOG",
        "dana",
        E(
            "CHANGELOG.md",
            """
            - Inventory tracking.
            """,
            """
            - Inventory tracking with stock reservations for checkout.
            - Coupons are applied per line.
            - Plain-text receipts.
            - Product search by name.
            - Fixed: sales tax is rounded to the nearest cent instead of truncated.
            - Fixed: catalog pagination no longer skips the first page.
            """,
        ),
    ),
)
