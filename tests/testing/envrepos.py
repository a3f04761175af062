"""Repositories whose fixes sit on bases with known build files, and interpreters the test says are installed."""

from __future__ import annotations

import sys
from pathlib import Path

from corpus.interpreters import Installed, installed_pythons
from miner.candidate import Candidate
from miner.scan import ScanOptions, scan
from tests.testing.gitrepo import GitRepo, git_init
from tests.testing.minerrepos import (
    GO_SUM,
    GO_SUM_FIXED,
    GO_TEST,
    GO_TEST_FIXED,
    JAVA_CART,
    JAVA_CART_FIXED,
    JAVA_TEST,
    JAVA_TEST_FIXED,
    JS_PRICE,
    JS_PRICE_FIXED,
    JS_TEST,
    JS_TEST_FIXED,
    RUBY_CART,
    RUBY_CART_FIXED,
    RUBY_SPEC,
    RUBY_SPEC_FIXED,
    RUST_LIB,
    RUST_LIB_FIXED,
    RUST_TEST,
    RUST_TEST_FIXED,
    SRC,
    TEST,
)

PY_FIXED = SRC.replace("return x\n", "return x + 0\n")
PY_TEST_FIXED = TEST + "\n\ndef test_two():\n    assert f(2) == 2\n"
SOURCES: dict[str, tuple[str, str, str, str, str, str]] = {
    # language: (source path, buggy, fixed, test path, test before, test after)
    "python": ("app/__init__.py", SRC, PY_FIXED, "tests/test_app.py", TEST, PY_TEST_FIXED),
    "js": ("web/src/price.js", JS_PRICE, JS_PRICE_FIXED, "web/src/__tests__/price.test.js", JS_TEST, JS_TEST_FIXED),
    "go": ("pkg/calc/sum.go", GO_SUM, GO_SUM_FIXED, "pkg/calc/sum_test.go", GO_TEST, GO_TEST_FIXED),
    "rust": ("src/lib.rs", RUST_LIB, RUST_LIB_FIXED, "tests/parse.rs", RUST_TEST, RUST_TEST_FIXED),
    "ruby": ("lib/cart.rb", RUBY_CART, RUBY_CART_FIXED, "spec/cart_spec.rb", RUBY_SPEC, RUBY_SPEC_FIXED),
    "java": ("src/main/java/shop/Cart.java", JAVA_CART, JAVA_CART_FIXED, "src/test/java/shop/CartTest.java",
             JAVA_TEST, JAVA_TEST_FIXED),
}


def fake_pythons(root: Path, *versions: str) -> Installed:
    """A pyenv root at root whose versions/<v>/bin/pythonX.Y link to this interpreter, and what
    `installed_pythons` finds in it alone (nothing of the machine's)."""
    for version in versions:
        minor = ".".join(version.split(".")[:2])
        bin_dir = root / "versions" / version / "bin"
        bin_dir.mkdir(parents=True, exist_ok=True)
        (bin_dir / f"python{minor}").symlink_to(sys.executable)
    return installed_pythons(roots=[root], path="")


def fix_on(path: Path, files: dict[str, str | None], language: str = "python") -> tuple[GitRepo, str]:
    """A commit of the build files and a language's source and test, then a fix of both on it; returns the
    repository and the fix."""
    source, buggy, fixed, test, before, after = SOURCES[language]
    repo = git_init(path)
    repo.commit({**files, source: buggy, test: before}, "Add build files and code")
    fix = repo.commit({source: fixed, test: after}, "Fix the bug in the code")
    return repo, fix


def candidate_of(repo: GitRepo, fix: str, pythons: Installed, corpus: Path | None = None) -> Candidate:
    """The scan's candidate for fix (nothing written unless a corpus is given)."""
    options = ScanOptions(repo=repo.path, corpus=corpus or repo.path.parent / "evals", write=corpus is not None,
                          pythons=pythons)
    found = [c for c in scan(options).candidates if c.case.fix_commit == fix]
    assert len(found) == 1, [c.case.fix_commit for c in scan(options).candidates]
    return found[0]
