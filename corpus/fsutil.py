"""Atomic file and directory writes: a reader never sees a half-written file."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from corpus.errors import WriteError

# Read once, at import, before any thread runs: os.umask can only be read by setting it.
_UMASK = os.umask(0o022)
os.umask(_UMASK)
FILE_MODE = 0o666 & ~_UMASK
"""Mode of a published file: what open() would have given it (mkstemp alone gives 0600)."""
DIR_MODE = 0o777 & ~_UMASK
"""Mode of a published directory: what mkdir would have given it (mkdtemp alone gives 0700)."""


def hindcast_temp() -> Path:
    """The directory of this user's own under the system temp dir that holds every temporary directory of
    Hindcast's that a trial must not see (runs' and verify's scratch, exports, thawed runs): a sandbox hides it
    alone, so the rest of the temp dir can be bound. Made 0700 when missing; WriteError when it is a link, not a
    directory or another user's."""
    path = Path(tempfile.gettempdir()) / f"hindcast-{os.getuid()}"
    with writing(path):
        with suppress(FileExistsError):
            path.mkdir(mode=0o700)
        info = os.lstat(path)
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            raise WriteError(path, "exists and is not a directory of this user's own")
        if stat.S_IMODE(info.st_mode) & 0o077:
            os.chmod(path, 0o700)
    return path


def write_error(error: OSError, path: Path | str) -> WriteError:
    """error, met while writing path, as the one-line WriteError naming path (`cannot write PATH: REASON`)."""
    if isinstance(error, WriteError):
        return WriteError(path, error.reason, error.errno)
    return WriteError(path, error.strerror or str(error) or type(error).__name__, error.errno)


@contextmanager
def writing(path: Path | str) -> Iterator[None]:
    """Inside the block, an OSError is re-raised as a WriteError naming path (one that already is a
    WriteError keeps the path it names)."""
    try:
        yield
    except WriteError:
        raise
    except OSError as error:
        raise write_error(error, path) from error


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write data to path through a temp file in the same directory and a rename; on failure (a WriteError
    naming path) the temp file is removed and path is as it was."""
    with writing(path):
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            os.fchmod(fd, FILE_MODE)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


def atomic_write_text(path: Path, text: str) -> None:
    """Write UTF-8 text atomically."""
    atomic_write_bytes(path, text.encode("utf-8"))


def write_staged(path: str | Path, data: bytes) -> None:
    """Write a new file inside a staging directory that is renamed in whole once filled (`staging_directory`,
    `publish_directory`): no reader sees it before the rename, so it needs no temp file of its own, and no fsync
    (a run's digest audit refuses a result.json a crash left torn). FileExistsError when path exists."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, FILE_MODE)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def replace_directory(staged: Path, target: Path) -> None:
    """Move a fully written staged directory into place, replacing target if it exists."""
    if target.exists():
        trash = target.with_name(f".{target.name}.old")
        if trash.exists():
            shutil.rmtree(trash)
        os.replace(target, trash)
        os.replace(staged, target)
        shutil.rmtree(trash)
    else:
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)


def staging_directory(parent: Path, name: str) -> Path:
    """A fresh empty temp directory beside the final one, so the rename stays on one filesystem."""
    parent.mkdir(parents=True, exist_ok=True)
    staged = Path(tempfile.mkdtemp(prefix=f".{name}.", suffix=".staging", dir=parent))
    staged.chmod(DIR_MODE)
    return staged


def publish_directory(parent: Path, name: str, fill: Callable[[Path], None]) -> Path:
    """Make the new directory parent/name holding what fill writes into a staging directory beside it, then
    rename it in. On any failure the staging directory (and parent, when this made it) is removed and nothing
    appears; an OSError (a full disk) becomes a WriteError naming parent/name."""
    target = parent / name
    made_parent = not parent.exists()
    with writing(target):
        staged = staging_directory(parent, name)
    try:
        fill(staged)
        os.rename(staged, target)
    except BaseException as error:
        shutil.rmtree(staged, ignore_errors=True)
        if made_parent:
            with suppress(OSError):  # only when still empty
                parent.rmdir()
        if isinstance(error, OSError):
            raise write_error(error, target) from error
        raise
    return target


def undo_new(path: Path) -> Callable[[], None]:
    """A function removing what will have been made at path from now on: path itself when it does not exist
    yet, its contents when it is an empty directory; a directory with contents now is left as it is."""
    existed = path.exists()
    empty = existed and path.is_dir() and not any(path.iterdir())

    def undo() -> None:
        if not existed:
            shutil.rmtree(path, ignore_errors=True)
        elif empty and path.is_dir():
            for child in path.iterdir():
                if child.is_dir() and not child.is_symlink():
                    shutil.rmtree(child, ignore_errors=True)
                else:
                    child.unlink(missing_ok=True)

    return undo


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def remove_tree(path: Path | str, stop: Callable[[], bool] | None = None) -> bool:
    """Remove path and everything under it, links never followed, at any depth (one directory open at a time:
    no recursion, no path longer than a name); directories whose mode forbids it are opened up first. OSError
    when something cannot be removed (a missing path is fine). With stop, asked before each directory is
    emptied: once it says True the removal ends there, path partly removed, and False is returned."""
    try:
        if not os.path.isdir(path) or os.path.islink(path):
            os.unlink(path)
            return True
    except FileNotFoundError:
        return True
    fd = os.open(path, _DIR_FLAGS)
    below: list[str] = []
    try:
        while True:
            if stop is not None and stop():
                return False
            child = _empty_files(fd)
            if child is not None:
                try:
                    inner = os.open(child, _DIR_FLAGS, dir_fd=fd)
                except PermissionError:
                    os.chmod(child, 0o700, dir_fd=fd)
                    inner = os.open(child, _DIR_FLAGS, dir_fd=fd)
                os.close(fd)
                fd = inner
                below.append(child)
                continue
            if not below:
                break
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = parent
            os.rmdir(below.pop(), dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(path)
    return True


def _empty_files(fd: int) -> str | None:
    """Unlink the files of the open directory fd up to its first subdirectory, whose name is returned (None: it
    holds no subdirectory any more)."""
    with os.scandir(fd) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                return entry.name
            try:
                os.unlink(entry.name, dir_fd=fd)
            except PermissionError:
                os.fchmod(fd, 0o700)
                os.unlink(entry.name, dir_fd=fd)
    return None


def tree_bytes(path: Path | str, stop_above: int | None = None) -> int:
    """Bytes of the files under path (links not followed, any depth); the count so far once it passes
    stop_above."""
    total = 0
    stack = [os.fspath(path)]
    while stack:
        directory = stack.pop()
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
            if stop_above is not None and total > stop_above:
                return total
    return total
