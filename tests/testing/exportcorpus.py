"""A corpus for the case exports: the calc repository with a fix that also deletes a test file, one case graded by
JUnit fail-to-pass ids (with setup and behaviour fields a target may not carry) and one graded by exit code."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from corpus import Case, CaseFiles, Corpus, Grader, Setup
from tests.testing.casefactory import (
    CALC_BUGGY,
    CALC_FIXED,
    PYTEST,
    TEST_V1,
    TEST_V2,
    make_case,
    oracle_patch,
)
from tests.testing.gitrepo import GitRepo, git_init

OLD_TEST = "def test_old():\n    assert True\n"
JUNIT = ".hindcast/junit.xml"


@dataclass(frozen=True)
class ExportCorpus:
    """The corpus, its repository and its two cases."""

    corpus: Corpus
    repo: GitRepo
    base: str
    fix: str
    ids_case: Case
    exit_case: Case


def build_export_corpus(tmp_path: Path) -> ExportCorpus:
    """calc-ids (JUnit ids, deletes test_old.py, setup.python 3.11, max_turns) and calc-exit (exit code only)."""
    repo = git_init(tmp_path / "repo")
    repo.commit({"calc.py": CALC_FIXED, "test_calc.py": TEST_V1, "test_old.py": OLD_TEST, "README.md": "calc\n"},
                "Initial commit")
    base = repo.commit({"calc.py": CALC_BUGGY}, "Refactor add")
    fix = repo.commit({"calc.py": CALC_FIXED, "test_calc.py": TEST_V2, "test_old.py": None},
                      "Fix add returning the difference")
    repo.commit({"README.md": "calc, later\n"}, "Docs after the fix")
    corpus = Corpus.init(tmp_path / "evals", "calc", repo="../repo")
    patch = oracle_patch(repo, base, fix, "calc.py")
    grader = Grader(command=f"{PYTEST} --junitxml={JUNIT} test_calc.py", timeout=120, junit=JUNIT,
                    fail_to_pass=("test_calc.py::test_add",), pass_to_pass=("test_calc.py::test_zero",),
                    deleted=("test_old.py",))
    ids_case = make_case(base, fix, id="calc-ids", grader=grader, setup=Setup(command="true", python="3.11"),
                         max_turns=5)
    exit_case = make_case(base, fix, id="calc-exit")
    corpus.write(ids_case, CaseFiles.of(patch, {"test_calc.py": TEST_V2.encode()}))
    corpus.write(exit_case, CaseFiles.of(patch, {"test_calc.py": TEST_V2.encode()}))
    return ExportCorpus(corpus, repo, base, fix, ids_case, exit_case)


def clone_at(repo: GitRepo, commit: str, dest: Path) -> Path:
    """A full clone of repo checked out (detached) at commit."""
    subprocess.run(["git", "clone", "-q", str(repo.path), str(dest)], check=True, capture_output=True)
    subprocess.run(["git", "checkout", "-q", "--detach", commit], cwd=dest, check=True, capture_output=True)
    return dest
