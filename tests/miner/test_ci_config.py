"""A fix that also edits the CI service's configuration: the configuration is no part of the oracle, since no
grader runs it and an agent that fixes the bug alone must match the oracle's files."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.classify import PathClassifier
from miner.scan import ScanOptions, scan
from tests.testing.gitrepo import git_init
from tests.testing.minerrepos import CART, CART_FIXED, CART_TEST, CART_TEST_FIXED

TRAVIS = "language: python\ndist: xenial\n"
WORKFLOW = "on: push\njobs:\n  test:\n    runs-on: ubuntu-20.04\n"


def test_ci_configuration_changed_by_a_fix_is_left_out_of_the_oracle(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"shop/__init__.py": "", "shop/cart.py": CART, "tests/test_cart.py": CART_TEST,
                 ".travis.yml": TRAVIS, ".github/workflows/test.yml": WORKFLOW, "tox.ini": "[tox]\n"}, "Start")
    fix = repo.commit({"shop/cart.py": CART_FIXED, "tests/test_cart.py": CART_TEST_FIXED,
                       ".travis.yml": "language: python\n",
                       ".github/workflows/test.yml": WORKFLOW.replace("20.04", "22.04"),
                       "tox.ini": "[tox]\nenvlist = py311\n"},
                      "Fix rounding of totals and the CI jobs")
    [candidate] = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals", write=False)).candidates
    assert candidate.case.fix_commit == fix
    assert candidate.case.mined is not None
    assert candidate.case.mined.omitted_files == (".github/workflows/test.yml", ".travis.yml")
    assert candidate.case.mined.source_files == ("shop/cart.py", "tox.ini")
    assert candidate.case.allowed_paths == ("shop/", "tox.ini")
    oracle = candidate.files.oracle_patch.decode()
    assert "a/shop/cart.py" in oracle and "a/tox.ini" in oracle
    assert ".travis.yml" not in oracle and ".github/" not in oracle


@pytest.mark.parametrize("path", [".travis.yml", ".github/workflows/ci.yml", ".github/dependabot.yml",
                                  ".gitlab-ci.yml", ".circleci/config.yml", "appveyor.yml",
                                  "azure-pipelines.yml", "Jenkinsfile"])
def test_ci_service_files_are_build_files_of_the_ci(path: str) -> None:
    classifier = PathClassifier()
    assert classifier.category(path) == "build"
    assert classifier.is_ci(path)


@pytest.mark.parametrize("path", ["tox.ini", "setup.cfg", "pyproject.toml", "Makefile", "noxfile.py",
                                  "ci/run_tests.py", "src/github/workflows.py"])
def test_what_builds_or_runs_the_tests_is_not_ci_configuration(path: str) -> None:
    assert not PathClassifier().is_ci(path)
