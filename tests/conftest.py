from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.gitrepo import GitRepo, git_init
from tests.testing.isolation import isolate


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing a test runs may read or write the real home directory, the user's git config or the shared
    temp dir: HOME and TMPDIR are the test's own."""
    isolate(monkeypatch, tmp_path_factory.mktemp("home"), tmp_path_factory.mktemp("tmp"))


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    """An empty git repository in the test's temp dir."""
    return git_init(tmp_path / "repo")
