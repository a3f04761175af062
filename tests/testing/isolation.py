"""HOME, the user's git config and the temp dir pointed at a test's own directories."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def isolate(patch: pytest.MonkeyPatch, home: Path, temp: Path) -> None:
    """Nothing run under patch reads or writes the real home directory, the user's git config or the shared temp
    dir: HOME is home and TMPDIR temp."""
    patch.setenv("HOME", str(home))
    patch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    patch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    patch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    patch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    patch.setenv("TMPDIR", str(temp))
    patch.setattr(tempfile, "tempdir", str(temp))


@contextmanager
def isolated(root: Path) -> Iterator[None]:
    """A module fixture's isolation, as the per-test one: root/home and root/tmp while the block runs."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("home", "tmp"):
            (root / name).mkdir()
        isolate(patch, root / "home", root / "tmp")
        yield
