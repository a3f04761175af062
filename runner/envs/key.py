"""The key of a cached environment: the interpreter, the setup command, and the base's dependency files."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from corpus.errors import WorkspaceError
from corpus.gitutil import run_git
from corpus.interpreters import find_python
from corpus.languages import dependency_globs
from corpus.model import Case
from corpus.testfiles import glob_matcher
from runner.envs.resolution import Resolution

KEY_FORMAT = 4
"""Bumped when what goes into a key (or what an entry holds) changes: old entries are then never matched (3: an
entry holding files of the project records its base tree; 4: the resolution, dated or today's, and the resolved
set)."""


def is_dependency_file(path: str) -> bool:
    """Whether a repository path is one of the files whose content decides what setup installs (a registered
    language's DEPENDENCY_GLOBS; the registry is read at the call)."""
    return _matcher(dependency_globs())(path)


@lru_cache(maxsize=8)
def _matcher(globs: tuple[str, ...]) -> Callable[[str], bool]:
    return glob_matcher(globs)


@dataclass(frozen=True)
class EnvKey:
    """What decides an environment: equal keys share one cache entry, across cases and trials."""

    python: str | None
    """setup.python as the case asks for it."""
    interpreter: dict[str, Any] | None
    """The interpreter found for it: resolved path, sys.version, size and mtime of the binary."""
    command: str | None
    """setup.command."""
    dependencies: str
    """sha256 over the dependency files' paths and blob ids at the base commit."""
    dependency_files: tuple[str, ...]
    """Those paths."""
    base_tree: str
    """The base commit's tree: part of the digest only when pinned."""
    pinned: bool = False
    """The key of an entry that holds files of the project (`runner.envs.project`): its digest names the base
    tree, so the entry serves that tree alone."""
    as_of: str | None = None
    """The date setup resolves as of (`runner.envs.resolution`); None: today's. Left out with the dependency files:
    a dated resolved set covers what the date decides (the set and the build tools' dated versions)."""
    resolved: str | None = None
    """The digest of the resolved set, when setup's installs resolved before it ran."""
    by_resolution: bool = False
    """Setup only installs what resolved: the resolved set stands for the dependency files, which are left out
    of the digest, so bases whose files differ but resolve alike share the entry."""

    @property
    def digest(self) -> str:
        """The entry's name: a hash of every part but the base tree, and of the base tree too when pinned."""
        text = json.dumps({"format": KEY_FORMAT, **self.parts()}, sort_keys=True, default=list)
        return hashlib.sha256(text.encode()).hexdigest()[:24]

    def parts(self) -> dict[str, Any]:
        """The key as entry.json records it (the base tree only when pinned)."""
        left_out = {"by_resolution", *(() if self.pinned else ("base_tree", "pinned")),
                    *(("dependencies", "dependency_files", "as_of") if self.by_resolution else ())}
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(self).items() if k not in left_out}

    def pin(self) -> EnvKey:
        """This key with the base tree in its digest."""
        return replace(self, pinned=True)


def env_key(case: Case, repo: Path, resolution: Resolution | None = None) -> EnvKey:
    """The key of a case's environment, with setup's resolution when it was decided; WorkspaceError when its
    interpreter is missing, GitError on git failure."""
    interpreter = interpreter_identity(case.setup.python) if case.setup.python else None
    digest, files, tree = dependency_digest(repo, case.base_commit)
    key = EnvKey(case.setup.python, interpreter, case.setup.command, digest, files, tree)
    if resolution is None:
        return key
    return replace(key, as_of=resolution.as_of, resolved=resolution.resolved,
                   by_resolution=resolution.only and resolution.resolved is not None)


@lru_cache(maxsize=256)
def dependency_digest(repo: Path, commit: str) -> tuple[str, tuple[str, ...], str]:
    """The dependency files of a commit read from git (blob ids, no work tree): (digest, paths, tree sha)."""
    tree = run_git(["rev-parse", f"{commit}^{{tree}}"], repo).stdout.decode().strip()
    out = run_git(["ls-tree", "-r", "-z", "--full-tree", tree], repo).stdout
    found = []
    for record in out.split(b"\0"):
        meta, _, name = record.partition(b"\t")
        path = name.decode("utf-8", "surrogateescape")
        if path and is_dependency_file(path):
            mode, _, blob = meta.decode().split(" ")
            found.append((path, mode, blob))
    found.sort()
    text = "".join(f"{path}\0{mode}\0{blob}\n" for path, mode, blob in found)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest(), tuple(p for p, _, _ in found), tree


@lru_cache(maxsize=64)
def interpreter_identity(version: str) -> dict[str, Any]:
    """The interpreter of setup.python as a key part: a reinstalled or upgraded one makes a new key."""
    python = Path(os.path.realpath(find_python(version)))
    try:
        proc = subprocess.run([str(python), "-c", "import sys; print(sys.version)"], capture_output=True,
                              timeout=60, check=False)
        st = python.stat()
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise WorkspaceError(f"setup.python {version}: cannot run {python}: {exc}") from None
    if proc.returncode != 0:
        raise WorkspaceError(f"setup.python {version}: {python} exited {proc.returncode}")
    return {"path": str(python), "version": proc.stdout.decode("utf-8", "replace").strip() or
            proc.stderr.decode("utf-8", "replace").strip(), "size": st.st_size, "mtime_ns": st.st_mtime_ns}
