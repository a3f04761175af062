"""Real repositories whose fix changes a test file, and corpora over them, for what verify measures."""

from __future__ import annotations

from pathlib import Path

from corpus import Case, CaseFiles, Corpus, Grader
from corpus.store import Kind
from tests.testing.casefactory import oracle_patch
from tests.testing.gitrepo import git_init

JUNIT = ".hindcast/junit.xml"
PYTEST = f"python -m pytest -q -p no:cacheprovider --junitxml={JUNIT}"
"""The miner's pytest grader form."""
CALC_BUGGY = "def add(a, b):\n    return a - b\n"
CALC_FIXED = "def add(a, b):\n    return a + b\n"
TESTS_V1 = ("from calc import add\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n\n\n"
            "def test_right_zero():\n    assert add(5, 0) == 5\n")
TESTS_V2 = TESTS_V1 + "\n\ndef test_add():\n    assert add(2, 3) == 5\n"
"""At base: test_zero and test_right_zero pass, test_add fails (an assertion)."""
CALC_MUL = CALC_FIXED + "\n\ndef mul(a, b):\n    return a * b\n"
TESTS_MUL = "from calc import add, mul\n\n\ndef test_add():\n    assert add(2, 2) == 4\n\n\ndef test_mul():\n" \
            "    assert mul(2, 3) == 6\n"
"""Imports mul, which the base lacks: the module cannot be collected there."""


def build(tmp_path: Path, *, kind: Kind = "candidates", source: str = CALC_FIXED, tests: str = TESTS_V2,
          extra: dict[str, str] | None = None, command: str | None = None, fail_to_pass: tuple[str, ...] = (),
          case_id: str = "calc-add", base_source: str = CALC_BUGGY) -> tuple[Corpus, Case]:
    """A repo whose fix changes calc.py to source and tests/test_calc.py to tests (plus extra grader files), and a
    corpus at tmp_path/evals with it as a candidate or case graded by the miner's pytest form."""
    repo = git_init(tmp_path / "repo")
    repo.commit({"calc.py": CALC_FIXED, "tests/test_calc.py": TESTS_V1}, "Initial commit")
    base = repo.commit({"calc.py": base_source}, "Refactor add")
    fix = repo.commit({"calc.py": source, "tests/test_calc.py": tests, **(extra or {})}, "Fix add")
    corpus = Corpus.init(tmp_path / "evals", "calc", repo=str(repo.path))
    grader = Grader(command=command or f"{PYTEST} tests/test_calc.py::test_add", junit=JUNIT, timeout=60,
                    fail_to_pass=fail_to_pass or ("tests/test_calc.py::test_add",))
    case = Case(id=case_id, title="add() subtracts", prompt="Adding two numbers gives the wrong answer.\n",
                base_commit=base, fix_commit=fix, grader=grader, owner="ada")
    grader_files = {"tests/test_calc.py": tests.encode(), **{k: v.encode() for k, v in (extra or {}).items()}}
    corpus.write(case, CaseFiles.of(oracle_patch(repo, base, fix, "calc.py"), grader_files), kind)
    return corpus, case
