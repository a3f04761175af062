"""A Python project that declares no version gets the newest CPython released before its fix was committed."""

from __future__ import annotations

import datetime
import subprocess
from pathlib import Path

import pytest

from corpus.interpreters import Installed
from corpus.languages.python.releases import RELEASED, python_of_date
from tests.testing.envrepos import PY_FIXED, PY_TEST_FIXED, candidate_of, fake_pythons
from tests.testing.gitrepo import GitRepo, git_env, git_init
from tests.testing.minerrepos import SRC, TEST

PYPROJECT = '[build-system]\nrequires = ["setuptools"]\n\n[project]\nname = "app"\nversion = "1"\n'


def commit_at(repo: GitRepo, files: dict[str, str], message: str, committed: str, authored: str) -> str:
    """Commit files with the committer date and author date given (ISO 8601)."""
    repo.write(files)
    env = {**git_env(), "GIT_COMMITTER_DATE": committed, "GIT_AUTHOR_DATE": authored}
    for args in (["add", "-A"], ["commit", "-q", "-m", message]):
        subprocess.run(["git", *args], cwd=repo.path, env=env, check=True, capture_output=True)
    return repo.head()


def fix_committed(tmp_path: Path, committed: str, files: dict[str, str] | None = None,
                  authored: str | None = None) -> tuple[GitRepo, str]:
    """A project with files at its base and a fix committed on that date (written years before)."""
    repo = git_init(tmp_path / "repo")
    commit_at(repo, {"pyproject.toml": PYPROJECT, **(files or {}), "app/__init__.py": SRC, "tests/test_app.py": TEST},
              "Start", "2015-01-01T12:00:00+00:00", "2015-01-01T12:00:00+00:00")
    fix = commit_at(repo, {"app/__init__.py": PY_FIXED, "tests/test_app.py": PY_TEST_FIXED}, "Fix f",
                    committed, authored or "2016-01-01T12:00:00+00:00")
    return repo, fix


@pytest.fixture
def pythons(tmp_path: Path) -> Installed:
    """3.7, 3.9, 3.11 and 3.13 'installed' (3.8, 3.10 and 3.12 are not), nothing of the machine's."""
    return fake_pythons(tmp_path / "pyenv", "3.7.17", "3.9.18", "3.11.7", "3.13.0")


@pytest.mark.parametrize(("committed", "python", "install"), [
    ("2019-06-01T12:00:00+00:00", "3.7", "python -m pip install"),  # 3.8 came out in October 2019
    ("2022-06-01T12:00:00+00:00", "3.9", "uv pip install"),  # 3.10 was out, but is not installed
    ("2025-06-01T12:00:00+00:00", "3.13", "uv pip install"),  # 3.14 came out in October 2025
])
def test_the_python_of_a_project_that_declares_none_is_that_of_its_fix_s_date(
        tmp_path: Path, pythons: Installed, committed: str, python: str, install: str) -> None:
    repo, fix = fix_committed(tmp_path, committed)
    candidate = candidate_of(repo, fix, pythons)
    assert candidate.case.setup.python == python
    assert candidate.case.mined is not None
    assert candidate.case.mined.setup_origin[0] == f"python {python}: from the commit date ({committed[:10]})"
    assert candidate.case.setup.command == f"{install} -e . pytest"  # made for the interpreter chosen


def test_the_commit_date_counts_not_the_author_date(tmp_path: Path, pythons: Installed) -> None:
    repo, fix = fix_committed(tmp_path, "2025-06-01T12:00:00+00:00", authored="2019-06-01T12:00:00+00:00")
    assert candidate_of(repo, fix, pythons).case.setup.python == "3.13"


def test_the_day_is_the_commit_s_in_utc(tmp_path: Path, pythons: Installed) -> None:
    # 3.13.0 came out on 2024-10-07: a commit made on the evening of the 7th west of Greenwich is of the 8th.
    repo, fix = fix_committed(tmp_path, "2024-10-07T22:00:00-06:00")
    candidate = candidate_of(repo, fix, pythons)
    assert candidate.case.setup.python == "3.13"
    assert candidate.case.mined is not None
    assert candidate.case.mined.setup_origin[0] == "python 3.13: from the commit date (2024-10-08)"


def test_a_declared_version_wins_over_the_date(tmp_path: Path, pythons: Installed) -> None:
    declared = PYPROJECT + 'requires-python = ">=3.11"\n'
    repo, fix = fix_committed(tmp_path, "2019-06-01T12:00:00+00:00", {"pyproject.toml": declared})
    candidate = candidate_of(repo, fix, pythons)
    assert candidate.case.setup.python == "3.13"
    assert candidate.case.mined is not None
    assert candidate.case.mined.setup_origin[0] == ('python 3.13: newest installed within requires-python ">=3.11" '
                                                    "(pyproject.toml)")


def test_with_nothing_released_by_then_installed_the_nearest_above_is_chosen(tmp_path: Path) -> None:
    repo, fix = fix_committed(tmp_path, "2019-06-01T12:00:00+00:00")
    candidate = candidate_of(repo, fix, fake_pythons(tmp_path / "pyenv", "3.11.7", "3.13.0"))
    assert candidate.case.setup.python == "3.11"
    assert candidate.case.mined is not None
    assert candidate.case.mined.setup_origin[0] == ("python 3.11: from the commit date (2019-06-01); 3.7, the newest "
                                                    "released by then, is not installed: the nearest above it")


def test_nothing_installed_still_says_so(tmp_path: Path) -> None:
    repo, fix = fix_committed(tmp_path, "2019-06-01T12:00:00+00:00")
    candidate = candidate_of(repo, fix, ())
    assert candidate.case.setup.python is None
    assert candidate.case.mined is not None
    assert candidate.case.mined.setup_origin[0] == ("python: none; the project declares no version and no "
                                                    "interpreter is installed")


def installed(*versions: tuple[int, int]) -> Installed:
    return tuple((version, Path(f"/opt/python{version[0]}.{version[1]}")) for version in sorted(versions, reverse=True))


@pytest.mark.parametrize(("day", "versions", "chosen"), [
    (datetime.date(2019, 10, 14), [(3, 7), (3, 8)], "3.7"),  # released that day: not before it
    (datetime.date(2019, 10, 15), [(3, 7), (3, 8)], "3.8"),
    (datetime.date(2030, 1, 1), [(3, 12), (3, 99)], "3.12"),  # a version the table does not know is not chosen
    (datetime.date(2016, 1, 1), [(2, 7), (3, 99)], "3.99"),  # ... unless it is the nearest above
    (datetime.date(2019, 1, 1), [(2, 7)], "2.7"),  # nothing released by then or newer: the newest
    (datetime.date(2005, 1, 1), [(3, 4), (3, 12)], "3.4"),  # before Python 3: the oldest Python 3
])
def test_the_choice_by_date(day: datetime.date, versions: list[tuple[int, int]], chosen: str) -> None:
    found = python_of_date(day, installed(*versions))
    assert found is not None and found[0] == chosen
    assert found[1].startswith(f"python {chosen}: from the commit date ({day.isoformat()})")


def test_the_release_table_is_in_order() -> None:
    versions = list(RELEASED)
    assert versions == sorted(versions) and [RELEASED[v] for v in versions] == sorted(RELEASED.values())
    assert python_of_date(datetime.date(2020, 1, 1), ()) is None
