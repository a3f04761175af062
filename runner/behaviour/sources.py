"""Where a trial's behaviour is read from: the agent's stdout (``transcript.log``), or a trajectory file the agent
leaves in its workspace (a variant's ``trajectory_file``, e.g. mini-swe-agent's ``*.traj.json``), copied into the
trial folder as ``trajectory.json`` after the agent stops.

The copy never follows a symbolic link (every step below the workspace is opened relative to its parent with
O_NOFOLLOW, so a link the agent planted cannot point the harness at a file outside the workspace), reads only a
regular file, and refuses one larger than the limit instead of keeping a truncated, unreadable document.
"""

from __future__ import annotations

import errno
import fnmatch
import itertools
import os
import stat
from pathlib import Path, PurePosixPath

from corpus.fsutil import atomic_write_bytes

TRAJECTORY_FILE = "trajectory.json"
"""The copy of the agent's trajectory file in the trial folder."""
TRANSCRIPT_FILE = "transcript.log"
"""The agent's stdout in the trial folder (stdout and stderr in a run made before agent.stderr.log)."""
STDERR_FILE = "agent.stderr.log"
"""The agent's stderr in the trial folder: kept, never parsed."""
SESSION_FILE = "session.jsonl"
"""A copy of the session file a preset's CLI keeps in its HOME (Codex's rollout), read with the transcript."""
TRAJECTORY_LIMIT = 32 * 1024 * 1024
"""Bytes of a trajectory file that are copied at most."""
DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def trajectory_path_problem(path: str) -> str | None:
    """Why a trajectory path cannot name a file inside the workspace (None when it can)."""
    if not path or path.startswith("/") or "\\" in path or "\0" in path:
        return "expected a path relative to the workspace, e.g. run.traj.json"
    if any(part in ("", ".", "..") for part in path.split("/")):
        return "the path must stay inside the workspace (no '..', '.' or empty part)"
    return None


def read_trajectory(workspace: Path, relative: str, limit: int = TRAJECTORY_LIMIT) -> tuple[bytes | None, str]:
    """(the bytes of the regular file at workspace/relative, "") or (None, why not): missing, reached through a
    link, not a regular file, or larger than limit."""
    problem = trajectory_path_problem(relative)
    if problem:
        return None, f"{relative}: {problem}"
    parts = PurePosixPath(relative).parts
    try:
        fd = os.open(workspace, DIRECTORY)
    except OSError as exc:
        return None, f"{relative}: the workspace cannot be read ({exc.strerror})"
    try:
        for part in parts[:-1]:
            try:
                child = os.open(part, DIRECTORY, dir_fd=fd)
            except OSError as exc:
                return None, _why(relative, exc)
            os.close(fd)
            fd = child
        try:
            handle = os.open(parts[-1], FILE, dir_fd=fd)
        except OSError as exc:
            return None, _why(relative, exc)
        try:
            if not stat.S_ISREG(os.fstat(handle).st_mode):
                return None, f"{relative}: not a regular file"
            data = _read(handle, limit + 1)
        finally:
            os.close(handle)
        if len(data) > limit:
            return None, f"{relative}: larger than {limit} bytes"
        return data, ""
    finally:
        os.close(fd)


def _read(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    while size > 0:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _why(relative: str, exc: OSError) -> str:
    if exc.errno in (errno.ELOOP, errno.ENOTDIR):
        return f"{relative}: reached through a symbolic link or a file (not followed)"
    if exc.errno == errno.ENOENT:
        return f"{relative}: the agent left no such file"
    return f"{relative}: cannot be read ({exc.strerror})"


def copy_trajectory(workspace: Path, relative: str, folder: Path, limit: int = TRAJECTORY_LIMIT) -> str | None:
    """Copy the agent's trajectory file into folder as trajectory.json; None when copied, else why not (nothing
    is written then, and the behaviour is read from the stdout transcript)."""
    data, why = read_trajectory(workspace, relative, limit)
    if data is None:
        return why
    atomic_write_bytes(folder / TRAJECTORY_FILE, data)
    return None


def source_text(folder: Path) -> str:
    """The text a trial's behaviour is read from: its trajectory.json when there is one, else its transcript.log
    (empty when neither is there)."""
    for name in (TRAJECTORY_FILE, TRANSCRIPT_FILE):
        path = folder / name
        if path.is_file():
            return path.read_text(encoding="utf-8", errors="replace")
    return ""


def keep_output(output: Path, folder: Path, limit: int = TRAJECTORY_LIMIT) -> None:
    """Copy the regular files of the trial's output directory into folder (made when there is one), never
    following a link; a file larger than limit is left out."""
    for root, dirs, files in os.walk(output):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for name in files:
            relative = os.path.relpath(os.path.join(root, name), output)
            data, _ = read_trajectory(output, relative, limit)
            if data is not None:
                (folder / relative).parent.mkdir(parents=True, exist_ok=True)
                atomic_write_bytes(folder / relative, data)


def keep_session(home: Path, pattern: str, folder: Path, limit: int = TRAJECTORY_LIMIT) -> str | None:
    """Copy the newest (by name) regular file under home matching pattern (a glob relative to home) into folder as
    session.jsonl, never following a link; its path relative to home, or None when there is none."""
    literal = itertools.takewhile(lambda part: not any(c in part for c in "*?["), PurePosixPath(pattern).parts[:-1])
    top = PurePosixPath(*literal)
    found: list[str] = []
    for root, dirs, files in os.walk(home / top):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for name in files:
            relative = os.path.relpath(os.path.join(root, name), home)
            if fnmatch.fnmatchcase(relative, pattern):
                found.append(relative)
    for relative in sorted(found, reverse=True):
        data, _ = read_trajectory(home, relative, limit)
        if data is not None:
            atomic_write_bytes(folder / SESSION_FILE, data)
            return relative
    return None
