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
interpreter lock. So does each candidate's environment inference (`miner.environment`: its base's build files
read and parsed), which only the written case.yaml and the end of the scan need: the child works it out with
its own `Inference`, writes it into case.yaml and reports it back, and `settled` puts it in the candidate. Candidates reach it pickled through a pipe, written by a thread, so the scan never waits for
the child to read; once the scan is done, it writes the candidates still queued for the child itself, beside
it. The queue is bounded (MAX_BACKLOG): when the child lags that far behind, the scan writes the oldest queued
candidates itself there and then, so a candidate's files leave the scan's memory soon after it is staged
whatever the file system's speed. Where forking is not possible (no fork, or threads already running in the
host process), writer threads do the same work, as many candidates outstanding at most as MAX_OUTSTANDING.
"""

from __future__ import annotations

import os
import pickle
import shutil
import signal
import struct
import sys
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING

from corpus.errors import HindcastError, UsageError, WriteError
from corpus.fsutil import write_error
from corpus.newcase import rewrite_case_file, write_files
from miner.candidate import Candidate, with_environment
from miner.environment import Environment, Inference
from miner.gitbatch import Pump, widen_pipe

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
HINDCAST_FAILURE = b"hindcast:"
"""Marks the writer's report of a HindcastError (a git failure while inferring an environment): the error's
class name, a colon and its message follow, and the scan raises the same."""
EXPECT = "expect"
"""A message to the writer: the bases whose environments will be asked for, in order (read ahead)."""
MAX_BACKLOG = 32 << 20
"""Bytes of pickled candidates queued for the writer process beyond which the scan writes some itself."""
MAX_OUTSTANDING = 64
"""Candidates handed to the writer threads and not yet written beyond which staging waits for the oldest."""


Setting = tuple[str, tuple[str, ...]]
"""What a candidate's environment is inferred from: its base commit and the languages of its tests (see
`scan.setting_of`)."""


def _write(directory: str, case: Case, files: CaseFiles) -> str:
    """One staged candidate: its directory and files."""
    os.mkdir(directory)
    write_files(directory, case, files)
    return directory


class _Settle:
    """Environments inferred where a candidate is written, by one `Inference` made on first use."""

    def __init__(self, make: Callable[[], Inference] | None) -> None:
        self.make = make
        self.inference: Inference | None = None

    def expect(self, bases: Iterable[str]) -> None:
        self._inference().expect(bases)

    def settle(self, case: Case, setting: Setting | None) -> tuple[Case, Environment | None]:
        """The case with the environment of its setting, and that environment (None without a setting)."""
        if setting is None:
            return case, None
        environment = self._inference().environment(*setting)
        return with_environment(case, environment), environment

    def _inference(self) -> Inference:
        if self.inference is None:
            assert self.make is not None, "a setting was staged without a way to infer environments"
            self.inference = self.make()
        return self.inference

    def close(self) -> None:
        if self.inference is not None:
            self.inference.close()
            self.inference = None


def _serve(read_fd: int, error_fd: int, report: IO[bytes], make: Callable[[], Inference] | None) -> None:
    """The writer process: settle and write every (directory, case, files, setting) that arrives, reporting each
    environment inferred (fix commit, environment) to report; exit 0 at end of input."""
    code = 0
    settle = _Settle(make)
    try:
        with os.fdopen(read_fd, "rb", buffering=1 << 20) as stream:
            while header := stream.read(FRAME.size):
                message = pickle.loads(stream.read(FRAME.unpack(header)[0]))
                if message[0] == EXPECT:
                    settle.expect(message[1])
                    continue
                directory, case, files, setting = message
                case, environment = settle.settle(case, setting)
                _write(directory, case, files)
                if environment is not None:
                    pickle.dump((case.fix_commit, environment), report, protocol=pickle.HIGHEST_PROTOCOL)
        settle.close()
        report.flush()
    except BaseException as error:  # noqa: BLE001 (everything is reported to the parent, nothing raised)
        text = str(error) or type(error).__name__
        if isinstance(error, OSError):
            text = OS_FAILURE.decode() + (error.strerror or text)
        elif isinstance(error, HindcastError):
            text = f"{HINDCAST_FAILURE.decode()}{type(error).__name__}:{text}"
        os.write(error_fd, text.encode("utf-8", "replace")[:4000])
        code = 1
    os._exit(code)


def _raise_reported(message: str) -> None:
    """Raise, in the scan, the HindcastError the writer reported (the same class where it is one we know)."""
    name, _, text = message.removeprefix(HINDCAST_FAILURE.decode()).partition(":")
    kinds = {kind.__name__: kind for kind in _hindcast_errors(HindcastError)}
    kind = kinds.get(name, HindcastError)
    error = kind.__new__(kind)
    HindcastError.__init__(error, text)
    raise error


def _hindcast_errors(kind: type[HindcastError]) -> list[type[HindcastError]]:
    return [kind, *(sub for child in kind.__subclasses__() for sub in _hindcast_errors(child))]


class _WriterProcess:
    """A forked child writing staged candidates; the parent only pickles them into a pipe."""

    def __init__(self, where: Path, settle: _Settle) -> None:
        self.where = where
        self.settle = settle
        """Environments of the candidates the scan writes itself."""
        self.environments: dict[str, Environment] = {}
        """Fix commit -> the environment inferred for its candidate, once `finish` has returned."""
        self.report = tempfile.TemporaryFile()  # noqa: SIM115 (closed in finish and abandon)
        read_fd, write_fd = os.pipe()
        self.error_fd, error_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: nothing of the parent's Python state is used past this call
            os.nice(WRITER_NICENESS)
            os.close(write_fd)
            os.close(self.error_fd)
            _serve(read_fd, error_write, self.report, settle.make)
        os.close(read_fd)
        os.close(error_write)
        widen_pipe(write_fd)
        self.pipe = os.fdopen(write_fd, "wb", buffering=0)
        self.pump: Pump | None = None
        self.done = False
        self.failure: BaseException | None = None
        """The first failure of a write the scan did itself (reported by `finish`)."""

    def submit(self, directory: str, case: Case, files: CaseFiles, setting: Setting | None) -> None:
        self._send((directory, case, files, setting))
        while self.pump is not None and self.pump.queued > MAX_BACKLOG and self.failure is None:
            if (item := self.pump.take_one()) is None:
                break
            self._write_here(item)

    def expect(self, bases: list[str]) -> None:
        self._send((EXPECT, bases))

    def _send(self, message: tuple[object, ...]) -> None:
        if self.pump is None:  # started on first use: the fork happened before any thread
            self.pump = Pump(self.pipe, "stage-feed")
        payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        self.pump.put(FRAME.pack(len(payload)) + payload)

    def _write_here(self, item: bytes) -> None:
        """Write one queued candidate in the scan's own process; a failure is kept for `finish`."""
        message = pickle.loads(memoryview(item)[FRAME.size:])
        if message[0] == EXPECT:  # the child reads ahead for what it is handed, not for this
            return
        directory, case, files, setting = message
        try:
            case, environment = self.settle.settle(case, setting)
            _write(directory, case, files)
        except (OSError, HindcastError) as error:
            self.failure = error
            return
        if environment is not None:
            self.environments[case.fix_commit] = environment

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
            self.report.close()
            if message.startswith(OS_FAILURE.decode()):
                raise WriteError(self.where, message.removeprefix(OS_FAILURE.decode()))
            if message.startswith(HINDCAST_FAILURE.decode()):
                _raise_reported(message)
            raise HindcastError(f"writing candidates failed: {message or 'the writer process died'}")
        self._read_report()
        if isinstance(failure, OSError):
            raise write_error(failure, self.where)
        if failure is not None:
            raise HindcastError(f"writing candidates failed: {failure}")

    def _read_report(self) -> None:
        """The environments the child inferred, from its report."""
        report = self.report
        report.seek(0)
        with report:
            while True:
                try:
                    sha, environment = pickle.load(report)
                except EOFError:
                    break
                self.environments[sha] = environment

    def abandon(self) -> None:
        """Stop without waiting for the rest (the staging area is being removed anyway)."""
        if self.done:
            return
        os.kill(self.pid, signal.SIGKILL)  # first: a pump blocked on the pipe then fails and ends
        self._end_input()
        os.waitpid(self.pid, 0)
        os.close(self.error_fd)
        self.report.close()

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
    """A staging area on the corpus's file system and the writer that fills it.

    environments makes the `Inference` of the candidates staged with a setting: called in the writer process,
    and in the scan's own for the candidates it writes or settles itself."""

    def __init__(self, beside: Path, name: str, where: Path,
                 environments: Callable[[], Inference] | None = None) -> None:
        self.beside = beside
        self.name = name
        self.where = where
        """Where the candidates go (named when they cannot be written)."""
        self.area: Path | None = None
        self.made_beside = False
        self.unavailable = False
        self.settle = _Settle(environments)
        self.process = _WriterProcess(where, self.settle) if _can_fork() else None
        self.pool: ThreadPoolExecutor | None = None
        if self.process is None:
            from concurrent.futures import ThreadPoolExecutor  # the fallback only: it loads logging

            self.pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="stage")
        self.staged: dict[str, Case] = {}
        """Fix commit -> the case as staged in `<area>/<fix commit>` (its files are not kept), once settled
        with its environment."""
        self.environments: dict[str, Environment] = {}
        """Fix commit -> the environment of a candidate staged with a setting and settled here (no process)."""
        self.pending: deque[Future[str]] = deque()
        self.written = False

    def stage(self, candidate: Candidate, setting: Setting | None = None) -> bool:
        """Start writing a candidate (keyed by its fix commit) in the background and say whether it was: when
        no staging area can be made there, nothing is staged and every candidate is written at the end
        instead. Once staged, the candidate's files are the writer's: the caller need not keep them.

        setting: the candidate has no environment yet; the writer infers it from this, and `settled` gives
        the candidate with it."""
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
        case = candidate.case
        if self.process is not None:
            self.process.submit(directory, case, candidate.files, setting)
        else:
            assert self.pool is not None
            case, environment = self.settle.settle(case, setting)
            if environment is not None:
                self.environments[sha] = environment
            while len(self.pending) >= MAX_OUTSTANDING:
                self._written(self.pending.popleft())
            self.pending.append(self.pool.submit(_write, directory, case, candidate.files))
        self.staged[sha] = case
        return True

    def expect(self, bases: Iterable[str]) -> None:
        """The bases of the settings to come, in order: their build files are read ahead where they are."""
        if self.process is not None:
            self.process.expect(list(bases))
        else:
            self.settle.expect(bases)

    def environment(self, setting: Setting) -> Environment:
        """The environment of a setting, inferred in the scan's own process (a candidate not staged)."""
        return self.settle._inference().environment(*setting)

    def settled(self, candidate: Candidate) -> Candidate:
        """A staged candidate with the environment its writer inferred (itself when it was staged with one);
        waits for every staged candidate to be written."""
        self.wait()
        sha = candidate.case.fix_commit
        environments = self.process.environments if self.process is not None else self.environments
        environment = environments.get(sha)
        if environment is None:
            return candidate
        settled = with_environment(candidate.case, environment)
        self.staged[sha] = settled
        return replace(candidate, case=settled)

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
        self.settle.close()
        if self.process is not None:
            self.process.abandon()
        if self.pool is not None:
            self.pool.shutdown(wait=True)
        if self.area is not None:
            shutil.rmtree(self.area, ignore_errors=True)
            self.area = None
        if self.made_beside:
            try:
                self.beside.rmdir()  # only when nothing was published into it
            except OSError:
                pass
