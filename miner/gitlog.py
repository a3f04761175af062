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
from miner.gitbatch import batch_env, widen_pipe

CHUNK = 1 << 20
SHA_TOKEN = re.compile(rb"^[0-9a-f]{40}([0-9a-f]{24})?$")
STATUS_TOKEN = re.compile(rb"^[ACDMRTUXB][0-9]*$")
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
    cmd = ["git", "-c", "core.quotePath=false", "log", "-z", "--no-renames", "--name-status",
           "--no-ext-diff", "--no-textconv", "--diff-merges=first-parent", f"--format={LOG_FORMAT}"]
    if not merges:
        cmd.append("--no-merges")
    if since:
        cmd.append(f"--since={since}")
    if until:
        cmd.append(f"--until={until}")
    return [*cmd, *revs, "--"]


def parse_log(stream: Iterator[bytes]) -> Iterator[LogCommit]:
    """Parse the output of `log_command`, one commit at a time, from chunks of any size.

    Layout per commit: `H\\0T\\0P\\0at\\0aI\\0B\\0`, then for a commit with changes `\\nSTATUS\\0PATH\\0...`.
    A status token never looks like a sha (statuses are upper case), which is how a commit's paths end.
    Tokens are handled a chunk at a time with plain indexing: this loop runs for every path in history.
    """
    tokens: list[bytes] = []
    index = 0
    rest = b""
    fields: list[bytes] = []
    changes: list[Change] = []
    state = 0  # 0: want sha, 1..5: header fields, 6: status or next sha, 7: path, 8: second path (R/C)
    status = ""
    sha_match, status_match = SHA_TOKEN.match, STATUS_TOKEN.match

    def emit() -> LogCommit:
        sha, tree, parents, when, iso, message = fields
        return LogCommit(sha.decode(), tree.decode(), tuple(parents.decode().split()), int(when or b"0"),
                         iso.decode(), message.decode("utf-8", "replace"), tuple(changes))

    for chunk in itertools.chain(stream, [None]):
        if chunk is None:
            tokens, index = ([rest] if rest else []), 0
        else:
            tokens = (rest + chunk).split(b"\0")
            rest = tokens.pop()
            index = 0
        while index < len(tokens):
            token = tokens[index]
            index += 1
            if state == 6:
                stripped = token.lstrip(b"\n")
                if status_match(stripped) and not sha_match(token):
                    status, state = stripped[:1].decode(), (8 if stripped[:1] in (b"R", b"C") else 7)
                    continue
                yield emit()
                fields, changes, state = [], [], 0
            if state == 0:
                if not sha_match(token):
                    raise GitError(f"unexpected git log output near {token[:60]!r}")
                fields, state = [token], 1
            elif state < 6:
                fields.append(token)
                state += 1
            elif state == 8:
                state = 7
            else:
                changes.append(Change(status, decode_path(token)))
                state = 6
    if state >= 6:
        yield emit()


def iter_log(repo: Path, revs: list[str], *, merges: bool = True, since: str | None = None,
             until: str | None = None, started: subprocess.Popen[bytes] | None = None) -> Iterator[LogCommit]:
    """Stream the commits of revs from ONE git log process (started: that process, already running the same
    `log_command`); a git failure becomes a GitError."""
    proc = started
    if proc is None:
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
        code = proc.wait()
    if code != 0:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git log failed in {repo}: {lines[0] if lines else f'exit {code}'}")
