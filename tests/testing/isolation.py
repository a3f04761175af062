"""HOME, the user's git config and the temp dir pointed at a test's own directories, and a project's Python first
on PATH."""

from __future__ import annotations

import os
import shutil
import tempfile
import venv
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

PROJECT_PYTHON_NEEDS = ("pytest",)
"""What the `python` of a test's commands (graders and scripted agents of cases without an environment of their
own) has besides the standard library."""

PROJECT_BIN: list[Path] = []
"""The session's `project_python` (set once per test process by the root conftest)."""


def project_python(root: Path) -> Path:
    """The bin directory of an environment in root that holds pytest and what it needs, and nothing else.

    Commands the tests run find `python` on PATH. Without this that is the test suite's own environment, whose
    pytest plugins (Textual's snapshots, syrupy, anyio, xdist) load in every grader run and take a second of
    each; a project's environment has its own, usually few. The packages are hard-linked from this
    interpreter's site-packages (their compiled bytecode included): no download, a tenth of a second."""
    target = root / "project-python"
    venv.EnvBuilder(symlinks=True, with_pip=False).create(target)
    (site,) = (target / "lib").glob("python*/site-packages")
    for name in sorted(_closure(PROJECT_PYTHON_NEEDS)):
        dist = metadata.distribution(name)
        for top in sorted({Path(str(f)).parts[0] for f in dist.files or () if not str(f).startswith("..")}):
            source, target = Path(str(dist.locate_file(top))), site / top
            if target.exists():
                continue
            if source.is_dir():
                shutil.copytree(source, target, copy_function=_link)
            elif source.is_file():
                _link(str(source), str(target))
    return target / "bin"


def _link(source: str, target: str) -> None:
    """A hard link where the file system allows one, else a copy: a sandbox shows the environment's own
    directories, so a symbolic link out of it would not resolve inside."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _closure(names: tuple[str, ...]) -> set[str]:
    """The distributions names need on this interpreter, themselves included."""
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for line in metadata.requires(name) or ():
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return seen


def isolate(patch: pytest.MonkeyPatch, home: Path, temp: Path) -> None:
    """Nothing run under patch reads or writes the real home directory, the user's git config or the shared temp
    dir: HOME is home and TMPDIR temp. The session's `project_python` comes first on PATH."""
    for project in PROJECT_BIN:
        patch.setenv("PATH", f"{project}{os.pathsep}{os.environ.get('PATH', os.defpath)}")
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
