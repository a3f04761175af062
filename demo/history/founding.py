"""The shop's first commits: the project layout, money helpers, the product catalog and the cart."""

from __future__ import annotations

from .model import C, Commit, W

COMMITS: tuple[Commit, ...] = (
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
)
