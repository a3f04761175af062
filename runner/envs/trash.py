"""The environment cache's trash: an entry that is not to stay (a failed or interrupted build, a crashed build's
leftovers, a pruned entry) leaves `entries/` in one rename into `trash/` under its lock, and is removed later.

So nothing half-built is ever at an entry's path while its lock is let go, and the lock is held for a rename, not
for the removal of a few thousand files. The trash is emptied in the background by each cache object (when it
is opened, and after each failed build that was not interrupted) and at once by `runner env prune`. Any number of
processes may empty one trash together: each removes what it finds, skipping what another removed first, and
what one leaves (a process that ended or crashed mid-removal) the next opening removes.
"""

from __future__ import annotations

import os
import secrets
import shutil
import threading
from pathlib import Path

from corpus.fsutil import remove_tree, tree_bytes

TRASH_DIR = "trash"


def discard(trash: Path, directory: Path) -> None:
    """Take directory (an entry's) out of the entries at once: removed when it is empty, else renamed into trash
    under a name no other discard uses; removed in place when it cannot be renamed (trash on another file system).
    A directory that is not there is fine."""
    try:
        os.rmdir(directory)
        return
    except FileNotFoundError:
        return
    except OSError:
        pass
    try:
        os.rename(directory, trash / f"{directory.name}.{os.getpid()}.{secrets.token_hex(4)}")
    except FileNotFoundError:
        return
    except OSError:
        shutil.rmtree(directory, ignore_errors=True)


def empty(trash: Path, stop: threading.Event | None = None) -> int:
    """Remove what trash holds, item by item, until stop is set; the bytes of what was there when each item was
    taken up (an item that cannot be removed now, or that another process removes meanwhile, is skipped)."""
    freed = 0
    for item in _items(trash):
        if stop is not None and stop.is_set():
            break
        size = tree_bytes(item) if stop is None else 0
        try:
            if remove_tree(item, stop.is_set if stop is not None else None):
                freed += size
        except OSError:  # removed by another process too, or not removable now: the next emptying tries again
            continue
    return freed


def _items(trash: Path) -> list[Path]:
    try:
        with os.scandir(trash) as found:
            return [Path(entry.path) for entry in found]
    except OSError:
        return []


class Trash:
    """A cache directory's trash and the daemon thread of this process that empties it: a command never waits for
    it, and close stops it before its next directory (the rest is left for the next opening)."""

    def __init__(self, root: Path) -> None:
        self.directory = root / TRASH_DIR
        self.directory.mkdir(exist_ok=True)
        self._lock = threading.Lock()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self._again = False

    def discard(self, directory: Path) -> None:
        """Take an entry's directory out of the entries (`discard`)."""
        discard(self.directory, directory)

    def empty_soon(self) -> None:
        """Empty the trash in the background (once more after the current pass, when one is under way)."""
        with self._lock:
            if self._closed.is_set():
                return
            if self._thread is not None:
                self._again = True
                return
            self._thread = threading.Thread(target=self._run, name="hindcast-env-trash", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            empty(self.directory, self._closed)
            with self._lock:
                if not self._again or self._closed.is_set():
                    self._thread = None
                    return
                self._again = False

    def held(self) -> bool:
        """Whether the trash holds anything."""
        return bool(_items(self.directory))

    def wait(self, timeout: float | None = None) -> None:
        """Wait for the background emptying under way, if any, to end."""
        with self._lock:
            thread = self._thread
        if thread is not None:
            thread.join(timeout)

    def close(self) -> None:
        """Stop the background emptying before its next directory."""
        with self._lock:
            self._closed.set()
