"""Snapshots of a trial's workspace in a private git directory: the setup state, the final state, the patch between."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from corpus.errors import GitError
from corpus.gitutil import GIT, ISOLATED_CONFIG, git_env, run_git
from runner.workspace.workspace import BASE_BRANCH, NEUTRAL_ATTRIBUTES, STAT_CONFIG

GIT_TIMEOUT = 600.0
"""Seconds any one git command over a workspace may take."""
BYTECODE_EXCLUDES = (":(exclude,glob)**/__pycache__/**", ":(exclude,glob)**/*.py[co]")
"""Bytecode caches are never part of a snapshot: a forged cache would stand in for the source it claims."""
CACHE_NAMES = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".tox",
                         ".nox", ".cache", "node_modules", ".eggs", "build", "dist"})
"""Directory names of caches and build output that test runs and installs leave (not worth a flag)."""
IGNORED_LISTING = ["ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"]
"""The new files a snapshot's ignore rules keep out (a directory of them as `dir/`)."""


def flatten(workspace: Path) -> list[str]:
    """Make a workspace hold only what a patch can carry, and return what was removed.

    Nested repositories lose their git data (`.git` directories, files and links below the root: a gitfile could
    point git at any repository, an empty or broken one fails `git add`), so their files are recorded as plain
    files; fifos, sockets and devices are removed (git cannot record them, and opening a fifo blocks). Nothing
    is followed through a link.
    """
    removed: list[str] = []
    root = str(workspace)
    stack = [root]
    while stack:
        directory = stack.pop()
        with os.scandir(directory) as entries:
            for entry in entries:
                if entry.name == ".git":
                    if directory != root:
                        _remove(entry)
                        removed.append(os.path.relpath(entry.path, root))
                elif entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                elif not (entry.is_file(follow_symlinks=False) or entry.is_symlink()):
                    os.unlink(entry.path)
                    removed.append(os.path.relpath(entry.path, root))
    return sorted(removed)


def _remove(entry: os.DirEntry[str]) -> None:
    if entry.is_dir(follow_symlinks=False):
        shutil.rmtree(entry.path, ignore_errors=True)
    else:
        os.unlink(entry.path)


def is_cache(path: str) -> bool:
    """True for an ignored path that is a cache or build output of tools (listed, not flagged)."""
    parts = path.rstrip("/").split("/")
    return any(part in CACHE_NAMES or part.endswith(".egg-info") for part in parts) or path.endswith((".pyc", ".pyo"))


class PatchTooLarge(Exception):
    """A candidate patch bigger than its limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the candidate patch is over {limit} bytes (--patch-limit)")
        self.limit = limit


def _capped_git(args: list[str], cwd: Path, env: dict[str, str], limit: int) -> bytes:
    """git's output, read in chunks; PatchTooLarge (git killed) once it passes limit bytes; GitError on
    failure or after GIT_TIMEOUT."""
    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen([GIT, *ISOLATED_CONFIG, *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                    stdout=subprocess.PIPE, stderr=errors)
        except FileNotFoundError as exc:
            raise GitError(f"cannot run git in {cwd}: {exc.strerror}") from None
        timer = threading.Timer(GIT_TIMEOUT, proc.kill)
        timer.start()
        out = bytearray()
        try:
            assert proc.stdout is not None
            while chunk := proc.stdout.read(1 << 16):
                out += chunk
                if len(out) > limit:
                    proc.kill()
                    raise PatchTooLarge(limit)
        finally:
            proc.stdout.close() if proc.stdout is not None else None
            proc.wait()
            timer.cancel()
        if proc.returncode != 0:
            errors.seek(0)
            message = errors.read().decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git {args[0]} failed in {cwd}: {message[-1] if message else f'exit {proc.returncode}'}")
        return bytes(out)


class Snapshots:
    """Snapshots of a workspace's files, kept through a private git directory and index files outside it.

    The private directory borrows the template's objects (alternates) and stores new ones itself, so the agent
    can commit, reset, rewrite or delete the workspace's own `.git` without affecting it. `add -A` honours the
    workspace's .gitignore files, so build junk stays out of the patch.
    """

    def __init__(self, template: Path, workspace: Path, private: Path) -> None:
        self.workspace = workspace
        self.private = private
        self.git_dir = private / "snapshots.git"
        (self.git_dir / "objects" / "info").mkdir(parents=True)
        (self.git_dir / "info").mkdir()
        (self.git_dir / "info" / "attributes").write_text(NEUTRAL_ATTRIBUTES)
        (self.git_dir / "refs").mkdir()
        (self.git_dir / "HEAD").write_text(f"ref: refs/heads/{BASE_BRANCH}\n")
        (self.git_dir / "config").write_text("".join(f"[{k.split('.')[0]}]\n\t{k.split('.')[1]} = {v}\n"
                                                     for k, v in STAT_CONFIG))
        (self.git_dir / "objects" / "info" / "alternates").write_text(f"{template.resolve() / 'objects'}\n")

    def _env(self, index: Path) -> dict[str, str]:
        return git_env({"GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": str(self.workspace),
                        "GIT_INDEX_FILE": str(index)})

    def index(self, name: str) -> Path:
        """The index file of a snapshot."""
        return self.private / f"{name}.index"

    def take(self, name: str, stat_cache: Path) -> None:
        """Record the work tree in the snapshot's index; stat_cache (an index file) spares unchanged files."""
        index = self.index(name)
        shutil.copy2(stat_cache, index)  # keeps the mtime, so git rechecks entries as new as it (racy git)
        run_git(["add", "-A", "--", ".", *BYTECODE_EXCLUDES], self.workspace, env=self._env(index),
                timeout=GIT_TIMEOUT)

    def ignored(self, name: str) -> set[str]:
        """New files the ignore rules keep out of a snapshot (a directory of them as `dir/`)."""
        out = run_git(IGNORED_LISTING, self.workspace, env=self._env(self.index(name)), timeout=GIT_TIMEOUT).stdout
        return _paths(out)

    def diff_and_ignored(self, old_tree: str, name: str, limit: int | None = None) -> tuple[bytes, list[str],
                                                                                            set[str]]:
        """`diff` and `ignored` of one snapshot, the two git commands at once (both only read its index)."""
        try:
            listing = subprocess.Popen([GIT, *ISOLATED_CONFIG, *IGNORED_LISTING], cwd=self.workspace,
                                       env=self._env(self.index(name)), stdin=subprocess.DEVNULL,
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except FileNotFoundError as exc:
            raise GitError(f"cannot run git in {self.workspace}: {exc.strerror}") from None
        try:
            patch, paths = self.diff(old_tree, name, limit)
        except BaseException:
            listing.kill()
            listing.communicate()
            raise
        try:
            out, errors = listing.communicate(timeout=GIT_TIMEOUT)
        except subprocess.TimeoutExpired:
            listing.kill()
            listing.communicate()
            raise GitError(f"git ls-files timed out after {GIT_TIMEOUT:g}s in {self.workspace}") from None
        if listing.returncode != 0:
            message = errors.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git ls-files failed in {self.workspace}: "
                           f"{message[-1] if message else f'exit {listing.returncode}'}")
        return patch, paths, _paths(out)

    def tree(self, name: str) -> str:
        """Write a snapshot's tree object and return its sha."""
        return run_git(["write-tree"], self.workspace, env=self._env(self.index(name))).stdout.decode().strip()

    def diff(self, old_tree: str, name: str, limit: int | None = None) -> tuple[bytes, list[str]]:
        """The binary-safe patch from old_tree to the snapshot, and the paths it touches (one git call); read
        as git writes it, and PatchTooLarge as soon as git's output passes limit bytes (never held whole)."""
        args = ["diff", "--cached", "--raw", "-z", "-p", "--binary", "--full-index", "--no-renames",
                "--ignore-submodules=all", old_tree]
        env = self._env(self.index(name))
        out = run_git(args, self.workspace, env=env, timeout=GIT_TIMEOUT).stdout if limit is None \
            else _capped_git(args, self.workspace, env, limit)
        # --raw -z first lists ":modes shas status\0path\0" per file, then one NUL, then the patch.
        paths, pos = [], 0
        while out.startswith(b":", pos):
            meta_end = out.index(b"\0", pos)
            path_end = out.index(b"\0", meta_end + 1)
            paths.append(out[meta_end + 1:path_end].decode("utf-8", "surrogateescape"))
            pos = path_end + 1
        if paths:
            pos += 1
        return out[pos:], paths


def _paths(listing: bytes) -> set[str]:
    return {p.decode("utf-8", "surrogateescape") for p in listing.split(b"\0") if p}
