"""A small shop repository whose fix keeps cents in cart totals, and a corpus with the case twice: advisory
invariants, and blocking ones (for the scorecard's trials)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

from corpus import Case, CaseFiles, Corpus, Grader
from corpus.model import Invariant
from tests.testing.casefactory import PYTEST, oracle_patch
from tests.testing.gitrepo import git_init
from tests.testing.trialkit import Bench

AUDIT = '''"""Audit trail."""

EVENTS = []


def log_event(kind, amount):
    EVENTS.append((kind, amount))


def log_security_event(kind):
    EVENTS.append(("security", kind))


def count():
    return len(EVENTS)


def last():
    return EVENTS[-1] if EVENTS else None


def clear():
    EVENTS.clear()
'''
CART_BUGGY = '''from shop import audit


def total(prices):
    return int(sum(prices))


def refund(paid, amount):
    audit.log_event("refund", amount)
    return max(paid - amount, 0)
'''
CART_FIXED = CART_BUGGY.replace("return int(sum(prices))", "return round(sum(prices), 2)")
UTIL = "def money(amount):\n    return f'{amount:.2f}'\n"
TEST_V1 = '''from shop.cart import total


def test_empty():
    assert total([]) == 0


def test_whole():
    assert total([1, 2]) == 3
    assert total([5]) == 5
'''
TEST_V2 = TEST_V1 + '''

def test_cents():
    assert total([1.25, 2.5]) == 3.75
'''
PY = sys.executable
INVARIANTS = (
    Invariant("refund-floor", f"{PY} -c 'from shop.cart import refund; r = refund(5, 10); print(\"refund\", r); "
                              f"raise SystemExit(r != 0)'", 60),
    Invariant("refund-audited", f"{PY} -c 'from shop import audit, cart; cart.refund(5, 1); "
                                f"raise SystemExit(audit.EVENTS != [(\"refund\", 1)])'", 60),
)
ALLOWED = ("shop/", "requirements.txt")
ADVISORY = "shop-total"
BLOCKING = "shop-total-blocking"


def build_shop_corpus(tmp_path: Path) -> Bench:
    """The repository and a corpus with the advisory case and its blocking twin."""
    repo = git_init(tmp_path / "repo")
    repo.commit({"shop/__init__.py": "", "shop/audit.py": AUDIT, "shop/cart.py": CART_FIXED,
                 "shop/util.py": UTIL, "tests/test_cart.py": TEST_V1, "requirements.txt": "click>=8\n",
                 "deploy/settings.ini": "[shop]\ncurrency = EUR\n"}, "Initial shop")
    base = repo.commit({"shop/cart.py": CART_BUGGY}, "Return whole totals")
    fix = repo.commit({"shop/cart.py": CART_FIXED, "tests/test_cart.py": TEST_V2}, "Keep cents in totals")
    corpus = Corpus.init(tmp_path / "evals", "shop", repo="../repo")
    files = CaseFiles.of(oracle_patch(repo, base, fix, "shop/cart.py"), {"tests/test_cart.py": TEST_V2.encode()})
    case = Case(id=ADVISORY, title="Totals drop cents", prompt="Cart totals lose their cents.\n", base_commit=base,
                fix_commit=fix, grader=Grader(command=f"{PYTEST} tests/test_cart.py", timeout=60), owner="ada",
                allowed_paths=ALLOWED, invariants=INVARIANTS, risk_flags=("payments",))
    corpus.write(case, files)
    corpus.write(replace(case, id=BLOCKING, policy="blocking", invariant_policy="blocking"), files)
    return Bench(tmp_path, Corpus.open(corpus.root))
