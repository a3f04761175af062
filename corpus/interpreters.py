"""Installed Python interpreters: pyenv's installs, then `pythonX.Y` on PATH (the miner picks one, the runner
runs one)."""

from __future__ import annotations

import contextlib
import os
import pwd
import re
import shutil
from pathlib import Path

from corpus.errors import WorkspaceError

Installed = tuple[tuple[tuple[int, int], Path], ...]
"""((major, minor), interpreter) pairs, newest first, one per minor version."""

PYENV_VERSION = re.compile(r"(\d+)\.(\d+)(\.\d+)?")
"""A pyenv version directory of CPython (3.11 or 3.11.7; not pypy3.9, miniconda3 or 3.13.0t)."""
PATH_NAME = re.compile(r"python(\d+)\.(\d+)")


def pyenv_roots() -> list[Path]:
    """Where pyenv keeps interpreters: $PYENV_ROOT, then the real user's ~/.pyenv (HOME may be isolated)."""
    roots = []
    if os.environ.get("PYENV_ROOT"):
        roots.append(Path(os.environ["PYENV_ROOT"]))
    with contextlib.suppress(KeyError):
        roots.append(Path(pwd.getpwuid(os.getuid()).pw_dir) / ".pyenv")
    roots.append(Path.home() / ".pyenv")
    return roots


def _pyenv_executable(directory: Path, name: str) -> Path | None:
    exe = directory / "bin" / name
    if not exe.exists():
        exe = directory / "bin" / "python"
    return exe if exe.exists() else None


def find_python(version: str) -> Path:
    """The interpreter for a version such as "3.8": pyenv's installs first (its shims refuse unselected
    versions), then `pythonX.Y` on PATH. Raises WorkspaceError naming the version when none exists."""
    if not re.fullmatch(r"\d+(\.\d+)*", version):
        raise WorkspaceError(f"setup.python {version!r}: expected a version such as 3.8")
    name = f"python{version}"
    for root in pyenv_roots():
        versions = root / "versions"
        if not versions.is_dir():
            continue
        for candidate in sorted(versions.iterdir(), reverse=True):
            if candidate.name == version or candidate.name.startswith(version + "."):
                exe = _pyenv_executable(candidate, name)
                if exe is not None:
                    return exe
    found = shutil.which(name)
    if found and "shims" not in Path(found).parts:
        return Path(found)
    raise WorkspaceError(f"setup.python {version}: no {name} interpreter found (pyenv or PATH)")


def installed_pythons(roots: list[Path] | None = None, path: str | None = None) -> Installed:
    """Every CPython minor version `find_python` can find, newest first, with the interpreter it finds.

    roots defaults to `pyenv_roots()`, path to $PATH; a test passes its own of both."""
    found: dict[tuple[int, int], Path] = {}
    for root in pyenv_roots() if roots is None else roots:
        versions = root / "versions"
        if not versions.is_dir():
            continue
        for candidate in sorted(versions.iterdir(), reverse=True):
            match = PYENV_VERSION.fullmatch(candidate.name)
            if match is None:
                continue
            minor = (int(match.group(1)), int(match.group(2)))
            exe = _pyenv_executable(candidate, f"python{minor[0]}.{minor[1]}")
            if minor not in found and exe is not None:
                found[minor] = exe
    for directory in (os.environ.get("PATH", "") if path is None else path).split(os.pathsep):
        if not directory or "shims" in Path(directory).parts or not os.path.isdir(directory):
            continue
        for entry in sorted(os.listdir(directory)):
            match = PATH_NAME.fullmatch(entry)
            exe = Path(directory) / entry
            if match is None or not os.access(exe, os.X_OK):
                continue
            found.setdefault((int(match.group(1)), int(match.group(2))), exe)
    return tuple(sorted(found.items(), reverse=True))
