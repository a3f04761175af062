"""Batched git processes for the second pass: one diff-tree, one patch-id and one cat-file for many commits."""

from __future__ import annotations

import io
import re
import signal
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO

from corpus.errors import GitError
from corpus.gitutil import GIT as GIT_EXECUTABLE
from corpus.gitutil import ISOLATED_CONFIG, git_env
from corpus.patchid import PATCH_DIFF_OPTIONS, PATCH_ID_COMMAND
from miner.filediff import FileDiff, split_sections
from miner.pipes import Pump, widen_pipe

GIT = [GIT_EXECUTABLE, *ISOLATED_CONFIG, "-c", "core.quotePath=false"]
DELTA_CACHE = ("-c", "core.deltaBaseCacheLimit=32m")
"""For the processes that read blobs (diff-tree, cat-file): git's default delta base cache (96 MiB) made
diff-tree the scan's largest process; a third of it costs no measurable CPU over a whole history (pytest's:
the same user time at 32 MiB as at 96 MiB, 65 MiB less resident)."""
DIFF_OPTIONS = PATCH_DIFF_OPTIONS  # the scan reads the very diffs its patch ids are taken from
# A commit's header in diff-tree --stdin output: its sha alone on a line (no diff line can look like that). The
# newline after it is looked ahead at, not taken, since the next header may start with it (an empty diff).
# Patterns start with a literal newline so the regex engine can skip ahead quickly.
HEADER = re.compile(rb"\n([0-9a-f]{40}(?:[0-9a-f]{24})?)(?=\n)")
CHUNK = 1 << 20
# glibc hands blocks over 128 KiB back to the kernel on free, and git allocates and frees a buffer per blob:
# every blob would pay fresh page faults. Kept because it still pays (diff-tree is most of a scan's git work);
# keeping freed memory in the heap is glibc's own tunable, and peak memory does not change.
MALLOC_TUNABLES = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=67108864"


def batch_env() -> dict[str, str]:
    """The environment for the long-running batch git processes: `git_env`, and malloc tuned for them."""
    env = git_env()
    tunables = env.get("GLIBC_TUNABLES")
    env["GLIBC_TUNABLES"] = f"{tunables}:{MALLOC_TUNABLES}" if tunables else MALLOC_TUNABLES
    return env


def check_exit(proc: subprocess.Popen[bytes], what: str, repo: Path, stderr: bytes) -> None:
    """A git process that failed becomes a GitError naming it and the first line it printed."""
    if proc.returncode not in (0, None):
        lines = stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git {what} failed in {repo}: {lines[0] if lines else f'exit {proc.returncode}'}")


class DiffTree:
    """ONE `git diff-tree --stdin` process that (fix, base) pairs can be added to while it already runs.

    Pairs go to git through a `Pump`, so adding never blocks, and git computes diffs while the caller is
    still finding the next pairs, even while `results` is being read. `results` yields (fix sha, file
    sections) in the order added, every pair once (no sections for an empty diff). Every commit's patch is
    also fed to one `git patch-id --stable`; the map patch_ids (fix sha -> patch id) is filled in when
    `results` ends.
    """

    def __init__(self, repo: Path, patch_ids: dict[str, str]) -> None:
        self.repo = repo
        self.patch_ids = patch_ids
        self.wanted: set[bytes] = set()
        self.last: str | None = None
        self.repeats: set[bytes] = set()
        """Shas asked for again by `flush`, whose next answer is not yielded."""
        self.eof = False
        # --always: an empty diff is answered too (its header alone), so every pair added gets an answer.
        self.proc = subprocess.Popen([*GIT, *DELTA_CACHE, "diff-tree", "--stdin", "--always", *DIFF_OPTIONS],
                                     cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env=batch_env())
        assert self.proc.stdin is not None
        widen_pipe(self.proc.stdout)
        self.feed = Pump(self.proc.stdin, "diff-tree-feed")
        self.ids_out = tempfile.TemporaryFile()  # noqa: SIM115 (closed below)
        self.pid_proc = subprocess.Popen([*GIT, *PATCH_ID_COMMAND], cwd=repo, stdin=subprocess.PIPE,
                                         stdout=self.ids_out, stderr=subprocess.DEVNULL, env=batch_env())
        assert self.pid_proc.stdin is not None
        widen_pipe(self.pid_proc.stdin)
        # patch-id gets the diffs from a thread: the scan never waits for it to read.
        self.pid_feed = Pump(self.pid_proc.stdin, "patch-id-feed")

    def add(self, fix: str, base: str) -> None:
        """Ask for the diff of fix against base."""
        self.wanted.add(fix.encode())
        self.last = fix
        self.feed.put(f"{fix} {base}\n".encode())

    def flush(self) -> None:
        """Let `results` yield every pair asked for so far without waiting for more: an answer ends where the
        next begins, so the last commit is asked for again, against itself (an empty diff: a header alone,
        which patch-id ignores); that repeat is not yielded."""
        if self.last is not None:
            self.repeats.add(self.last.encode())
            self.feed.put(f"{self.last} {self.last}\n".encode())
            self.last = None

    def close_input(self) -> None:
        """No more pairs: git finishes the ones it has, and `results` ends after them."""
        self.feed.end()

    def results(self) -> Iterator[tuple[str, list[FileDiff]]]:
        """(fix sha, file sections) for every pair added, as git produces them (pairs may still be added);
        it ends once `close_input` was called and git has answered every pair."""
        proc, pid_feed, wanted = self.proc, self.pid_feed, self.wanted
        assert isinstance(proc.stdout, io.BufferedReader) and proc.stderr is not None
        pending = b"\n"  # every header, the first included, then follows a newline
        sha: bytes | None = None
        answered: set[bytes] = set()
        try:
            while True:
                chunk = proc.stdout.read1(CHUNK)
                self.eof = not chunk
                if chunk:
                    pid_feed.put(chunk)
                pending += chunk
                cut = 0
                for match in HEADER.finditer(pending):
                    if match.group(1) not in wanted:
                        continue
                    if sha is not None:
                        yield sha.decode(), split_sections(pending[cut:match.start() + 1])
                    sha, cut = match.group(1), match.end() + 1
                    if sha in answered and sha in self.repeats:  # a flush's repeat: an empty answer
                        self.repeats.discard(sha)
                        sha = None
                    else:
                        answered.add(sha)
                # Keep the newline before the cut: the next header may start right there.
                pending = pending[max(cut - 1, 0):] if cut else pending
                if not chunk:
                    break
            if sha is not None:
                yield sha.decode(), split_sections(pending[1:] if pending.startswith(b"\n") else pending)
        finally:
            stderr = self.close()
        check_exit(proc, "diff-tree", self.repo, stderr)
        self.ids_out.seek(0)
        for row in self.ids_out.read().decode().splitlines():
            parts = row.split()
            if len(parts) == 2:
                self.patch_ids[parts[1]] = parts[0]
        self.ids_out.close()

    def close(self) -> bytes:
        """Stop everything (a no-op once done); returns diff-tree's stderr."""
        if self.proc.returncode is not None:
            return b""
        self.feed.end()
        assert self.proc.stdout is not None and self.proc.stderr is not None
        if not self.eof:
            # Stopped before the end: git must not block on a full pipe.
            self.proc.kill()
        self.proc.stdout.close()
        stderr = self.proc.stderr.read()
        self.proc.wait()
        self.feed.close()
        self.pid_feed.close()  # closes patch-id's input: it finishes
        self.pid_proc.wait()
        if not self.eof:
            self.ids_out.close()
        return stderr


def patch_ids_of(repo: Path, pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """`git patch-id --stable` of each (fix, base) diff, by fix sha (one diff-tree and one patch-id)."""
    ids: dict[str, str] = {}
    tree = DiffTree(repo, ids)
    try:
        for fix, base in pairs:
            tree.add(fix, base)
        tree.close_input()
        for _ in tree.results():
            pass
    finally:
        tree.close()
    return ids


def _request(names: Iterable[str]) -> bytes:
    """cat-file --batch's input for names (object ids or `rev:path`), one a line."""
    return b"".join(name.encode("utf-8", "surrogateescape") + b"\n" for name in names)


def _answers(stdout: IO[bytes], names: list[str]) -> dict[str, tuple[str, bytes] | None]:
    """cat-file --batch's answers to names, read in order: (type, content), or None when missing; fewer when
    its output ended first."""
    out: dict[str, tuple[str, bytes] | None] = {}
    for name in names:
        header = stdout.readline()
        if not header:
            break
        fields = header.split()
        if len(fields) == 3 and not header.rstrip().endswith((b" missing", b" ambiguous")):
            content = stdout.read(int(fields[2]))
            stdout.read(1)
            out[name] = (fields[1].decode(), content)
        else:
            out[name] = None
    return out


class CatFile:
    """One long-lived `git cat-file --batch`, asked for a few objects at a time as the second pass goes."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.proc = subprocess.Popen([*GIT, *DELTA_CACHE, "cat-file", "--batch"], cwd=repo, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=batch_env())
        widen_pipe(self.proc.stdout)
        widen_pipe(self.proc.stdin)

    def request(self, names: Iterable[str]) -> list[str]:
        """Ask for objects without waiting; `collect` the returned names later, requests in order.

        Requests are small and the pipe to git is widened, so a few groups can be outstanding while git
        writes the answers to an earlier one (thousands of names before a write could block).
        """
        wanted = list(dict.fromkeys(names))
        stdin = self.proc.stdin
        assert stdin is not None
        if wanted:
            stdin.write(_request(wanted))
            stdin.flush()
        return wanted

    def collect(self, names: list[str]) -> dict[str, tuple[str, bytes] | None]:
        """The answers to one `request`, read in order."""
        assert self.proc.stdout is not None
        out = _answers(self.proc.stdout, names)
        if len(out) < len(names):
            self.close()
            raise GitError(f"git cat-file stopped answering in {self.repo}")
        return out

    def close(self) -> None:
        """End the process; a failure becomes a GitError. Answers still unread are dropped: git dying of
        SIGPIPE on them is not a failure (a scan that stops early must report why it stopped, not this)."""
        if self.proc.returncode is not None:
            return
        assert self.proc.stdin is not None and self.proc.stdout is not None and self.proc.stderr is not None
        self.proc.stdin.close()
        self.proc.stdout.close()
        stderr = self.proc.stderr.read()
        self.proc.wait()
        if self.proc.returncode != -signal.SIGPIPE:
            check_exit(self.proc, "cat-file", self.repo, stderr)


def cat_objects(repo: Path, names: Iterable[str]) -> dict[str, tuple[str, bytes] | None]:
    """(type, content) of many objects (ids or `rev:path` names) from ONE `git cat-file --batch`; None if
    missing. The names are fed by a thread: git answers while it is still being asked."""
    names = list(dict.fromkeys(names))
    if not names:
        return {}
    proc = subprocess.Popen([*GIT, *DELTA_CACHE, "cat-file", "--batch"], cwd=repo, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=batch_env())
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    feed = Pump(proc.stdin, "cat-file-feed")
    feed.put(_request(names))
    feed.end()
    try:
        out = _answers(proc.stdout, names)
    finally:
        proc.stdout.close()
        stderr = proc.stderr.read()
        proc.wait()
        feed.close()
    check_exit(proc, "cat-file", repo, stderr)
    return out


def only_blobs(found: dict[str, tuple[str, bytes] | None]) -> dict[str, bytes | None]:
    """Contents by name of the objects that are blobs; None for the rest."""
    return {name: item[1] if item and item[0] == "blob" else None for name, item in found.items()}


def first_parents(repo: Path, shas: Iterable[str]) -> dict[str, str]:
    """First parent of each commit that exists and has one (one cat-file process)."""
    out: dict[str, str] = {}
    for sha, found in cat_objects(repo, shas).items():
        if found and found[0] == "commit":
            for line in found[1].split(b"\n"):
                if line.startswith(b"parent "):
                    out[sha] = line[7:].decode()
                    break
                if not line:
                    break
    return out


def rev_list_branch(repo: Path, parents: tuple[str, ...]) -> tuple[str, ...]:
    """`git rev-list P2 ... ^P1`, oldest first: the commits a merge of these parents brought in."""
    proc = subprocess.run([*GIT, "rev-list", "--topo-order", "--reverse", *parents[1:], f"^{parents[0]}", "--"],
                          cwd=repo, capture_output=True, env=git_env(), check=False)
    if proc.returncode != 0:
        lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(f"git rev-list failed in {repo}: {lines[0] if lines else f'exit {proc.returncode}'}")
    return tuple(proc.stdout.decode().split())
