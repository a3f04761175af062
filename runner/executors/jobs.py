"""What an executor runs: jobs, each run on a node (this machine, or a Ray worker) into a folder of its own that the
executor publishes at the job's target on this machine, atomically; and the loop that hands a command's jobs to an
executor as its slots free up.

A trial and a verify attempt are both jobs. Nothing here knows either: a job says what it is called, which
commits of the source repository it reads, where its folder goes, how it runs and what it is when it cannot run.
"""

from __future__ import annotations

import shutil
import threading
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, TypeVar

from corpus.fsutil import remove_tree, replace_directory, staging_directory, writing
from runner.envs.cache import EnvCache
from runner.grading.assets import AssetCache
from runner.sandbox.confine import Confinement

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)


HARNESS_ERROR = "harness-error.txt"
"""A job's folder's record of a failure of the harness itself: the traceback behind an `error: harness: ...`."""


def harness_error(exc: BaseException, out: Path) -> str:
    """The reason of a job the harness failed (`harness: TypeError: ...`), its traceback written to out's
    HARNESS_ERROR (where out is still there to write to)."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        (out / HARNESS_ERROR).write_text("".join(traceback.format_exception(exc)), encoding="utf-8")
    except OSError:  # the reason still says what failed; the folder is the job's, a full disk stops elsewhere
        pass
    return f"harness: {type(exc).__name__}: {exc}"


def _remove(path: Path) -> None:
    remove_tree(path)


def _unheard(name: str, step: str) -> None:
    """Steps nobody listens to (a Ray worker's)."""


@dataclass(frozen=True)
class Node:
    """Where a job runs: the source repository there and what is checked, opened and built there."""

    repo: Path
    """The source repository (the driver's, or on a Ray worker the one made from the case's pack)."""
    assets: AssetCache
    """Each case's template, pristine checkout and test configuration, built once on this node."""
    confinement: Confinement
    """The sandbox, checked on this node (its bubblewrap, the binds), hiding this node's own directories."""
    env_cache: EnvCache | None = None
    """The environment cache on this node (None: every setup runs afresh)."""
    scratch: Path | None = None
    """Where jobs make their scratch directories (None: the system temp dir)."""
    hide: tuple[str, ...] = ()
    """Paths of this node no variable of an agent's environment may name (a worker's own directory)."""
    cancel: threading.Event = field(default_factory=threading.Event)
    """Set when the jobs are cancelled; a job checks it between its steps and then ends without a value."""
    discard: Callable[[Path], None] = _remove
    """Removes a job's scratch directory, at any depth (on the driver, a background thread does, and the
    command reports what it could not remove; elsewhere an OSError)."""
    step: Callable[[str, str], None] = _unheard
    """Told a job's name and each step it starts (`environment`, `setup`, ...) as it starts it, from the job's
    thread (a command's progress; on a Ray worker nobody listens)."""


class Janitor:
    """Removes scratch directories in a background thread, and keeps what it could not remove for the command to
    report (a leftover scratch can hold a case's materialized hidden tests)."""

    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hindcast-janitor")
        self._lock = threading.Lock()
        self.failures: list[str] = []
        """`PATH: reason` of each directory not removed."""

    def discard(self, path: Path) -> None:
        """Remove path soon (Node.discard)."""
        self._pool.submit(self._remove, path)

    def _remove(self, path: Path) -> None:
        try:
            remove_tree(path)
        except OSError as exc:
            with self._lock:
                self.failures.append(f"{path}: {exc.strerror or exc}")

    def close(self, *also: Path) -> list[str]:
        """Wait for the removals, remove also (now), and return every failure."""
        self._pool.shutdown(wait=True)
        for path in also:
            self._remove(path)
        return list(self.failures)


def not_removed(failures: list[str]) -> list[str]:
    """The warnings of a command's scratch directories it could not remove."""
    return [f"scratch not removed: {failure}" for failure in failures]


class Job(Protocol[T_co]):
    """One unit of work: its name, what of the source repository it reads, where its folder is published, how it
    runs on a node and what it is when it cannot run there."""

    @property
    def name(self) -> str:
        """How messages and Ray's list of tasks name it (`fixer::calc-add #2`)."""

    @property
    def what(self) -> str:
        """What it is, in the reason of an error (`trial`, `attempt`)."""

    @property
    def commits(self) -> tuple[str, str]:
        """The base and fix commits it reads of the source repository (all a Ray worker receives of it)."""

    @property
    def target(self) -> Path:
        """Where its folder is published on this machine."""

    def run(self, node: Node, out: Path) -> T_co | None:
        """Run on node, writing its folder into out (an empty directory); its value, None when cancelled."""

    def failed(self, reason: str, seconds: float, out: Path) -> T_co:
        """What it is, with its folder written into out, when it could not run: an error with reason, never a
        fail (seconds: how long it was tried)."""


class Executor(Protocol[T]):
    """What a command hands its jobs to: submit, wait for some to end, take their published values, cancel, close."""

    def slots(self, jobs: int) -> int:
        """How many jobs to keep in flight, given --jobs."""

    def submit(self, job: Job[T]) -> Any:
        """Start one job; a handle for wait and result."""

    def wait(self, pending: set[Any]) -> set[Any]:
        """The handles among pending whose jobs ended for good (blocks until at least one)."""

    def result(self, handle: Any) -> T | None:
        """A finished job's value, its folder published; None when it was cancelled (nothing published)."""

    def cancel(self) -> list[T]:
        """Stop every job in flight; the values of the jobs that were published meanwhile."""

    def close(self) -> None:
        """Release what the executor holds."""


def publish(target: Path, fill: Callable[[Path], T | None]) -> T | None:
    """Fill a staging directory beside target and rename it into place (replacing a folder there), so a reader
    sees the whole folder or none; nothing is published when fill returns None or raises. A full disk is a
    WriteError naming target."""
    with writing(target):
        staged = staging_directory(target.parent, target.name)
    try:
        value = fill(staged)
        if value is not None:
            with writing(target):
                replace_directory(staged, target)
        return value
    finally:
        shutil.rmtree(staged, ignore_errors=True)


J = TypeVar("J", bound=Job[Any])


def run_jobs(executor: Executor[T], jobs: Iterable[J], jobs_at_once: int, done: Callable[[J, T | None], bool],
             rescued: Callable[[T], None] | None = None) -> None:
    """Hand jobs to the executor only as its slots free up, and call done(job, value) for each as it ends (value
    None: cancelled). Once done returns False no job starts any more and the running ones finish. On any
    exception (Ctrl-C included) every job in flight is cancelled, rescued gets the values they published
    meanwhile, and the exception goes on."""
    queue = iter(jobs)
    running: dict[Any, J] = {}
    go_on = True

    def start() -> None:
        job = next(queue, None)
        if job is not None:
            running[executor.submit(job)] = job

    try:
        for _ in range(executor.slots(jobs_at_once)):
            start()
        while running:
            for handle in executor.wait(set(running)):
                job = running.pop(handle)
                go_on = done(job, executor.result(handle)) and go_on
                if go_on:
                    start()
    except BaseException:
        for value in executor.cancel():
            if rescued is not None:
                rescued(value)
        raise
