"""A workspace overlay: what setup created, changed or removed in a workspace, kept apart and copied into others.

Setup leaves files in the workspace as well as in its environment: package metadata of an editable install
(`*.egg-info`), extensions compiled in place, `node_modules`. The overlay is those files, found by comparing
every path's lstat before and after setup (mode, size, mtime, ctime, inode: a rewrite or a replacement changes
one of them), stored as a tree of copies plus the list of removed paths. Applying it copies the files (never
links them), so nothing a trial does to its workspace reaches the stored overlay.
"""

from __future__ import annotations

import os
import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

Stat = tuple[int, int, int, int, int]
"""An lstat's mode, size, mtime_ns, ctime_ns and inode."""


@dataclass(frozen=True)
class Overlay:
    """What setup did to a workspace."""

    changed: tuple[str, ...]
    """Paths (files, links, directories) created or changed, relative to the workspace, parents first."""
    removed: tuple[str, ...]
    """Paths that setup removed (a removed directory's contents are not listed)."""
    containers: tuple[str, ...] = ()
    """Directories stored only to hold a changed path; their own metadata is not the overlay's."""

    def to_json(self) -> dict[str, list[str]]:
        """The overlay as entry.json keeps it."""
        return {"changed": list(self.changed), "removed": list(self.removed), "containers": list(self.containers)}

    @staticmethod
    def from_json(data: dict[str, list[str]]) -> Overlay:
        """An overlay read back from entry.json."""
        return Overlay(tuple(data.get("changed", ())), tuple(data.get("removed", ())),
                       tuple(data.get("containers", ())))


def scan(workspace: Path) -> dict[str, Stat]:
    """Every path under workspace (links not followed) with its lstat facts."""
    found: dict[str, Stat] = {}
    stack = [workspace]
    while stack:
        directory = stack.pop()
        with os.scandir(directory) as entries:
            for entry in entries:
                st = entry.stat(follow_symlinks=False)
                found[os.path.relpath(entry.path, workspace)] = (st.st_mode, st.st_size, st.st_mtime_ns,
                                                                 st.st_ctime_ns, st.st_ino)
                if stat.S_ISDIR(st.st_mode):
                    stack.append(Path(entry.path))
    return found


def capture(workspace: Path, before: dict[str, Stat], dest: Path) -> Overlay:
    """Copy what changed in workspace since `before` (a `scan`) into dest (new) and describe it."""
    after = scan(workspace)
    changed = sorted(p for p, st in after.items() if before.get(p) != st and _kept(st[0]))
    gone = sorted(p for p in before if p not in after)
    removed = [p for p in gone if not any(parent in before and parent not in after for parent in _parents(p))]
    dest.mkdir(parents=True)
    containers = set()
    for rel in changed:
        source, target = workspace / rel, dest / rel
        for parent in _parents(rel):
            if not (dest / parent).is_dir():
                (dest / parent).mkdir()
                containers.add(parent)
        mode = after[rel][0]
        if stat.S_ISDIR(mode):
            target.mkdir(exist_ok=True)
            containers.discard(rel)
        elif stat.S_ISLNK(mode):
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    _copy_dir_stats(workspace, dest, [p for p in changed if stat.S_ISDIR(after[p][0])])
    return Overlay(tuple(changed), tuple(removed), tuple(sorted(containers)))


def apply(overlay: Overlay, stored: Path, workspace: Path) -> None:
    """Make workspace (a copy of the pristine base) what setup left: removals first, then copies of the files."""
    for rel in overlay.removed:
        _remove(workspace / rel)
    containers = set(overlay.containers)
    dirs = []
    for rel in [*overlay.containers, *overlay.changed]:
        source, target = stored / rel, workspace / rel
        if source.is_dir() and not source.is_symlink():
            if os.path.lexists(target) and not (target.is_dir() and not target.is_symlink()):
                _remove(target)
            target.mkdir(exist_ok=True)
            if rel not in containers:
                dirs.append(rel)
            continue
        _remove(target)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)
    _copy_dir_stats(stored, workspace, dirs)


def _kept(mode: int) -> bool:
    """Files, links and directories: fifos, sockets and devices setup left are not carried over."""
    return stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISLNK(mode)


def _parents(rel: str) -> list[str]:
    parts = rel.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def _copy_dir_stats(source: Path, dest: Path, dirs: list[str]) -> None:
    """Directories' modes and times last, deepest first (writing into a directory changes its mtime)."""
    for rel in sorted(dirs, key=lambda p: p.count("/"), reverse=True):
        shutil.copystat(source / rel, dest / rel, follow_symlinks=False)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif os.path.lexists(path):
        path.unlink()
