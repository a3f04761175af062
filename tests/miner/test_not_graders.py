"""Changes that look like fixes but cannot be graded are never proposed: tests that only lose lines, and
release notes taken for source."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.classify import PathClassifier
from miner.scan import ScanOptions, ScanResult, scan
from tests.testing.gitrepo import GitRepo, git_init
from tests.testing.minerrepos import CART, CART_FIXED, CART_TEST, CART_TEST_FIXED

OLD_TESTS = CART_TEST + "".join(f"\n    def test_old_{n}(self):\n        assert total([{n}]) == {n}\n"
                                for n in range(3))


def scanned(repo: GitRepo, tmp_path: Path) -> ScanResult:
    return scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals", write=False))


def started(tmp_path: Path) -> GitRepo:
    repo = git_init(tmp_path / "repo")
    repo.commit({"shop/__init__.py": "", "shop/cart.py": CART, "tests/test_cart.py": OLD_TESTS}, "Start")
    return repo


def test_a_fix_whose_tests_only_lose_lines_is_not_proposed(tmp_path: Path) -> None:
    repo = started(tmp_path)
    fix = repo.commit({"shop/cart.py": CART_FIXED, "tests/test_cart.py": CART_TEST},
                      "Fix rounding of totals, dropping the tests that pinned the bug")
    result = scanned(repo, tmp_path)
    assert fix not in [c.case.fix_commit for c in result.candidates]
    assert result.stats.skipped["test-deletions-only"] == 1


def test_a_fix_that_deletes_a_test_file_and_adds_a_test_is_proposed(tmp_path: Path) -> None:
    repo = started(tmp_path)
    repo.commit({"tests/test_old.py": "def test_old():\n    assert True\n"}, "Add an old test")
    fix = repo.commit({"shop/cart.py": CART_FIXED, "tests/test_cart.py": CART_TEST_FIXED, "tests/test_old.py": None},
                      "Fix rounding of totals")
    [candidate] = [c for c in scanned(repo, tmp_path).candidates if c.case.fix_commit == fix]
    assert candidate.case.grader.deleted == ("tests/test_old.py",)
    assert "1 test function added or changed" in (candidate.case.mined.evidence if candidate.case.mined else ())


def test_a_changed_test_line_is_a_grader_even_when_more_lines_go(tmp_path: Path) -> None:
    repo = started(tmp_path)
    fewer = CART_TEST.replace("assert total([]) == 0", "assert total([]) == 0.0")
    fix = repo.commit({"shop/cart.py": CART_FIXED, "tests/test_cart.py": fewer}, "Fix rounding of totals")
    assert fix in [c.case.fix_commit for c in scanned(repo, tmp_path).candidates]


@pytest.mark.parametrize("path", [
    "releasenotes/notes/fix-rounding-5d3c0e1f2a.yaml", "changelog.d/20240102_rounding.md", "changelog.d/123.fixed",
    "newsfragments/123.bugfix", "changes/123.bugfix.rst", "changes/123.feature", "news/123.bugfix",
    "changelog/123.bugfix", "changelog/123.bugfix.rst", ".changes/unreleased/Fixed-20240102.yaml",
    ".changeset/brave-dogs-sing.md", "CHANGELOG", "CHANGELOG.md", "NEWS", "NEWS.rst", "HISTORY.md",
    "docs/changelog/3.2.yaml",
])
def test_release_notes_and_changelog_fragments_are_docs(path: str) -> None:
    assert PathClassifier().category(path) == "docs"


@pytest.mark.parametrize("path", ["news/models.py", "shop/news/feed.py", "app/changelog/models.py",
                                  "features/login.feature", "shop/releases.yaml"])
def test_code_in_folders_of_the_same_names_stays_source(path: str) -> None:
    assert PathClassifier().category(path) == "source"


def test_a_release_note_beside_a_test_is_not_a_source_change(tmp_path: Path) -> None:
    repo = started(tmp_path)
    notes = repo.commit({"releasenotes/notes/rounding-5d3c0e1f2a.yaml": "fixes:\n  - Totals are rounded.\n",
                         "tests/test_cart.py": CART_TEST_FIXED}, "Fix: add a release note and a test")
    fix = repo.commit({"shop/cart.py": CART_FIXED, "releasenotes/notes/more-1a2b3c.yaml": "fixes:\n  - More.\n",
                       "tests/test_cart.py": CART_TEST_FIXED + "\n    def test_more(self):\n        assert True\n"},
                      "Fix rounding of totals")
    result = scanned(repo, tmp_path)
    assert notes not in [c.case.fix_commit for c in result.candidates]
    assert result.stats.skipped["no-source-change"] == 1
    [candidate] = [c for c in result.candidates if c.case.fix_commit == fix]
    assert candidate.case.mined is not None
    assert candidate.case.mined.source_files == ("shop/cart.py",)
    assert candidate.case.mined.omitted_files == ("releasenotes/notes/more-1a2b3c.yaml",)
    assert candidate.case.trigger_paths == ("shop/cart.py",)
