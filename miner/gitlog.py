"""The first pass: one streaming `git log -z --name-status` process over the whole range, parsed bytes-safe."""

from __future__ import annotations

import io
import itertools
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from corpus.errors import GitError
from miner.gitbatch import GIT, batch_env, check_exit, widen_pipe

CHUNK = 1 << 20
HEX_START = frozenset(bytes([c]) for c in b"0123456789abcdef")
RENAME_OR_COPY = frozenset(b"RC")
MAX_PENDING = 1 << 26
"""An incomplete commit longer than this (64 MiB) is not git log output."""
# %H, %T, %P, author time (epoch), author date (ISO), raw message; each field NUL-terminated by -z/%x00.
LOG_FORMAT = "%H%x00%T%x00%P%x00%at%x00%aI%x00%B"


# The records of the first pass are NamedTuples: immutable and typed like the frozen dataclasses elsewhere,
# and several times cheaper to build, which matters for every commit and path in history.
class Change(NamedTuple):
    """One changed path of a commit, as `--name-status` reports it."""

    status: str
    """A (added), M (modified), D (deleted), T (type change), ..."""
    path: str
    """Repository path, decoded as UTF-8 with surrogateescape (so no byte is lost)."""


class LogCommit(NamedTuple):
    """A commit as the first pass sees it: identity, message and the paths it changed."""

    sha: str
    """Full sha."""
    tree: str
    """Its tree's sha: equal (parent tree, tree) pairs mean equal diffs."""
    parents: tuple[str, ...]
    """Parent shas; merges report their diff against the first."""
    author_time: int
    """Author date, seconds since the epoch."""
    authored: str
    """Author date, ISO 8601."""
    message: str
    """Full message, decoded as UTF-8 with replacement characters for bad bytes."""
    changes: tuple[Change, ...]
    """Changed paths, against the first parent."""

    @property
    def is_merge(self) -> bool:
        """More than one parent."""
        return len(self.parents) > 1

    @property
    def subject(self) -> str:
        """The first line of the message."""
        return self.message.split("\n", 1)[0].strip()


def decode_path(raw: bytes) -> str:
    """A path as text; bytes that are not UTF-8 survive as surrogates (see `is_utf8`)."""
    return raw.decode("utf-8", "surrogateescape")


def is_utf8(path: str) -> bool:
    """False when decode_path had to smuggle non-UTF-8 bytes through surrogates."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def log_command(revs: list[str], *, merges: bool, since: str | None, until: str | None) -> list[str]:
    """The git log invocation of the first pass."""
    cmd = [*GIT, "log", "-z", "--no-renames", "--name-status",
           "--no-ext-diff", "--no-textconv", "--diff-merges=first-parent", f"--format={LOG_FORMAT}"]
    if not merges:
        cmd.append("--no-merges")
    if since:
        cmd.append(f"--since={since}")
    if until:
        cmd.append(f"--until={until}")
    return [*cmd, *revs, "--"]


COMMIT = re.compile(
    rb"([0-9a-f]{40}(?:[0-9a-f]{24})?)\0([0-9a-f]{40}(?:[0-9a-f]{24})?)\0([0-9a-f ]*)\0(-?[0-9]*)\0([^\0]*)\0"
    rb"([^\0]*)\0((?:\n?(?:[RC][0-9]*\0[^\0]*\0|[ADMTUXB][0-9]*\0)[^\0]*\0)*)")
"""One commit of `log_command`'s output: sha, tree, parents, author time and date, message (each NUL-ended), then
its `STATUS\\0PATH\\0` pairs (a rename or copy has two paths; the list starts on a newline). A status is upper
case and a sha is not, so a commit's paths end where the next sha starts."""


def parse_log(stream: Iterator[bytes]) -> Iterator[LogCommit]:
    """Parse the output of `log_command`, one commit at a time, from chunks of any size.

    One regular expression reads each whole commit, so the per-field work happens in C; a commit is taken once
    the next one has begun (or the output ended), so one cut anywhere by a chunk boundary waits for the rest.
    """
    buffer = b""
    match_at = COMMIT.match
    for chunk in itertools.chain(stream, [None]):
        final = chunk is None
        buffer = buffer + chunk if chunk else buffer
        position = 0
        while position < len(buffer):
            found = match_at(buffer, position)
            # Complete only when the next commit has begun (a sha is lower-case hex, a status or the newline
            # before a commit's first status is not), or at the end of the output.
            if found is None or (not final and buffer[found.end():found.end() + 1] not in HEX_START):
                if found is None and (final or len(buffer) - position > MAX_PENDING):
                    raise GitError(f"unexpected git log output near {buffer[position:position + 60]!r}")
                break
            sha, tree, parents, when, iso, message, paths = found.groups()
            tokens = paths.split(b"\0")
            changes = []
            index, last = 0, len(tokens) - 1
            while index < last:
                status = tokens[index].lstrip(b"\n")[0]
                if status in RENAME_OR_COPY:
                    index += 1  # the old path of a rename or copy
                changes.append(Change(chr(status), decode_path(tokens[index + 1])))
                index += 2
            yield LogCommit(sha.decode(), tree.decode(), tuple(parents.decode().split()), int(when or b"0"),
                            iso.decode(), message.decode("utf-8", "replace"), tuple(changes))
            position = found.end()
        buffer = buffer[position:]


def iter_log(repo: Path, revs: list[str], *, merges: bool = True, since: str | None = None,
             until: str | None = None) -> Iterator[LogCommit]:
    """Stream the commits of revs from ONE git log process; a git failure becomes a GitError."""
    cmd = log_command(revs, merges=merges, since=since, until=until)
    proc = subprocess.Popen(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=batch_env())
    widen_pipe(proc.stdout)
    assert isinstance(proc.stdout, io.BufferedReader) and proc.stderr is not None
    stdout = proc.stdout
    try:
        # read1: parse whatever has arrived while git keeps writing, rather than wait for a full chunk.
        yield from parse_log(iter(lambda: stdout.read1(CHUNK), b""))
    finally:
        proc.stdout.close()
        err = proc.stderr.read()
        proc.wait()
    check_exit(proc, "log", repo, err)
