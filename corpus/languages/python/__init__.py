"""Python: tests found on the file's bytes (finder.py); pytest as the grader, with JUnit and node ids; the
interpreter and install command the base declares (environment.py, releases.py), and the steps its CI runs to
prepare files for the tests (prep.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from corpus.languages.base import (
    BaseFiles,
    Command,
    RepoHints,
    SetupFiles,
    TestRef,
    owns_nothing,
    quote,
    ref_id,
)
from corpus.languages.python.environment import WORKFLOW, WORKFLOWS, choose_python, declared
from corpus.languages.python.finder import tests as tests
from corpus.languages.python.install import (
    DIR_REQUIREMENTS,
    REQUIREMENTS_DIR,
    ROOT_REQUIREMENTS,
    python_command,
)
from corpus.languages.python.prep import MAKEFILE, preparation

if TYPE_CHECKING:
    import datetime

    from corpus.interpreters import Installed

NAME = "python"
SUFFIXES: tuple[str, ...] = (".py",)
TEST_GLOBS: tuple[str, ...] = ("test_*.py", "*_test.py", "conftest.py", "tests.py")
BUILD_GLOBS: tuple[str, ...] = (
    "setup.py", "setup.cfg", "pyproject.toml", "requirements*.txt", "requirements/", "tox.ini", "noxfile.py",
    "MANIFEST.in", ".coveragerc", "pytest.ini", "mypy.ini", ".flake8", ".pylintrc", "ruff.toml", ".ruff.toml",
)
LOCK_FILES: tuple[str, ...] = ("poetry.lock", "Pipfile.lock", "uv.lock", "pdm.lock")
DEPENDENCY_GLOBS: tuple[str, ...] = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "requirements*.txt",
                                     "requirements/", "Pipfile", *LOCK_FILES)
GRADER_FILES: tuple[str, ...] = ()
SETUP_FILES = SetupFiles(
    read=("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", MAKEFILE),
    present=("requirements.txt",),
    read_matching=ROOT_REQUIREMENTS.pattern,
    directories=((WORKFLOWS, WORKFLOW.pattern), (REQUIREMENTS_DIR, DIR_REQUIREMENTS.pattern)),
)
JUNIT_PATH = ".hindcast/junit.xml"
owns = owns_nothing


def _is_test_module(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test") or name.endswith("_test.py"))


def _is_helper(path: str) -> bool:
    """A Python file of the tests that is no test module and no conftest: a helpers module, a mixin in a
    package's __init__.py; pytest collects nothing from it, the test modules that import it run its code."""
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and not _is_test_module(path) and name != "conftest.py"


WORD_END = "([^[:alnum:]_]|$)"


def _users(helper: str, hints: RepoHints) -> list[str]:
    """The test modules of the fix revision that import helper (by its module's name, or `from PKG import` /
    `from . import` for a package's __init__.py)."""
    parts = helper[:-3].split("/")
    package = parts[-1] == "__init__"
    if package:
        parts = parts[:-1]
    if not parts:
        return []
    leaf = parts[-1]
    found = set(hints.grep(f"^[[:space:]]*(from[[:space:]]+([[:alnum:]_.]*\\.)?{leaf}[[:space:]]+import|import"
                           f"[[:space:]]+([[:alnum:]_.]*\\.)?{leaf}([[:space:],]|$)|from[[:space:]]+[[:alnum:]_.]+"
                           f"[[:space:]]+import[[:space:]]+(.*[^[:alnum:]_])?{leaf}{WORD_END})"))
    if package:
        inside = "/".join(parts) + "/"
        found |= {p for p in hints.grep("^[[:space:]]*from[[:space:]]+\\.[[:space:]]+import") if p.startswith(inside)}
    return sorted(p for p in found if _is_test_module(p))


def command(files: list[str], refs: list[TestRef], hints: RepoHints) -> Command:
    """pytest over the node ids of the tests changed and the other test modules, and the test modules that
    import a changed helper module (the tests a mixin or a helper's change reaches); the directories of the
    files when there are none of these."""
    refs = [ref for ref in refs if not _is_helper(ref.path)]  # a helper's tests run in the modules using it
    ids = sorted({ref_id(ref) for ref in refs})
    covered = {ref.path for ref in refs}
    targets = ids + sorted(p for p in files if p not in covered and _is_test_module(p))
    users = {user for helper in files if _is_helper(helper) for user in _users(helper, hints)}
    targets += sorted(users - covered - set(targets))
    if not targets:
        targets = sorted({p.rsplit("/", 1)[0] + "/" if "/" in p else "." for p in files})
    line = f"python -m pytest -q -p no:cacheprovider --junitxml={JUNIT_PATH} {' '.join(map(quote, targets))}"
    return Command(line, tuple(ids), JUNIT_PATH)


def interpreter(files: BaseFiles, installed: Installed, committed: datetime.date | None) -> tuple[str | None, str]:
    """The newest installed interpreter the base declares support for (of the fix's date when it declares
    none), and why."""
    return choose_python(declared(files), installed, committed)


def setup(files: BaseFiles, python: str | None) -> tuple[str | None, tuple[str, ...]]:
    """The install of the base and its test dependencies into the case's interpreter, then the steps its CI
    runs to prepare files for the tests (prep.py)."""
    command, why = python_command(files, python)
    steps = preparation(files)
    return " && ".join([command, *(step.command for step in steps)]), (why, *(step.origin for step in steps))
