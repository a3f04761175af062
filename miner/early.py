"""Start the first pass's `git log` before the rest of the scan is even imported.

`miner scan` spends its first ~0.1 s loading its own modules; git can read history meanwhile. The command line
calls `start_log` with nothing but this small module loaded: for a scan of HEAD's whole history (a new corpus, or
`--full`) it starts the exact `git log` the first pass would, and the scan takes it over once it has computed its
range, or stops it when the range turns out different. Its output waits in the pipe (up to a megabyte) until the
first pass reads it.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from corpus.gitutil import run_git
from miner.gitbatch import batch_env, widen_pipe
from miner.gitlog import log_command

SCAN_STATE = "scan-state.yaml"
"""The corpus file where scans remember their tips (`miner.hygiene`)."""


def repository_facts(path: Path) -> tuple[Path, bool, str] | None:
    """(top level, shallow, HEAD's commit) of a work tree from one `git rev-parse`; None when anything is
    unusual (bare, empty, not a repository) and the careful checks must say what."""
    if not path.is_dir():
        return None
    proc = run_git(["rev-parse", "--is-bare-repository", "--is-shallow-repository", "--show-toplevel",
                    "--verify", "--quiet", "HEAD^{commit}"], path, check=False)
    lines = os.fsdecode(proc.stdout).splitlines()
    if proc.returncode != 0 or len(lines) != 4 or lines[0] != "false":
        return None
    return Path(lines[2]).resolve(), lines[1] == "true", lines[3]


@dataclass
class EarlyLog:
    """A `git log` of HEAD's history started ahead of the scan, and the repository facts it was started from."""

    path: Path
    """The --repo the user gave."""
    top: Path
    """Its top level."""
    shallow: bool
    """A shallow clone."""
    head: str
    """HEAD's commit: the log's only revision."""
    merges: bool
    """Whether the log includes merges."""
    proc: subprocess.Popen[bytes] | None
    """The running log, until taken or closed."""

    def take(self, revs: list[str], merges: bool, since: str | None, until: str | None) -> subprocess.Popen[bytes] | None:
        """The running log when it is the one the scan needs (the caller then owns it); else it is stopped."""
        proc, self.proc = self.proc, None
        if proc is not None and revs == [self.head] and merges == self.merges and since is None and until is None:
            return proc
        if proc is not None:
            _stop(proc)
        return None

    def close(self) -> None:
        """Stop the log if nobody took it."""
        proc, self.proc = self.proc, None
        if proc is not None:
            _stop(proc)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.wait()
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def start_log(repo: Path | None, corpus: Path, *, rev: str | None, since: str | None, until: str | None,
              full: bool, merges: bool) -> EarlyLog | None:
    """Start the first pass's log when the scan will walk HEAD's whole history; None otherwise."""
    if repo is None or rev or since or until or (not full and (corpus / SCAN_STATE).exists()):
        return None
    facts = repository_facts(repo)
    if facts is None:
        return None
    top, shallow, head = facts
    proc = subprocess.Popen(log_command([head], merges=merges, since=None, until=None), cwd=top,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=batch_env())
    widen_pipe(proc.stdout)
    return EarlyLog(repo, top, shallow, head, merges, proc)
