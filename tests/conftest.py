from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from tests.testing.gitrepo import GitRepo, git_init


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing a test runs may read or write the real home directory, the user's git config or the shared
    temp dir: HOME and TMPDIR are the test's own."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    temp = tmp_path_factory.mktemp("tmp")
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """An empty git repository in the test's temp dir."""
    return git_init(tmp_path / "repo")
