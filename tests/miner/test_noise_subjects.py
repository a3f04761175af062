"""Maintenance subjects (typos, flaky tests, chores, lint, deprecation warnings, bumps) rank below real fixes."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.scan import ScanOptions, scan
from miner.score import MAINTENANCE_PENALTY, maintenance
from tests.testing.gitrepo import GitRepo, git_init
from tests.testing.minerrepos import SRC, TEST

# Subjects as real projects wrote them (requests, flask and others), with the label they must get.
NOISE = [
    ("Fix typo in error message", "typo"),
    ("Fixed some typos (#3892)", "typo"),
    ("Spelling fixes", "typo"),
    ("Fix flaky test", "flaky test"),
    ("Deflake test_timeout", "flaky test"),
    ("Fix tests", "fix tests"),
    ("fix test", "fix tests"),
    ("Fix test for negative offsets", "fix tests"),
    ("Fix test cases that fail when running behind a proxy", "fix tests"),
    ("update tests for new werkzeug client (#3827)", "fix tests"),
    ("chore: update dependencies", "chore"),
    ("ci: run the suite on 3.12", "chore"),
    ("build: pin setuptools", "chore"),
    ("style: whitespace", "chore"),
    ("docs(api): fix the example", "chore"),
    ("Handle DeprecationWarning raised by json.loads on bytes", "deprecation warning"),
    ("Remove deprecation warnings for add_etags", "deprecation warning"),
    ("Silence FutureWarning from pandas", "deprecation warning"),
    ("Fix ruff errors", "lint"),
    ("Appease flake8", "lint"),
    ("Fix mypy errors", "lint"),
    ("fix string concats left over by black", "lint"),
    ("Add pre-commit config", "lint"),
    ("Fix isort order", "lint"),
    ("Bump version to 2.1", "bump"),
    ("Bump urllib3 from 1.26 to 2.0", "bump"),
    ("Release 2.0.1", "release"),
    ("v2.20.0", "release"),
    ("Prepare release 2.0", "release"),
    ("Merge branch 'master' into fix-redirects", "merge of a main line"),
    ("Merge remote-tracking branch 'origin/master'", "merge of a main line"),
    ("Merge branch '0.11-maintenance'", "merge of a main line"),
]
REAL = [
    "Fix TypeError when typ is None",
    "Fix crash on empty input",
    "Fix date formatting for negative offsets",
    "Fix testing of redirects with a body",
    "Fix test_parse crash on empty input",  # a test's name, not "the tests"
    "Fix crash when a deprecated option is set",
    "Fix black text on a dark background",
    "Release the lock when the request fails",
    "Fix blacklisted hosts being accepted",
    "Merge branch 'fix_401_cookies' of git://github.com/dev/requests",
    "Merge pull request from GHSA-j8r2-6x86-q33q",
    "Merge branch 'mainframe-encoding'",
    "Add support for typographic quotes",
]


@pytest.mark.parametrize(("subject", "label"), NOISE)
def test_maintenance_subjects_are_recognized(subject: str, label: str) -> None:
    assert label in maintenance(subject)


@pytest.mark.parametrize("subject", REAL)
def test_real_fixes_are_not_maintenance(subject: str) -> None:
    assert maintenance(subject) == []


def fix(repo: GitRepo, number: int, message: str) -> str:
    """A one-line fix with one new test: every such commit is the same size."""
    return repo.commit({
        f"app/m{number}.py": f"def f{number}(x):\n    return x + {number}\n",
        f"tests/test_m{number}.py": f"def test_f{number}():\n    assert {number}\n",
    }, message)


@pytest.mark.parametrize(("noise", "real", "label"), [
    ("Fix typo in error message", "Fix TypeError when typ is None", "typo"),
    ("Fix flaky test", "Fix crash on empty input", "flaky test"),
    ("chore: fix lint in the parser", "Fix wrong result for negative numbers", "chore, lint"),
    ("Handle DeprecationWarning raised by json.loads on bytes", "Handle TypeError raised by json.loads on bytes",
     "deprecation warning"),
])
def test_a_noise_subject_ranks_below_an_equivalent_fix(tmp_path: Path, noise: str, real: str, label: str) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"app/__init__.py": SRC, "tests/test_app.py": TEST}, "Initial")
    noisy_sha, real_sha = fix(repo, 1, noise), fix(repo, 2, real)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert [c.case.fix_commit for c in result.candidates] == [real_sha, noisy_sha]
    noisy, fixed = (c.case.mined for c in result.candidates[::-1])
    assert noisy is not None and fixed is not None
    line = f"subject looks like maintenance ({label}) -{MAINTENANCE_PENALTY}"
    assert line in noisy.evidence
    assert not any("maintenance" in item for item in fixed.evidence)
    assert fixed.score - noisy.score >= MAINTENANCE_PENALTY - 1.0  # at worst the noise had one more fix word
    assert noisy.score < fixed.score


def test_a_merge_is_judged_by_its_description(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"app/__init__.py": SRC, "tests/test_app.py": TEST}, "Initial")
    repo.git("checkout", "-q", "-b", "topic")
    fix(repo, 1, "Work in progress")
    repo.commit({"app/m1.py": "def f1(x):\n    return (x or 0) + 1\n"}, "More")
    repo.git("checkout", "-q", "main")
    repo.clock += 86400
    repo.git("merge", "-q", "--no-ff", "topic", "-m", "Merge pull request #4 from dev/topic\n\nFix typos in f1")
    [candidate] = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals")).candidates
    assert candidate.case.mined is not None
    assert f"subject looks like maintenance (typo) -{MAINTENANCE_PENALTY}" in candidate.case.mined.evidence
