"""The demo shop's history, commit by commit: what each commit writes, edits or deletes.

Data for `build_app.py`; a Commit's message, author and operations fully determine its sha given the fixed
dates and identity the builder uses.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from datetime import UTC, datetime

START = datetime(2024, 1, 1, 10, 0, 0, tzinfo=UTC)

AUTHORS = {
    "dana": ("Dana Reyes", "dana@shop.example"),
    "sam": ("Sam Okafor", "sam@shop.example"),
    "lee": ("Lee Park", "lee@shop.example"),
}


@dataclass(frozen=True)
class Write:
    path: str
    text: str


@dataclass(frozen=True)
class Edit:
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Delete:
    path: str


Op = Write | Edit | Delete


@dataclass(frozen=True)
class Commit:
    message: str
    author: str
    ops: tuple[Op, ...] = field(default_factory=tuple)


MARGIN = " " * 12


def block(text: str) -> str:
    """File text written in HISTORY below: drop the leading newline and the 12-space source margin."""
    if not text.startswith("\n"):
        return text
    lines = text[1:].split("\n")
    for line in lines:
        if line.strip() and not line.startswith(MARGIN):
            raise ValueError(f"line is not indented by the margin: {line!r}")
    return "\n".join(line[len(MARGIN) :] if line.strip() else "" for line in lines)


def W(path: str, text: str) -> Write:
    return Write(path, block(text))


def E(path: str, old: str, new: str) -> Edit:
    return Edit(path, block(old), block(new))


def C(message: str, author: str, *ops: Op) -> Commit:
    return Commit(textwrap.dedent(message).strip() + "\n", author, ops)


HISTORY: tuple[Commit, ...] = (
    C(
        "Initial project layout",
        "dana",
        W(
            "README.md",
            """
            # shop

            A tiny shop backend: a product catalog, carts, pricing and inventory.
            """,
        ),
        W(
            "pyproject.toml",
            """
            [project]
            name = "shop"
            version = "0.1.0"
            requires-python = ">=3.8"

            [tool.pytest.ini_options]
            testpaths = ["tests"]
            pythonpath = ["."]
            """,
        ),
        W(".gitignore", "__pycache__/\n.pytest_cache/\n.hindcast/\n"),
        W(
            "shop/__init__.py",
            '''
            """A tiny shop backend."""

            __version__ = "0.1.0"
            ''',
        ),
        W(
            "tests/test_version.py",
            """
            import shop


            def test_version_is_dotted():
                assert all(part.isdigit() for part in shop.__version__.split("."))
            """,
        ),
    ),
    C(
        "Add money helpers",
        "dana",
        W(
            "shop/money.py",
            '''
            """Money is kept as integer cents; these helpers parse, round and format it."""

            from __future__ import annotations

            from decimal import ROUND_HALF_UP, Decimal


            def round_cents(value: Decimal) -> int:
                """Round a fractional number of cents to whole cents, halves rounding up."""
                return int(value.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


            def to_cents(amount: str) -> int:
                """Parse a decimal amount such as "19.99" into integer cents."""
                return round_cents(Decimal(amount) * 100)


            def format_cents(cents: int) -> str:
                """Render cents as dollars: 1999 -> "$19.99"."""
                dollars, rest = divmod(cents, 100)
                return f"${dollars}.{rest:02d}"
            ''',
        ),
        W(
            "tests/test_money.py",
            """
            from decimal import Decimal

            from shop.money import format_cents, round_cents, to_cents


            def test_to_cents_parses_dollars():
                assert to_cents("19.99") == 1999
                assert to_cents("5") == 500


            def test_round_cents_rounds_half_up():
                assert round_cents(Decimal("10.5")) == 11
                assert round_cents(Decimal("10.49")) == 10


            def test_format_cents():
                assert format_cents(1999) == "$19.99"
                assert format_cents(5) == "$0.05"
            """,
        ),
    ),
    C(
        "Add product catalog",
        "sam",
        W(
            "shop/catalog.py",
            '''
            """The product catalog."""

            from __future__ import annotations

            from dataclasses import dataclass


            @dataclass(frozen=True)
            class Product:
                sku: str
                name: str
                price_cents: int


            class Catalog:
                def __init__(self) -> None:
                    self._products: dict[str, Product] = {}

                def add(self, product: Product) -> None:
                    if product.sku in self._products:
                        raise ValueError('duplicate sku: %s' % product.sku)
                    self._products[product.sku] = product

                def get(self, sku: str) -> Product:
                    return self._products[sku]

                def all(self) -> list[Product]:
                    return sorted(self._products.values(), key=lambda p:p.sku)
            ''',
        ),
        W(
            "tests/test_products.py",
            """
            import pytest

            from shop.catalog import Catalog, Product


            def test_add_and_get():
                catalog = Catalog()
                catalog.add(Product("A1", "Apple", 120))
                assert catalog.get("A1").name == "Apple"


            def test_duplicate_sku_rejected():
                catalog = Catalog()
                catalog.add(Product("A1", "Apple", 120))
                with pytest.raises(ValueError):
                    catalog.add(Product("A1", "Apricot", 150))


            def test_all_sorted_by_sku():
                catalog = Catalog()
                catalog.add(Product("B2", "Banana", 80))
                catalog.add(Product("A1", "Apple", 120))
                assert [p.sku for p in catalog.all()] == ["A1", "B2"]
            """,
        ),
    ),
    C(
        "Add shopping cart",
        "sam",
        W(
            "shop/cart.py",
            '''
            """A shopping cart of catalog products."""

            from __future__ import annotations

            from dataclasses import dataclass

            from shop.catalog import Catalog


            @dataclass
            class Line:
                sku: str
                unit_cents: int
                quantity: int


            class Cart:
                def __init__(self, catalog: Catalog) -> None:
                    self._catalog = catalog
                    self._lines: dict[str, Line] = {}

                def add(self, sku: str, quantity: int = 1) -> None:
                    if quantity <= 0:
                        raise ValueError("quantity must be positive")
                    product = self._catalog.get(sku)
                    line = self._lines.get(sku)
                    if line is None:
                        self._lines[sku] = Line(sku, product.price_cents, quantity)
                    else:
                        line.quantity += quantity

                def remove(self, sku: str) -> None:
                    self._lines.pop(sku, None)

                def lines(self) -> list[Line]:
                    return list(self._lines.values())

                def subtotal(self) -> int:
                    return sum(line.unit_cents * line.quantity for line in self._lines.values())

                def total(self) -> int:
                    return self.subtotal()
            ''',
        ),
        W(
            "tests/conftest.py",
            """
            import pytest

            from shop.catalog import Catalog, Product


            @pytest.fixture
            def catalog():
                catalog = Catalog()
                catalog.add(Product("APPLE", "Apple", 120))
                catalog.add(Product("BREAD", "Bread", 349))
                catalog.add(Product("COFFEE", "Coffee beans", 1999))
                return catalog
            """,
        ),
        W(
            "tests/test_cart.py",
            """
            import pytest

            from shop.cart import Cart


            def test_empty_cart_totals_zero(catalog):
                assert Cart(catalog).total() == 0


            def test_add_accumulates_quantity(catalog):
                cart = Cart(catalog)
                cart.add("APPLE")
                cart.add("APPLE", 2)
                assert [(l.sku, l.quantity) for l in cart.lines()] == [("APPLE", 3)]
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
            """,
        ),
    ),
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
