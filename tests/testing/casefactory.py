"""Build a small real repository with a bug and its fix, and a corpus with one case over it."""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path

from corpus import Case, CaseFiles, Corpus, Grader
from tests.testing.gitrepo import GitRepo, git_init

CALC_BUGGY = "def add(a, b):\n    return a - b\n"
CALC_FIXED = "def add(a, b):\n    return a + b\n"
TEST_V1 = "from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
TEST_V2 = TEST_V1 + "\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PYTEST = "python -m pytest -q -p no:cacheprovider"
"""The fixture graders' pytest: the `python` first on PATH, a project's (`isolation.project_python`)."""


def build_repo(path: Path, initial: dict[str, str] | None = None) -> tuple[GitRepo, str, str]:
    """A repo whose commit `fix` fixes add() and adds test_add; returns (repo, base sha, fix sha). initial: more
    files of the first commit (and so of base and fix)."""
    repo = git_init(path)
    repo.commit({"calc.py": CALC_FIXED, "test_calc.py": TEST_V1, "README.md": "calc\n", **(initial or {})},
                "Initial commit")
    base = repo.commit({"calc.py": CALC_BUGGY}, "Refactor add")
    fix = repo.commit({"calc.py": CALC_FIXED, "test_calc.py": TEST_V2}, "Fix add returning the difference")
    repo.commit({"README.md": "calc, later\n"}, "Docs after the fix")
    return repo, base, fix


def oracle_patch(repo: GitRepo, base: str, fix: str, *paths: str) -> bytes:
    """`git diff --binary base fix -- paths` as bytes."""
    return subprocess.run(["git", "diff", "--binary", base, fix, "--", *paths], cwd=repo.path,
                          capture_output=True, check=True).stdout


def make_case(base: str, fix: str, **changes: object) -> Case:
    """The calc case; keyword arguments replace fields."""
    case = Case(id="calc-add", title="add() subtracts", prompt="Adding two numbers gives the wrong answer.\n",
                base_commit=base, fix_commit=fix, grader=Grader(command=f"{PYTEST} test_calc.py", timeout=60),
                owner="ada", trigger_paths=("calc.py",))
    return replace(case, **changes)  # type: ignore[arg-type]


def build_corpus(tmp_path: Path, **changes: object) -> tuple[Corpus, GitRepo, Case]:
    """A repo plus a corpus at tmp_path/evals with the calc case (fields overridable; `initial`: more files of the
    repository's first commit)."""
    repo, base, fix = build_repo(tmp_path / "repo", changes.pop("initial", None))  # type: ignore[arg-type]
    corpus = Corpus.init(tmp_path / "evals", "calc", repo="../repo")
    case = make_case(base, fix, **changes)
    files = CaseFiles.of(oracle_patch(repo, base, fix, "calc.py"), {"test_calc.py": TEST_V2.encode()})
    corpus.write(case, files)
    return corpus, repo, case
