"""A fix whose test change is only in a shared helper (a mixin in tests/__init__.py, a helpers module) is graded
by the test modules that import it, and verify proves it; a helper changed beside a test module adds its users."""

from __future__ import annotations

from pathlib import Path

from corpus import Corpus
from miner.scan import ScanOptions, scan
from runner.settings import Settings
from runner.verify.verify import VerifyOptions, verify
from tests.testing.gitrepo import GitRepo, git_init

PYTEST = "python -m pytest -q -p no:cacheprovider --junitxml=.hindcast/junit.xml"
MIXIN_V1 = "class CalcChecks:\n    def test_zero(self):\n        assert self.add(0, 0) == 0\n"
MIXIN_V2 = MIXIN_V1 + "\n    def test_sum(self):\n        assert self.add(2, 3) == 5\n"
USES_MIXIN = ("from calc import add\nfrom tests import CalcChecks\n\n\nclass TestCalc(CalcChecks):\n"
              "    add = staticmethod(add)\n")
HELPERS_V1 = "def pair():\n    return (1, 1)\n"
HELPERS_V2 = "def pair():\n    return (2, 3)\n"
USES_HELPERS = ("from calc import add\nfrom tests.helpers import pair\n\n\ndef test_pair():\n"
                "    a, b = pair()\n    assert add(a, b) == a + b\n")
UNRELATED = "def test_nothing():\n    assert True\n"


def _repo(tmp_path: Path) -> GitRepo:
    repo = git_init(tmp_path / "repo")
    repo.commit({"calc.py": "def add(a, b):\n    return a + b\n", "tests/__init__.py": MIXIN_V1,
                 "tests/helpers.py": HELPERS_V1, "tests/test_mixin_users.py": USES_MIXIN,
                 "tests/test_helper_users.py": USES_HELPERS, "tests/test_other.py": UNRELATED,
                 "pyproject.toml": "[project]\nname = 'calc'\nversion = '0'\n"}, "Start")
    repo.commit({"calc.py": "def add(a, b):\n    return a - b if b > 2 else a + b\n"}, "Speed up add")
    return repo


def test_a_mixin_only_change_is_graded_by_the_modules_using_it_and_proven(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    repo.commit({"calc.py": "def add(a, b):\n    return a + b\n", "tests/__init__.py": MIXIN_V2},
                "Fix add for large numbers")
    [candidate] = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals")).candidates
    assert candidate.case.grader.command == f"{PYTEST} tests/test_mixin_users.py"
    corpus = Corpus.open(tmp_path / "evals")
    [verdict] = verify(corpus, VerifyOptions(kind="candidates", all_cases=True,
                                             settings=Settings(sandbox="none"))).verdicts
    assert verdict.verdict == "VALID", verdict.reason
    assert verdict.measured is not None
    assert verdict.measured.fail_to_pass == ("tests/test_mixin_users.py::TestCalc::test_sum",)


def test_a_helper_changed_beside_a_test_module_adds_the_helper_s_users(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    repo.commit({"calc.py": "def add(a, b):\n    return a + b\n", "tests/helpers.py": HELPERS_V2,
                 "tests/test_other.py": UNRELATED + "\n\ndef test_more():\n    assert True\n"},
                "Fix add for large numbers")
    [candidate] = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals")).candidates
    assert candidate.case.grader.command == (f"{PYTEST} tests/test_other.py::test_more "
                                             f"tests/test_helper_users.py")
