"""SZZ on candidates: the commit that introduced the lines a fix changed, and how long the bug escaped."""

from __future__ import annotations

from pathlib import Path

from miner.scan import ScanOptions, scan
from tests.testing.gitrepo import git_init

TEST = "from app.calc import half\n\n\ndef test_half():\n    assert half(4) == 2\n"


def test_szz_finds_the_introducing_commit_and_escape_window(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"app/calc.py": "def half(x):\n    return x / 2\n", "tests/test_calc.py": TEST}, "Initial")
    introducing = repo.commit({"app/calc.py": "def half(x):\n    return x // 3\n"}, "Speed up half", days=4)
    fix = repo.commit({"app/calc.py": "def half(x):\n    return x // 2\n",
                       "tests/test_calc.py": TEST + "\n\ndef test_half_of_six():\n    assert half(6) == 3\n"},
                      "Fix half of six", days=10)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals", szz=True))
    [candidate] = result.candidates
    assert candidate.case.fix_commit == fix
    assert candidate.case.mined.introducing_commits == (introducing,)
    assert candidate.case.mined.escape_days == 10.0


def test_szz_is_off_by_default(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"app/calc.py": "def half(x):\n    return x / 3\n", "tests/test_calc.py": TEST}, "Initial")
    repo.commit({"app/calc.py": "def half(x):\n    return x / 2\n",
                 "tests/test_calc.py": TEST + "\n\ndef test_six():\n    assert half(6) == 3\n"}, "Fix half")
    [candidate] = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals")).candidates
    assert candidate.case.mined.introducing_commits == ()
    assert candidate.case.mined.escape_days is None
