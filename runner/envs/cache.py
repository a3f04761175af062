"""The environment cache: one built environment and workspace overlay per key, shared by every case and trial.

Layout under the cache directory (`--env-cache`, default `$XDG_CACHE_HOME/hindcast/envs`):

    entries/<digest>/env/          the interpreter environment (absent when the case names no python)
    entries/<digest>/overlay/      copies of what setup created or changed in the workspace
    entries/<digest>/overlay.json  the overlay's paths (changed, removed, containers)
    entries/<digest>/entry.json    key parts, created, last used, size, the cases that used it
    entries/<digest>/setup.log     the build's setup output
    entries/<digest>/complete      written last: an entry without it is half-built and never used
    locks/<digest>.lock            flock: exclusive while building or removing, shared while in use
    trash/<digest>.<pid>.<random>  an entry taken out of entries/ in one rename, to be removed (`runner.envs.trash`)
    downloads/uv, downloads/pip    download caches, writable to setup commands only
    resolutions/<name>.json        how setups resolve, decided once (`runner.workspace.resolve`)

A user takes the entry's lock shared and, when the entry's marker is there, keeps it so for as long as its cache
object lives, so `prune` (which needs it exclusively) never removes an entry a run or verify is using, while any
number of users (runs on one machine, Ray workers of one node) share it. When the marker is missing, whoever gets
the lock exclusively without waiting builds the entry (moving what a crashed build left to the trash) and then
holds it shared too; the others wait for that build. A failed or interrupted build is moved to the trash before
its lock is let go, never cached: the next use retries.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import tempfile
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.fsutil import atomic_write_text, tree_bytes
from runner.envs.key import EnvKey
from runner.envs.overlay import Overlay
from runner.envs.trash import Trash
from runner.settings import DEFAULT_ENV_CACHE, EnvCacheChoice

ENTRY_FORMAT = 1
"""The format number of entry.json."""
COMPLETE = "complete"
ENV_DIR = "env"
OVERLAY_DIR = "overlay"


def default_cache_dir() -> Path:
    """`$XDG_CACHE_HOME/hindcast/envs`, else `~/.cache/hindcast/envs`."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "hindcast" / "envs"


def env_cache_dir(choice: EnvCacheChoice) -> Path | None:
    """The directory a settings' env_cache names on this machine (the default one for DEFAULT_ENV_CACHE)."""
    return default_cache_dir() if choice == DEFAULT_ENV_CACHE else choice if isinstance(choice, Path) else None


def open_env_cache(choice: EnvCacheChoice) -> EnvCache | None:
    """The cache a settings' env_cache names on this machine, opened (None: no cache); the caller closes it."""
    directory = env_cache_dir(choice)
    return EnvCache(directory) if directory is not None else None


@dataclass(frozen=True)
class Built:
    """What a build function made in an entry directory."""

    overlay: Overlay
    """What setup did to the workspace (stored under overlay/)."""
    env_dir: Path | None
    """The environment it made (entries/<digest>/env), when the case names a python."""
    tree: str | None = None
    """Set when the environment or the overlay holds files of the project (`runner.envs.project`): the entry
    then serves only that tree."""
    note: str = ""
    """What setup could not do as its resolution said (build tools kept at today's), for the resolution line."""


@dataclass(frozen=True)
class EnvEntry:
    """A complete cache entry, ready to be used."""

    digest: str
    """The key's digest (the entry's directory name)."""
    directory: Path
    """entries/<digest>."""
    env_dir: Path | None
    """The environment, when the key names a python."""
    overlay: Overlay
    """What to copy into each workspace that uses it."""
    tree: str | None
    """The only base tree it serves, when it holds files of the project; None: every base of its key."""
    note: str = ""
    """The build's note on its resolution (`Built.note`)."""

    @property
    def overlay_dir(self) -> Path:
        """Where the overlay's files are stored."""
        return self.directory / OVERLAY_DIR


def check_cache_dir(path: Path, create: bool = True) -> Path:
    """The cache directory made absolute (and created); UsageError naming --env-cache when it cannot be used."""
    path = Path(os.path.abspath(path))
    if path.exists() and not path.is_dir():
        raise UsageError(f"--env-cache {path}: not a directory")
    if not create:
        return path
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise UsageError(f"--env-cache {path}: not a writable directory ({exc.strerror or exc})") from None
    return path


class EnvCache:
    """One process's view of a cache directory: builds or finds entries, and keeps those it used locked shared."""

    def __init__(self, root: Path) -> None:
        self.root = check_cache_dir(root)
        for sub in ("entries", "locks", "downloads/uv", "downloads/pip"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.trash = Trash(self.root)
        """Where entries that are not to stay go; emptied in the background from now on."""
        if self.trash.held():
            self.trash.empty_soon()
        self._lock = threading.Lock()
        self._key_locks: dict[str, threading.Lock] = {}
        self._entries: dict[str, EnvEntry] = {}
        self._held: dict[str, int] = {}
        self._finalizer = weakref.finalize(self, _close_all, self._held)

    def close(self) -> None:
        """Release every entry this cache object holds (prune may remove them from now on), and stop emptying
        the trash (what is left of it waits for the next opening)."""
        self.trash.close()
        with self._lock:
            self._finalizer()
            self._entries.clear()

    def setup_variables(self) -> dict[str, str]:
        """The download caches as setup commands see them."""
        return {"UV_CACHE_DIR": str(self.root / "downloads" / "uv"),
                "PIP_CACHE_DIR": str(self.root / "downloads" / "pip")}

    def download_dirs(self) -> tuple[Path, ...]:
        """The download cache directories (bound writable into setup's sandbox, never into an agent's)."""
        return (self.root / "downloads" / "uv", self.root / "downloads" / "pip")

    def has(self, key: EnvKey) -> bool:
        """Whether the entry of key's digest is complete (in use by this object, or on disk)."""
        return key.digest in self._entries or (self.root / "entries" / key.digest / COMPLETE).is_file()

    def acquire(self, key: EnvKey, case_id: str, build: Callable[[Path], Built],
                cancel: threading.Event | None = None) -> tuple[EnvEntry, bool]:
        """The complete entry of key and whether it was there already (a hit); build(entry_dir) makes it when not.

        Builds of one key, in threads or processes, wait for one another; the build's errors propagate and
        leave nothing at the entry's path. An entry that holds files of the project serves only its own base
        tree: for another base the key is pinned to that base's tree (`EnvKey.pin`), an entry of its own. Once
        cancel is set (the command is stopping) a failed build's trash is left for the next opening to remove.
        """
        digest = key.digest
        with self._lock:
            key_lock = self._key_locks.setdefault(digest, threading.Lock())
        with key_lock:
            entry, hit = self._entries.get(digest), True
            if entry is None:
                entry, hit = self._open(key, build, cancel)
                self._entries[digest] = entry
            if entry.tree is None or entry.tree == key.base_tree or key.pinned:
                self._touch(entry, case_id)
                return entry, hit
        return self.acquire(key.pin(), case_id, build, cancel)

    def _open(self, key: EnvKey, build: Callable[[Path], Built],
              cancel: threading.Event | None) -> tuple[EnvEntry, bool]:
        """Hold the entry of key shared, building it first when it is not complete.

        The lock is taken shared first: that waits only for a build or a removal (exclusive), never for another
        user (shared, for as long as its cache object lives). An incomplete entry is built by whoever gets the
        lock exclusively without waiting; the others wait for that build with a shared request and look again.
        """
        digest = key.digest
        directory = self.root / "entries" / digest
        while True:
            fd = lock_entry(self.root, digest, fcntl.LOCK_SH)
            assert fd is not None
            try:
                if (directory / COMPLETE).is_file():
                    entry, hit = read_entry(directory), True
                else:
                    try:  # a conversion: the shared lock is let go first, so two of these cannot wait on each other
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    except BlockingIOError:  # another builds it (or is looking, as here): wait for it, look again
                        os.close(fd)
                        time.sleep(random.uniform(0.01, 0.05))
                        continue
                    if not _same_file(fd, self.root, digest):  # removed before it was locked again
                        os.close(fd)
                        continue
                    if not (directory / COMPLETE).is_file():
                        if directory.exists():  # a crashed build's
                            self.trash.discard(directory)
                            self.trash.empty_soon()
                        self._build(key, directory, build, cancel)
                    fcntl.flock(fd, fcntl.LOCK_SH)
                    if not (directory / COMPLETE).is_file():  # removed while the lock was being converted
                        os.close(fd)
                        continue
                    entry, hit = read_entry(directory), False
            except BaseException:
                os.close(fd)
                raise
            self._held[digest] = fd
            return entry, hit

    def _build(self, key: EnvKey, directory: Path, build: Callable[[Path], Built],
               cancel: threading.Event | None) -> None:
        directory.mkdir(parents=True)
        started = time.monotonic()
        try:
            built = build(directory)
            atomic_write_text(directory / "overlay.json", json.dumps(built.overlay.to_json()))
            now = _now()
            meta = {"format": ENTRY_FORMAT, "key": key.digest, "parts": key.parts(), "created": now,
                    "last_used": now, "build_seconds": round(time.monotonic() - started, 3),
                    "size": tree_size(directory), "cases": [], "tree": built.tree, "note": built.note,
                    "env": built.env_dir.name if built.env_dir is not None else None}
            atomic_write_text(directory / "entry.json", json.dumps(meta, indent=2, sort_keys=True) + "\n")
            atomic_write_text(directory / COMPLETE, now + "\n")
        except BaseException:  # out of the entries before the lock is let go; removed in the background
            self.trash.discard(directory)
            if cancel is None or not cancel.is_set():
                self.trash.empty_soon()
            raise

    def _touch(self, entry: EnvEntry, case_id: str) -> None:
        """Record the use in entry.json (last used, the case), one writer at a time."""
        with open(entry.directory / "meta.lock", "a") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            meta = read_meta(entry.directory)
            meta["last_used"] = _now()
            if case_id not in meta["cases"]:
                meta["cases"] = [*meta["cases"], case_id]
            atomic_write_text(entry.directory / "entry.json", json.dumps(meta, indent=2, sort_keys=True) + "\n")


def lock_entry(root: Path, digest: str, mode: int = fcntl.LOCK_EX, blocking: bool = True) -> int | None:
    """A descriptor holding the entry's lock in mode (exclusive unless told); None when not blocking and the
    lock is held against it.

    The lock file is checked to still be the one at its path after locking (prune removes lock files).
    """
    path = root / "locks" / f"{digest}.lock"
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, mode | (0 if blocking else fcntl.LOCK_NB))
        except BlockingIOError:
            os.close(fd)
            return None
        if _same_file(fd, root, digest):
            return fd
        os.close(fd)


def _same_file(fd: int, root: Path, digest: str) -> bool:
    """Whether fd is still the lock file at the entry's path (prune unlinks it once it has removed the entry)."""
    try:
        return os.fstat(fd).st_ino == os.stat(root / "locks" / f"{digest}.lock").st_ino
    except FileNotFoundError:
        return False


def read_meta(directory: Path) -> dict[str, Any]:
    """An entry's entry.json."""
    data = json.loads((directory / "entry.json").read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise UsageError(f"{directory / 'entry.json'}: not an environment entry")
    return data


def read_entry(directory: Path) -> EnvEntry:
    """A complete entry as its files describe it."""
    meta = read_meta(directory)
    overlay = Overlay.from_json(json.loads((directory / "overlay.json").read_text(encoding="utf-8")))
    env_dir = directory / meta["env"] if meta.get("env") else None
    return EnvEntry(directory.name, directory, env_dir, overlay, meta.get("tree"), str(meta.get("note") or ""))


def tree_size(path: Path) -> int:
    """Bytes of the files under path (links not followed)."""
    return tree_bytes(path)


def _close_all(held: dict[str, int]) -> None:
    for fd in held.values():
        with contextlib.suppress(OSError):
            os.close(fd)
    held.clear()


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
