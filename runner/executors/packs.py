"""A case's commits as one git pack, built on the driver and turned back into a repository on a worker.

The pack holds the base and fix commits with their trees and nothing of the history before them, so a worker
shares no file system with the driver and receives only what the case's trials read: the base tree (workspaces,
the environment's key) and the fix tree (its test configuration). On the worker the two commits are the shallow
boundary of a bare repository: `git` reads them like any commit and never looks for their parents.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from corpus.gitutil import run_git


@dataclass(frozen=True)
class CasePack:
    """What a worker needs of the source repository for one case."""

    digest: str
    """sha256 of the pack (names its repository on a node)."""
    commits: tuple[str, ...]
    """The base and fix commits."""
    data: bytes
    """The pack itself."""


def build_pack(repo: Path, commits: tuple[str, ...]) -> CasePack:
    """A pack of the commits and every object of their trees (no parent, no history)."""
    listing = run_git(["rev-list", "--objects", "--no-walk", *commits], repo).stdout
    shas = b"".join(line.split(b" ", 1)[0] + b"\n" for line in listing.splitlines() if line)
    data = run_git(["pack-objects", "-q", "--stdout"], repo, input=shas).stdout
    return CasePack(hashlib.sha256(data).hexdigest(), commits, data)


def materialize(pack: CasePack, root: Path) -> Path:
    """The bare repository of pack under root (root/<digest>.git), made once per node: the first process to get
    the lock builds it in a staging directory and renames it in; the others wait and reuse it."""
    target = root / f"{pack.digest}.git"
    if target.is_dir():
        return target
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"{pack.digest}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if target.is_dir():
            return target
        staged = Path(tempfile.mkdtemp(prefix=f".{pack.digest[:12]}.", dir=root))
        try:
            run_git(["init", "-q", "--bare", "--template=", str(staged)], root)
            run_git(["index-pack", "--stdin"], staged, input=pack.data)
            (staged / "shallow").write_text("".join(f"{sha}\n" for sha in sorted(set(pack.commits))))
            os.rename(staged, target)
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            raise
    return target
