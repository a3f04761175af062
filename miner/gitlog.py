"""The first pass: one streaming `git log -z --raw` process over the whole range, parsed bytes-safe."""

from __future__ import annotations

import hashlib
import heapq
import io
import itertools
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from corpus.errors import GitError
from miner.gitbatch import GIT, batch_env, check_exit
from miner.pipes import widen_pipe

CHUNK = 1 << 20
HEX_START = frozenset(bytes([c]) for c in b"0123456789abcdef")
RENAME_OR_COPY = frozenset(b"RC")
MAX_PENDING = 1 << 26
"""An incomplete commit longer than this (64 MiB) is not git log output."""
# %H, %P, author and committer time (epoch), author date (ISO), raw message; each field NUL-terminated by -z/%x00.
LOG_FORMAT = "%H%x00%P%x00%at%x00%ct%x00%aI%x00%B"


# The records of the first pass are NamedTuples: immutable and typed like the frozen dataclasses elsewhere,
# and several times cheaper to build, which matters for every commit and path in history.
class Change(NamedTuple):
    """One changed path of a commit, as `--raw` reports it."""

    status: str
    """A (added), M (modified), D (deleted), T (type change), ..."""
    path: str
    """Repository path, decoded as UTF-8 with surrogateescape (so no byte is lost)."""


class LogCommit(NamedTuple):
    """A commit as the first pass sees it: identity, message and the paths it changed."""

    sha: str
    """Full sha."""
    parents: tuple[str, ...]
    """Parent shas; merges report their diff against the first."""
    author_time: int
    """Author date, seconds since the epoch."""
    commit_time: int
    """Committer date (when it landed), seconds since the epoch."""
    authored: str
    """Author date, ISO 8601."""
    message: str
    """Full message, decoded as UTF-8 with replacement characters for bad bytes."""
    changes: tuple[Change, ...]
    """Changed paths, against the first parent."""
    diff_key: bytes
    """A digest of the raw diff against the first parent (every path with its modes and blob ids, in git's
    order): equal keys, equal diffs, hence equal patches and patch ids."""

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


def log_command(revs: list[str], *, merges: bool, since: str | None, until: str | None,
                walk: bool = True) -> list[str]:
    """The git log invocation of the first pass (walk False: the commits named, and only those)."""
    cmd = [*GIT, "log", "-z", "--no-renames", "--raw", "--no-abbrev",
           "--no-ext-diff", "--no-textconv", "--diff-merges=first-parent", f"--format={LOG_FORMAT}"]
    if not walk:
        cmd.append("--no-walk")
    if not merges:
        cmd.append("--no-merges")
    if since:
        cmd.append(f"--since={since}")
    if until:
        cmd.append(f"--until={until}")
    return [*cmd, *revs, "--"]


COMMIT = re.compile(
    rb"([0-9a-f]{40}(?:[0-9a-f]{24})?)\0([0-9a-f ]*)\0(-?[0-9]*)\0(-?[0-9]*)\0([^\0]*)\0"
    rb"([^\0]*)\0((?:\n?:[0-7]+ [0-7]+ [0-9a-f]+ [0-9a-f]+ (?:[RC][0-9]*\0[^\0]*\0|[ADMTUXB][0-9]*\0)[^\0]*\0)*)")
"""One commit of `log_command`'s output: sha, parents, author and committer time, author date, message (each NUL-ended), then
its raw entries, `:MODE MODE OLD NEW STATUS\\0PATH\\0` (a rename or copy has two paths; the list starts on a
newline). An entry starts with a colon and a sha does not, so a commit's entries end where the next sha starts."""


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
            sha, parents, when, landed, iso, message, raw = found.groups()
            tokens = raw.split(b"\0")
            changes = []
            index, last = 0, len(tokens) - 1
            while index < last:
                meta = tokens[index]
                status = meta[meta.rfind(b" ") + 1]
                if status in RENAME_OR_COPY:
                    index += 1  # the old path of a rename or copy
                changes.append(Change(chr(status), decode_path(tokens[index + 1])))
                index += 2
            yield LogCommit(sha.decode(), tuple(parents.decode().split()), int(when or b"0"),
                            int(landed or b"0"), iso.decode(), message.decode("utf-8", "replace"), tuple(changes),
                            hashlib.blake2b(raw, digest_size=16).digest())
            position = found.end()
        buffer = buffer[position:]


def iter_log(repo: Path, revs: list[str], *, merges: bool = True, since: str | None = None,
             until: str | None = None, walk: bool = True) -> Iterator[LogCommit]:
    """Stream the commits of revs from ONE git log process (walk False: just the commits named); a git
    failure becomes a GitError."""
    cmd = log_command(revs, merges=merges, since=since, until=until, walk=walk)
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


class History:
    """The commit graph the first pass read (parents by sha), for finding a merge's branch commits without
    another git process."""

    def __init__(self) -> None:
        self.parents: dict[str, tuple[str, ...]] = {}
        """Sha -> parent shas, for every commit the log produced."""
        self._generation: dict[str, int] | None = None

    def add(self, commit: LogCommit) -> None:
        """Remember one commit's parents."""
        self.parents[commit.sha] = commit.parents

    def generation(self) -> dict[str, int]:
        """Every known commit's generation: 1 + its highest parent's (0 for a parent the log did not show),
        so a commit's generation is above each of its ancestors'. Computed once, on first use."""
        if self._generation is None:
            parents = self.parents
            done: dict[str, int] = {}
            for start in parents:
                if start in done:
                    continue
                stack = [start]
                while stack:
                    sha = stack[-1]
                    pending = [p for p in parents.get(sha, ()) if p in parents and p not in done]
                    if pending:
                        stack.extend(pending)
                        continue
                    stack.pop()
                    if sha not in done:
                        done[sha] = 1 + max((done.get(p, 0) for p in parents[sha]), default=0)
            self._generation = done
        return self._generation

    def branch_commits(self, merge: str) -> tuple[str, ...] | None:
        """What `git rev-list merge^2 ... ^merge^1` prints, oldest first: the commits the merge brought in.

        Walked newest generation first from every parent, each commit marked with the sides it is reachable
        from; a commit reachable from the other parents but not the first is a branch commit. None when the
        merge is unknown or the walk on the branch side leaves the commits the log showed (then only git
        knows)."""
        parents = self.parents.get(merge)
        if parents is None or len(parents) < 2:
            return None
        generation = self.generation()
        first, branch = 1, 2
        sides: dict[str, int] = {}
        heap: list[tuple[int, str]] = []

        def reach(sha: str, side: int) -> None:
            before = sides.get(sha, 0)
            if before | side != before:
                if before == 0:
                    heapq.heappush(heap, (-generation.get(sha, 0), sha))
                sides[sha] = before | side

        reach(parents[0], first)
        for parent in parents[1:]:
            reach(parent, branch)
        found: list[str] = []
        only_branch = sum(1 for side in sides.values() if side == branch)
        while heap and only_branch:
            _, sha = heapq.heappop(heap)
            side = sides[sha]
            if side == branch:
                only_branch -= 1
                if sha not in self.parents:
                    return None
                found.append(sha)
            for parent in self.parents.get(sha, ()):
                before = sides.get(parent, 0)
                reach(parent, side)
                after = sides[parent]
                only_branch += (after == branch) - (before == branch)
        return tuple(reversed(found))
