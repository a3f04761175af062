"""Whether a built environment or its workspace overlay holds files of the project itself, which make the cache
entry serve its own base tree alone.

The cache shares an entry between every base of a key, which is right for what setup installs from an index or
lock file, and wrong for a copy of the project: another base's copy may be a later commit holding this case's fix.
The project's files are: in the overlay, build output (`build/`, `dist/`), package metadata (`*.egg-info`,
`*.dist-info`) and files compiled from the source; in the environment, a non-editable install of the project (a
module or package of the base tree's top level, or of its `src/`, in a site-packages directory, or a
distribution installed from a local directory that is not editable). An editable install points back to the
workspace and holds no copy: it is shared.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

COMPILED = (".so", ".pyd", ".dll", ".dylib", ".o", ".obj", ".a", ".class")
"""Suffixes of files compiled from the workspace's source."""
BUILD_DIRS = frozenset({"build", "dist"})
"""Directories of build output."""
METADATA = (".egg-info", ".dist-info", ".egg")
"""Suffixes of package metadata directories."""
SOURCE_ROOTS = ("", "src", "lib", "python")
"""Where a project keeps its top-level packages (the workspace's root and the usual source directories)."""
NOT_MODULES = frozenset({"setup", "conftest", "noxfile", "fabfile", "manage", "__init__"})
"""Top-level Python files of a project that are not what it installs."""


def overlay_holds_project(changed: Iterable[str]) -> str | None:
    """The first overlay path that is a file of the project (build output, package metadata, compiled), or
    None; what a package manager installed (`node_modules/`) never is."""
    for path in changed:
        parts = path.split("/")
        if "node_modules" in parts:
            continue
        if parts[0] in BUILD_DIRS or any(part.endswith(METADATA) for part in parts) or path.endswith(COMPILED):
            return path
    return None


def env_holds_project(env_dir: Path | None, workspace: Path) -> str | None:
    """The first path of the environment that is an installed copy of the project in workspace, or None."""
    if env_dir is None or not env_dir.is_dir():
        return None
    names = project_names(workspace)
    for site in site_packages(env_dir):
        with os.scandir(site) as entries:
            for entry in entries:
                stem = entry.name.split(".", 1)[0] if entry.is_file(follow_symlinks=False) else entry.name
                if stem in names and not entry.name.endswith((".pth", ".dist-info", ".egg-info")):
                    return entry.path
                if entry.name.endswith(".dist-info") and _local_copy(Path(entry.path)):
                    return entry.path
    return None


def project_names(workspace: Path) -> frozenset[str]:
    """The importable top-level names the project's source holds: packages (directories with `__init__.py`) and
    modules at its root or in a usual source directory."""
    names = set()
    for root in SOURCE_ROOTS:
        directory = workspace / root if root else workspace
        if not directory.is_dir() or directory.is_symlink():
            continue
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False) and os.path.isfile(os.path.join(entry.path, "__init__.py")):
                    names.add(entry.name)
                elif entry.is_file(follow_symlinks=False) and entry.name.endswith(".py"):
                    names.add(entry.name[:-3])
    return frozenset(names - NOT_MODULES)


def site_packages(env_dir: Path) -> list[Path]:
    """The site-packages directories of an environment (a venv's, a Python 2 user base's)."""
    found = []
    stack = [(env_dir, 0)]
    while stack:
        directory, depth = stack.pop()
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    if not entry.is_dir(follow_symlinks=False):
                        continue
                    if entry.name in ("site-packages", "dist-packages"):
                        found.append(Path(entry.path))
                    elif depth < 4:
                        stack.append((Path(entry.path), depth + 1))
        except OSError:
            continue
    return sorted(found)


def _local_copy(dist_info: Path) -> bool:
    """Whether a distribution was installed from a local directory without being editable (PEP 610)."""
    try:
        data = json.loads((dist_info / "direct_url.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(data, dict) or not str(data.get("url", "")).startswith("file:"):
        return False
    info = data.get("dir_info")
    return isinstance(info, dict) and not info.get("editable", False)
