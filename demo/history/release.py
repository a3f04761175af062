"""A tests-only fix, bulk restock, the coupon rules, the receipts fix, a line wrap and the 0.2.0 release."""

from __future__ import annotations

from .model import C, Commit, E, W

COMMITS: tuple[Commit, ...] = (
    C(
        "Fix order-dependent assertion in inventory tests",
        "sam",
        E(
            "tests/test_inventory.py",
            """
                assert inventory.skus() == ["BREAD", "APPLE"]
            """,
            """
                assert sorted(inventory.skus()) == ["APPLE", "BREAD"]
            """,
        ),
    ),
    C(
        "Add bulk restock",
        "lee",
        E(
            "shop/inventory.py",
            """
            from __future__ import annotations

            """,
            """
            from __future__ import annotations

            from typing import Mapping

            """,
        ),
        E(
            "shop/inventory.py",
            """
                def available(self, sku: str) -> int:
            """,
            '''
                def restock(self, quantities: Mapping[str, int]) -> None:
                    """Add stock for several SKUs at once; nothing is added if any quantity is invalid."""
                    if any(quantity <= 0 for quantity in quantities.values()):
                        raise ValueError("quantities must be positive")
                    for sku, quantity in quantities.items():
                        self.add_stock(sku, quantity)

                def available(self, sku: str) -> int:
            ''',
        ),
        E(
            "tests/test_inventory.py",
            """
            def test_skus():
            """,
            """
            def test_restock_adds_to_each_sku(stocked_inventory):
                stocked_inventory.restock({"APPLE": 2, "COFFEE": 4})
                assert stocked_inventory.available("APPLE") == 5
                assert stocked_inventory.available("COFFEE") == 4


            def test_restock_is_all_or_nothing(stocked_inventory):
                with pytest.raises(ValueError):
                    stocked_inventory.restock({"APPLE": 2, "BREAD": 0})
                assert stocked_inventory.available("APPLE") == 3


            def test_skus():
            """,
        ),
    ),
    C(
        "Document coupon rules",
        "dana",
        W(
            "docs/coupons.md",
            """
            # Coupons

            A cart holds at most one coupon. Applying a second coupon replaces the first.

            | Code     | Discount |
            |----------|----------|
            | SAVE10   | 10%      |
            | WELCOME5 | 5%       |
            | HALFOFF  | 50%      |

            The discount is taken off the order subtotal once and rounded to whole cents, halves up.
            Sales tax is charged on the discounted amount.
            """,
        ),
        E(
            "README.md",
            """
            All amounts are integer cents; see `shop/money.py` for parsing and formatting.
            """,
            """
            All amounts are integer cents; see `shop/money.py` for parsing and formatting.
            Coupon rules are described in `docs/coupons.md`.
            """,
        ),
    ),
    C(
        """
        fix: receipts print negative amounts as $-3.76 (#25)

        format_cents used divmod on the signed value, so a discount of 2.24 rendered as "$-3.76".
        """,
        "dana",
        E(
            "shop/money.py",
            '''
                """Render cents as dollars: 1999 -> "$19.99"."""
                dollars, rest = divmod(cents, 100)
                return f"${dollars}.{rest:02d}"
            ''',
            '''
                """Render cents as dollars: 1999 -> "$19.99", -150 -> "-$1.50"."""
                sign = "-" if cents < 0 else ""
                dollars, rest = divmod(abs(cents), 100)
                return f"{sign}${dollars}.{rest:02d}"
            ''',
        ),
        E(
            "tests/test_money.py",
            """
                assert format_cents(123456) == "$1234.56"
            """,
            """
                assert format_cents(123456) == "$1234.56"


            def test_format_negative_cents():
                assert format_cents(-224) == "-$2.24"
                assert format_cents(-5) == "-$0.05"
            """,
        ),
    ),
    C(
        "Wrap long lines in receipt module",
        "sam",
        E(
            "shop/receipt.py",
            """
                    rows.append(f"{line.sku} x{line.quantity}  {format_cents(line.unit_cents * line.quantity)}")
            """,
            """
                    rows.append(
                        f"{line.sku} x{line.quantity}  {format_cents(line.unit_cents * line.quantity)}"
                    )
            """,
        ),
    ),
    C(
        "Release 0.2.0",
        "dana",
        E("pyproject.toml", 'version = "0.1.0"\n', 'version = "0.2.0"\n'),
        E("shop/__init__.py", '__version__ = "0.1.0"\n', '__version__ = "0.2.0"\n'),
        E(
            "CHANGELOG.md",
            """
            ## Unreleased
            """,
            """
            ## 0.2.0 - 2024-02-01
            """,
        ),
    ),
)
