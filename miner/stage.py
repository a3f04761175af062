"""Write candidates in the background while the second pass still runs; rename them in at the end.

Which candidates a scan keeps (patch-id dedupe) and their final ids (a longer sha on a collision) are only
known once every commit is extracted, but their files are known as soon as each one is. Each is written into
one hidden staging area as it arrives, at `<area>/<fix sha>/`: `candidates/.candidates.scan-*` in an existing
corpus, `.<corpus name>.scan-*` beside a new one. At the end the kept ones are renamed into `candidates/<id>`
(case.yaml rewritten first in the rare case the final id differs) and the area, with any dropped candidate in
it, is removed. A reader never sees half a candidate, and the staging area is hidden (`Corpus.ids` skips
dot-directories).

The writing itself happens in a child process forked before the scan starts any thread: YAML emission and
thousands of file and directory creations then run beside the scan's Python and never contend for its
interpreter lock. Candidates reach it pickled through a pipe, written by a thread, so the scan never waits for
the child to read; once the scan is done, it writes the candidates still queued for the child itself, beside
it. The queue is bounded (MAX_BACKLOG): when the child lags that far behind, the scan writes the oldest queued
candidates itself there and then, so a candidate's files leave the scan's memory soon after it is staged
whatever the file system's speed. Where forking is not possible (no fork, or threads already running in the
host process), writer threads do the same work, as many candidates outstanding at most as MAX_OUTSTANDING.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import shutil
import signal
import struct
import sys
import tempfile
import threading
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING

from corpus.errors import HindcastError, UsageError, WriteError
from corpus.fsutil import write_error
from corpus.newcase import rewrite_case_file, write_files
from miner.candidate import Candidate
from miner.pipes import Pump, widen_pipe

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

    from corpus.model import Case, CaseFiles

THREADS = 2
"""Writer threads when no writer process can be forked."""
FRAME = struct.Struct("!Q")
WRITER_NICENESS = 5
"""The writer's work is needed only at the end, the scan's and git's all along: on busy cores they go first."""
OS_FAILURE = b"os:"
"""Marks the writer's report of an OSError (a full disk): its reason follows."""
MAX_BACKLOG = 32 << 20
"""Bytes of pickled candidates queued for the writer process beyond which the scan writes some itself."""
MAX_OUTSTANDING = 64
"""Candidates handed to the writer threads and not yet written beyond which staging waits for the oldest."""


def _write(directory: str, case: Case, files: CaseFiles) -> str:
    """One staged candidate: its directory and files."""
    os.mkdir(directory)
    write_files(directory, case, files)
    return directory


def _serve(read_fd: int, error_fd: int) -> None:
    """The writer process: write every (directory, case, files) that arrives; exit 0 at end of input."""
    code = 0
    try:
        with os.fdopen(read_fd, "rb", buffering=1 << 20) as stream:
            while header := stream.read(FRAME.size):
                payload = stream.read(FRAME.unpack(header)[0])
                _write(*pickle.loads(payload))
    except BaseException as error:  # noqa: BLE001 (everything is reported to the parent, nothing raised)
        report = str(error) or type(error).__name__
        if isinstance(error, OSError):
            report = OS_FAILURE.decode() + (error.strerror or report)
        os.write(error_fd, report.encode("utf-8", "replace")[:4000])
        code = 1
    os._exit(code)


class _WriterProcess:
    """A forked child writing staged candidates; the parent only pickles them into a pipe."""

    def __init__(self, where: Path) -> None:
        self.where = where
        read_fd, write_fd = os.pipe()
        self.error_fd, error_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: nothing of the parent's Python state is used past this call
            os.nice(WRITER_NICENESS)
            os.close(write_fd)
            os.close(self.error_fd)
            _serve(read_fd, error_write)
        os.close(read_fd)
        os.close(error_write)
        widen_pipe(write_fd)
        self.pipe = os.fdopen(write_fd, "wb", buffering=0)
        self.pump: Pump | None = None
        self.done = False
        self.failure: BaseException | None = None
        """The first failure of a write the scan did itself (reported by `finish`)."""

    def submit(self, directory: str, case: Case, files: CaseFiles) -> None:
        if self.pump is None:  # started on first use: the fork happened before any thread
            self.pump = Pump(self.pipe, "stage-feed")
        payload = pickle.dumps((directory, case, files), protocol=pickle.HIGHEST_PROTOCOL)
        self.pump.put(FRAME.pack(len(payload)) + payload)
        while self.pump.queued > MAX_BACKLOG and self.failure is None:
            if (item := self.pump.take_one()) is None:
                break
            self._write_here(item)

    def _write_here(self, item: bytes) -> None:
        """Write one queued candidate in the scan's own process; a failure is kept for `finish`."""
        try:
            _write(*pickle.loads(memoryview(item)[FRAME.size:]))
        except (OSError, HindcastError) as error:
            self.failure = error

    def finish(self) -> None:
        """Wait until everything submitted is written; a failure in the child becomes a HindcastError (a
        WriteError naming where the candidates go, for a full disk).

        The scan has nothing else to do by then, so it writes the candidates the child has not been handed
        yet itself, beside the child (which lags most where file creation is slow)."""
        if self.done:
            return
        for payload in self.pump.take() if self.pump is not None else ():
            if self.failure is not None:
                break
            self._write_here(payload)
        failure = self.failure
        self._end_input()
        _, status = os.waitpid(self.pid, 0)
        message = os.read(self.error_fd, 4096).decode("utf-8", "replace").strip()
        os.close(self.error_fd)
        if os.waitstatus_to_exitcode(status) != 0:
            if message.startswith(OS_FAILURE.decode()):
                raise WriteError(self.where, message.removeprefix(OS_FAILURE.decode()))
            raise HindcastError(f"writing candidates failed: {message or 'the writer process died'}")
        if isinstance(failure, OSError):
            raise write_error(failure, self.where)
        if failure is not None:
            raise HindcastError(f"writing candidates failed: {failure}")

    def abandon(self) -> None:
        """Stop without waiting for the rest (the staging area is being removed anyway)."""
        if self.done:
            return
        os.kill(self.pid, signal.SIGKILL)  # first: a pump blocked on the pipe then fails and ends
        self._end_input()
        os.waitpid(self.pid, 0)
        os.close(self.error_fd)

    def _end_input(self) -> None:
        """Everything handed over goes to the child (a write to a dead child just stops), then end of input."""
        self.done = True
        if self.pump is not None:
            self.pump.close()
        else:
            self.pipe.close()


def _can_fork() -> bool:
    return hasattr(os, "fork") and threading.active_count() == 1 and sys.platform != "darwin"


class Stager:
    """A staging area on the corpus's file system and the writer that fills it."""

    def __init__(self, beside: Path, name: str, where: Path) -> None:
        self.beside = beside
        self.name = name
        self.where = where
        """Where the candidates go (named when they cannot be written)."""
        self.area: Path | None = None
        self.made_beside = False
        self.unavailable = False
        self.process = _WriterProcess(where) if _can_fork() else None
        self.pool: ThreadPoolExecutor | None = None
        if self.process is None:
            from concurrent.futures import ThreadPoolExecutor  # the fallback only: it loads logging

            self.pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="stage")
        self.staged: dict[str, Case] = {}
        """Fix commit -> the case as staged in `<area>/<fix commit>` (its files are not kept)."""
        self.pending: deque[Future[str]] = deque()
        self.written = False

    def stage(self, candidate: Candidate) -> bool:
        """Start writing a candidate (keyed by its fix commit) in the background and say whether it was: when
        no staging area can be made there, nothing is staged and every candidate is written at the end
        instead. Once staged, the candidate's files are the writer's: the caller need not keep them."""
        if self.unavailable or candidate.files is None:
            return False
        if self.area is None:
            try:
                if not self.beside.is_dir():
                    self.beside.mkdir()
                    self.made_beside = True
                self.area = Path(tempfile.mkdtemp(prefix=f".{self.name}.scan-", suffix=".staging",
                                                  dir=self.beside))
            except OSError:
                self.unavailable = True
                return False
        sha = candidate.case.fix_commit
        directory = f"{self.area}/{sha}"
        if self.process is not None:
            self.process.submit(directory, candidate.case, candidate.files)
        else:
            assert self.pool is not None
            while len(self.pending) >= MAX_OUTSTANDING:
                self._written(self.pending.popleft())
            self.pending.append(self.pool.submit(_write, directory, candidate.case, candidate.files))
        self.staged[sha] = candidate.case
        return True

    def is_staged(self, sha: str) -> bool:
        """Whether the candidate of a fix commit was staged."""
        return sha in self.staged

    def _written(self, future: Future[str]) -> None:
        """Wait for one writer thread's write; a full disk becomes a WriteError naming where candidates go."""
        try:
            future.result()
        except OSError as error:
            raise write_error(error, self.where) from error

    def wait(self) -> None:
        """Wait until every staged candidate is written; a failure becomes an error here (a full disk: a
        WriteError naming where the candidates go)."""
        if self.process is not None and not self.written:
            self.process.finish()
        while self.pending:
            self._written(self.pending.popleft())
        self.written = True

    def publish(self, candidate: Candidate, parent: Path) -> Path:
        """Rename a staged candidate to parent/<id> once every staged one is written; its case.yaml is
        rewritten first if it changed."""
        staged = self.staged.pop(candidate.case.fix_commit)
        directory = f"{self.area}/{candidate.case.fix_commit}"
        self.wait()
        if candidate.case is not staged and candidate.case != staged:
            rewrite_case_file(directory, candidate.case)
        target = parent / candidate.case.id
        if target.exists():
            raise UsageError(f"{target}: already exists; nothing was written")
        try:
            os.rename(directory, target)
        except OSError as error:
            raise write_error(error, target) from error
        return target

    def close(self) -> None:
        """Wait for the writers and remove the staging area with whatever was not published."""
        if self.process is not None:
            self.process.abandon()
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        if self.area is not None:
            shutil.rmtree(self.area, ignore_errors=True)
            self.area = None
        if self.made_beside:
            with contextlib.suppress(OSError):
                self.beside.rmdir()  # only when nothing was published into it
