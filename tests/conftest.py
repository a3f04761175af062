from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.gitrepo import GitRepo, git_init
from tests.testing.isolation import PROJECT_BIN, isolate, project_python


@pytest.fixture(scope="session", autouse=True)
def _project_python(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Commands the tests run find a project's Python on PATH: pytest without the suite's own plugins."""
    PROJECT_BIN[:] = [project_python(tmp_path_factory.getbasetemp())]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing a test runs may read or write the real home directory, the user's git config or the shared
    temp dir: HOME and TMPDIR are the test's own."""
    isolate(monkeypatch, tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("tmp"))


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """An empty git repository in the test's temp dir."""
    return git_init(tmp_path / "repo")
