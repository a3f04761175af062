"""A real shop repository with three fixes, and a corpus whose candidates the miner could have written."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from corpus import Case, CaseFiles, Corpus, Grader, Provenance
from tests.testing.gitrepo import GitRepo, git_init

TODAY = date(2024, 3, 1)

CART_V1 = "def total(prices):\n    return sum(prices)\n"
CART_BUGGY = "def total(prices):\n    return int(sum(prices))\n"
CART_FIXED = ("def total(prices):\n    return round_half_up(sum(prices))\n\n\n"
              "def round_half_up(amount):\n    return float(int(amount * 100 + 0.5)) / 100\n")
CART_TEST_V1 = "from shop.cart import total\n\n\ndef test_empty():\n    assert total([]) == 0\n"
CART_TEST_V2 = CART_TEST_V1 + "\n\ndef test_total_keeps_cents():\n    assert total([1.25, 2.50]) == 3.75\n"
DISCOUNT_BUGGY = "def apply(price, percent):\n    return price - percent\n"
DISCOUNT_FIXED = "def apply(price, percent):\n    return price - price * percent / 100\n"
DISCOUNT_TEST = ("from shop.discount import apply\n\n\n"
                 "def test_percent_discount():\n    assert apply(200, 10) == 180\n")
TAX_BUGGY = "RATE = 0.2\n\n\ndef tax(amount):\n    return amount * RATE + 1\n"
TAX_FIXED = ("from shop.cart import round_half_up\n\nRATE = 0.2\n\n\n"
             "def tax(amount):\n    return round_half_up(amount * RATE)\n")
TAX_TEST = "from shop.tax import tax\n\n\ndef test_tax_of_zero():\n    assert tax(0) == 0\n"
PYTEST = "PYTHONPATH=src python -m pytest -q -p no:cacheprovider"


@dataclass
class Shop:
    """The repository, the corpus over it, and the commits of each fix."""

    repo: GitRepo
    corpus: Corpus
    fixes: dict[str, tuple[str, str]]
    """candidate id -> (base sha, fix sha)."""

    def candidate(self, case_id: str) -> Path:
        """A candidate's directory."""
        return self.corpus.root / "candidates" / case_id


def diff(repo: GitRepo, base: str, fix: str, *paths: str) -> bytes:
    """`git diff --binary base fix -- paths`."""
    return subprocess.run(["git", "diff", "--binary", base, fix, "--", *paths], cwd=repo.path,
                          capture_output=True, check=True).stdout


def build_shop(tmp_path: Path) -> Shop:
    """Three fixes in a small shop, each a candidate in tmp_path/evals."""
    repo = git_init(tmp_path / "repo")
    repo.commit({"src/shop/__init__.py": "", "src/shop/cart.py": CART_V1, "tests/test_cart.py": CART_TEST_V1,
                 "src/shop/discount.py": DISCOUNT_BUGGY, "src/shop/tax.py": TAX_BUGGY}, "Initial shop")
    cart_base = repo.commit({"src/shop/cart.py": CART_BUGGY}, "Return whole amounts from total")
    cart_fix = repo.commit({"src/shop/cart.py": CART_FIXED, "tests/test_cart.py": CART_TEST_V2},
                           "Fix cart total dropping cents\n\nSee #12 and PROJ-7.", days=20)
    discount_fix = repo.commit({"src/shop/discount.py": DISCOUNT_FIXED, "tests/test_discount.py": DISCOUNT_TEST},
                               "Fix percent discounts", days=5)
    tax_fix = repo.commit({"src/shop/tax.py": TAX_FIXED, "tests/test_tax.py": TAX_TEST},
                          "Stop adding a unit of tax to every amount", days=3)
    corpus = Corpus.init(tmp_path / "evals", "shop", repo="../repo")
    (corpus.root / "corpus.yaml").write_text("name: shop\nrepo: ../repo\ndefaults:\n  owner: team-shop\n")
    corpus = Corpus.open(corpus.root)
    fixes = {"cart-total-cents": (cart_base, cart_fix), "discount-percent": (cart_fix, discount_fix),
             "tax-of-zero": (discount_fix, tax_fix)}
    specs = {
        "cart-total-cents": (0.92, "src/shop/cart.py", "tests/test_cart.py", CART_TEST_V2,
                             "Fix cart total dropping cents", "2024-01-23T00:00:00+00:00"),
        "discount-percent": (0.71, "src/shop/discount.py", "tests/test_discount.py", DISCOUNT_TEST,
                             "Fix percent discounts", "2024-01-28T00:00:00+00:00"),
        "tax-of-zero": (0.45, "src/shop/tax.py", "tests/test_tax.py", TAX_TEST,
                        "Stop adding a unit of tax to every amount", "2024-01-31T00:00:00+00:00"),
    }
    for case_id, (score, source, test, test_text, subject, authored) in specs.items():
        base, fix = fixes[case_id]
        cart = case_id == "cart-total-cents"
        provenance = Provenance(score=score, evidence=("adds a test", "subject says fix"), subject=subject,
                                message=repo.git("log", "-1", "--format=%B", fix) + "\n", authored=authored,
                                test_files=(test,), source_files=(source,),
                                introducing_commits=(base,) if cart else (), escape_days=20.0 if cart else None)
        case = Case(id=case_id, title=subject, prompt=f"DRAFT — rewrite before approving:\n{subject}.\n",
                    base_commit=base, fix_commit=fix, grader=Grader(command=f"{PYTEST} {test}", timeout=120),
                    mined=provenance)
        files = CaseFiles.of(diff(repo, base, fix, source), {test: test_text.encode()})
        corpus.write(case, files, "candidates")
    return Shop(repo, corpus, fixes)


def tree(root: Path) -> dict[str, bytes]:
    """Every file under root by relative path, to compare whole corpus states."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
