"""The first pass: one streaming `git log -z --name-status` process over the whole range, parsed bytes-safe."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from corpus.errors import GitError
from corpus.gitutil import git_env

CHUNK = 1 << 20
SHA_TOKEN = re.compile(rb"^[0-9a-f]{40}([0-9a-f]{24})?$")
STATUS_TOKEN = re.compile(rb"^[ACDMRTUXB][0-9]*$")
# %H, %P, author time (epoch), author date (ISO), raw message; each field NUL-terminated by -z/%x00.
LOG_FORMAT = "%H%x00%P%x00%at%x00%aI%x00%B"


@dataclass(frozen=True)
class Change:
    """One changed path of a commit, as `--name-status` reports it."""

    status: str
    """A (added), M (modified), D (deleted), T (type change), ..."""
    path: str
    """Repository path, decoded as UTF-8 with surrogateescape (so no byte is lost)."""


@dataclass(frozen=True)
class LogCommit:
    """A commit as the first pass sees it: identity, message and the paths it changed."""

    sha: str
    """Full sha."""
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


def _tokens(stream: Iterator[bytes]) -> Iterator[bytes]:
    """NUL-separated tokens of a byte stream read in chunks."""
    rest = b""
    for chunk in stream:
        parts = (rest + chunk).split(b"\0")
        rest = parts.pop()
        yield from parts
    if rest:
        yield rest


def parse_log(stream: Iterator[bytes]) -> Iterator[LogCommit]:
    """Parse the output of `log_command`, one commit at a time.

    Layout per commit: `H\\0P\\0at\\0aI\\0B\\0`, then for a commit with changes `\\nSTATUS\\0PATH\\0...`.
    A status token never looks like a sha (statuses are upper case), which is how a commit's paths end.
    """
    tokens = _tokens(stream)
    pending: bytes | None = next(tokens, None)
    while pending is not None:
        sha = pending
        if not SHA_TOKEN.match(sha):
            raise GitError(f"unexpected git log output near {sha[:60]!r}")
        parents, when, iso, message = (next(tokens, b"") for _ in range(4))
        changes: list[Change] = []
        pending = next(tokens, None)
        while pending is not None:
            status = pending.lstrip(b"\n")
            if not STATUS_TOKEN.match(status) or SHA_TOKEN.match(pending):
                break
            paths = [next(tokens, b"")]
            if status[:1] in (b"R", b"C"):
                paths.append(next(tokens, b""))
            changes.append(Change(status[:1].decode(), decode_path(paths[-1])))
            pending = next(tokens, None)
        yield LogCommit(
            sha=sha.decode(),
            parents=tuple(parents.decode().split()),
            author_time=int(when or b"0"),
            authored=iso.decode(),
            message=message.decode("utf-8", "replace"),
            changes=tuple(changes),
        )


def iter_log(repo: Path, revs: list[str], *, merges: bool = True, since: str | None = None,
             until: str | None = None) -> Iterator[LogCommit]:
    """Stream the commits of revs from ONE git log process; a git failure becomes a GitError."""
    cmd = log_command(revs, merges=merges, since=since, until=until)
    proc = subprocess.Popen(cmd, cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=git_env())
    assert proc.stdout is not None and proc.stderr is not None
    try:
        yield from parse_log(iter(lambda: proc.stdout.read(CHUNK), b""))  # type: ignore[union-attr]
    finally:
        proc.stdout.close()
        err = proc.stderr.read()
        code = proc.wait()
    if code != 0:
        lines = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git log failed in {repo}: {lines[0] if lines else f'exit {code}'}")
