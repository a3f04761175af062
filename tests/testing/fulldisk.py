"""A small tmpfs mounted inside a test's temp dir and filled to the last byte: a real full disk (needs root)."""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

FILLER = "filler"
"""The file that fills the disk."""
PAGE = 4096


@contextmanager
def full_disk(path: Path, size: str = "256k", free_pages: int = 0) -> Iterator[Path]:
    """Mount a tmpfs of size at path and fill it, leaving free_pages pages; unmount when done."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size},mode=0755", "tmpfs", str(path)], check=True)
    try:
        fill(path, free_pages)
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=True)


def fill(path: Path, free_pages: int = 0) -> None:
    """Write FILLER until the file system is full, then give back free_pages pages."""
    block = b"\0" * PAGE
    fd = os.open(path / FILLER, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        while True:
            try:
                os.write(fd, block)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
                break
        if free_pages:
            os.ftruncate(fd, max(0, os.fstat(fd).st_size - free_pages * PAGE))
    finally:
        os.close(fd)


def contents(path: Path) -> list[str]:
    """Every path under path, relative, sorted (hidden ones included)."""
    return sorted(str(p.relative_to(path)) for p in path.rglob("*"))
