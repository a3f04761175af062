"""Reading, writing and removing paths inside a workspace without ever following a symbolic link out of it.

Every step below the workspace root is opened relative to its parent with O_NOFOLLOW: a link (or a file) where
a directory should be is never followed. Writers replace it by a real directory; readers see nothing there.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

from corpus.layout import repo_path

DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _parts(relative: str) -> tuple[str, ...]:
    return repo_path(relative).parts


def _clear(name: str, parent: int) -> None:
    """Remove whatever is at name in the directory parent (a link itself, a file, or a whole real tree)."""
    try:
        info = os.lstat(name, dir_fd=parent)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        shutil.rmtree(name, dir_fd=parent)
    else:
        os.unlink(name, dir_fd=parent)


def _descend(root: Path, parts: tuple[str, ...], *, create: bool) -> tuple[int, str | None]:
    """(a descriptor of the deepest directory reached, the part that stopped the walk or None) for the
    directory that holds the last part. With create, a missing part, a link or a file in the way is replaced by
    a real directory and the walk always reaches the end."""
    fd = os.open(root, DIRECTORY)
    try:
        for part in parts[:-1]:
            try:
                child = os.open(part, DIRECTORY, dir_fd=fd)
            except OSError as exc:
                if exc.errno not in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):
                    raise
                if not create:
                    return fd, part
                _clear(part, fd)
                os.mkdir(part, 0o755, dir_fd=fd)
                child = os.open(part, DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd, None


def write_inside(root: Path, relative: str, data: bytes, mode: int = 0o644) -> None:
    """Write data at root/relative as a new regular file; links and files in the way are replaced, not followed."""
    parts = _parts(relative)
    fd, _ = _descend(root, parts, create=True)
    try:
        _clear(parts[-1], fd)
        out = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode,
                      dir_fd=fd)
        with os.fdopen(out, "wb") as handle:
            handle.write(data)
    finally:
        os.close(fd)


def exists_inside(root: Path, relative: str) -> bool:
    """Whether anything is at root/relative reached through real directories, or a link stands on the way
    (which `remove_inside` would remove); nothing behind a link is looked at."""
    parts = _parts(relative)
    fd, stopped = _descend(root, parts, create=False)
    try:
        return _is_link(stopped, fd) if stopped is not None else _lexists(parts[-1], fd)
    finally:
        os.close(fd)


def remove_inside(root: Path, relative: str) -> bool:
    """Remove root/relative (a file, a link itself, or a whole tree); a link on the way is removed instead of
    followed, so nothing outside root is touched. True when something was removed."""
    parts = _parts(relative)
    fd, stopped = _descend(root, parts, create=False)
    try:
        if stopped is not None:
            if not _is_link(stopped, fd):
                return False  # missing, or a file where a directory would be: nothing of the path is here
            os.unlink(stopped, dir_fd=fd)  # the link itself goes: what it pointed at stays untouched
            return True
        if not _lexists(parts[-1], fd):
            return False
        _clear(parts[-1], fd)
        return True
    finally:
        os.close(fd)


def _lexists(name: str, parent: int) -> bool:
    try:
        os.lstat(name, dir_fd=parent)
    except FileNotFoundError:
        return False
    return True


def _is_link(name: str, parent: int) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=parent).st_mode)
    except FileNotFoundError:
        return False


def read_inside(root: Path, relative: str) -> bytes | None:
    """The bytes of the regular file at root/relative; None when it is missing, not a regular file, or reached
    only through a link."""
    parts = _parts(relative)
    fd, stopped = _descend(root, parts, create=False)
    try:
        if stopped is not None:
            return None
        try:
            handle = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, dir_fd=fd)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR, errno.ENXIO):
                return None
            raise
        if not stat.S_ISREG(os.fstat(handle).st_mode):  # a directory: fdopen would raise
            os.close(handle)
            return None
        with os.fdopen(handle, "rb") as stream:
            return stream.read()
    finally:
        os.close(fd)
