from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.agents.harness import project
from tests.agents.install import PINNED, cache_dir, ensure
from tests.testing.gitrepo import GitRepo

ENVIRON = dict(os.environ)
"""The environment the suite started with, read at collection: the per-test isolation moves HOME and
XDG_CACHE_HOME into temp dirs, and the agent cache is named by the real ones."""
CACHE = cache_dir(ENVIRON)


@pytest.fixture(scope="session")
def agent_bin() -> Callable[[str], Path]:
    """A CLI's executable by name, installed into the agent cache on first use (slow once, then a stamp read)."""
    def get(name: str) -> Path:
        return ensure(PINNED[name], CACHE, ENVIRON)
    return get


@pytest.fixture
def workspace(tmp_path: Path) -> GitRepo:
    """The buggy project, a git repository in the test's temp dir."""
    return project(tmp_path / "work")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The CLI's own home directory in the test's temp dir."""
    path = tmp_path / "home"
    path.mkdir()
    return path
