"""Atomic file and directory writes: a reader never sees a half-written file."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

# Read once, at import, before any thread runs: os.umask can only be read by setting it.
_UMASK = os.umask(0o022)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK
"""Mode of a published file: what open() would have given it (mkstemp alone gives 0600)."""
DIR_MODE = 0o777 & ~_UMASK
"""Mode of a published directory: what mkdir would have given it (mkdtemp alone gives 0700)."""


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write data to path through a temp file in the same directory and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_text(path: Path, text: str) -> None:
    """Write UTF-8 text atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def replace_directory(staged: Path, target: Path) -> None:
    """Move a fully written staged directory into place, replacing target if it exists."""
    if target.exists():
        trash = target.with_name(f".{target.name}.old")
        if trash.exists():
            shutil.rmtree(trash)
        os.replace(target, trash)
        os.replace(staged, target)
        shutil.rmtree(trash)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)


def staging_directory(parent: Path, name: str) -> Path:
    """A fresh empty temp directory beside the final one, so the rename stays on one filesystem."""
    parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".staging", dir=parent))
    staged.chmod(DIR_MODE)
    return staged
