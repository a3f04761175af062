"""The local executor: trials in threads of this process, `--jobs` at a time (the default)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Protocol

from runner.process import kill_running
from runner.runs.result import TrialResult
from runner.trial.trial import TrialSpec


class Executor(Protocol):
    """What a run hands its trials to: submit, wait for some to end, publish their results, cancel, close."""

    def slots(self, jobs: int) -> int:
        """How many trials to keep in flight, given --jobs."""

    def submit(self, spec: TrialSpec) -> Any:
        """Start one trial; a handle for wait and result."""

    def wait(self, pending: set[Any]) -> set[Any]:
        """The handles among pending whose trials ended for good (blocks until at least one)."""

    def result(self, handle: Any) -> TrialResult | None:
        """A finished trial's published result; None when it was cancelled."""

    def cancel(self) -> list[TrialResult]:
        """Stop every trial in flight; the results published meanwhile."""

    def close(self) -> None:
        """Release what the executor holds."""


class LocalExecutor:
    """Runs each trial with `run_trial` in a thread; a trial publishes its own folder."""

    def __init__(self, one: Callable[[TrialSpec], TrialResult | None], jobs: int, cancel: threading.Event) -> None:
        self.one, self.cancel_event = one, cancel
        self.pool = ThreadPoolExecutor(max_workers=jobs)
        self.futures: list[Future[TrialResult | None]] = []

    def slots(self, jobs: int) -> int:
        """--jobs trials at once."""
        return jobs

    def submit(self, spec: TrialSpec) -> Future[TrialResult | None]:
        """Start one trial."""
        future = self.pool.submit(self.one, spec)
        self.futures.append(future)
        return future

    def wait(self, pending: set[Future[TrialResult | None]]) -> set[Future[TrialResult | None]]:
        """The trials among pending that ended (at least one; blocks until then)."""
        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
        return set(finished)

    def result(self, handle: Future[TrialResult | None]) -> TrialResult | None:
        """A finished trial's result (published already); None when it was cancelled."""
        return handle.result()

    def cancel(self) -> list[TrialResult]:
        """Stop every trial in flight (their processes killed); the results that were published meanwhile."""
        self.cancel_event.set()
        for future in self.futures:
            future.cancel()
        while not all(f.done() for f in self.futures):
            kill_running()
            wait(self.futures, timeout=0.2)
        return list(published(self.futures))

    def close(self) -> None:
        """Wait for the threads to end."""
        self.pool.shutdown(wait=True)


def published(futures: Iterable[Future[TrialResult | None]]) -> Iterable[TrialResult]:
    """The results of the futures that ran to the end."""
    for future in futures:
        if not future.cancelled() and future.exception() is None and (result := future.result()) is not None:
            yield result
