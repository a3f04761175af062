"""The local executor: jobs in threads of this process, `--jobs` at a time (the default); and the executor a
command's settings choose."""

from __future__ import annotations

import time
from collections.abc import Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any, Generic, TypeVar

from corpus.errors import HindcastError
from runner.children import kill_running
from runner.executors.jobs import Executor, Job, Node, harness_error, publish
from runner.settings import Settings

T = TypeVar("T")


class LocalExecutor(Generic[T]):
    """Runs each job in a thread on this machine's node; a job's folder is published as soon as it ends."""

    def __init__(self, node: Node, jobs: int) -> None:
        self.node = node
        self.pool = ThreadPoolExecutor(max_workers=jobs)
        self.futures: list[Future[T | None]] = []

    def slots(self, jobs: int) -> int:
        """--jobs jobs at once."""
        return jobs

    def submit(self, job: Job[T]) -> Future[T | None]:
        """Start one job."""
        future = self.pool.submit(self._run, job)
        self.futures.append(future)
        return future

    def _run(self, job: Job[T]) -> T | None:
        started = time.monotonic()
        try:
            return publish(job.target, lambda out: job.run(self.node, out))
        except HindcastError:  # a full disk, a refused path: the command stops with it
            raise
        except Exception as exc:  # noqa: BLE001 - a job the harness broke is that job's error, not the command's end
            error = exc

            def failed(out: Path) -> T:
                return job.failed(harness_error(error, out), time.monotonic() - started, out)

            return publish(job.target, failed)

    def wait(self, pending: set[Future[T | None]]) -> set[Future[T | None]]:
        """The jobs among pending that ended (at least one; blocks until then)."""
        finished, _ = wait(pending, return_when=FIRST_COMPLETED)
        return set(finished)

    def result(self, handle: Future[T | None]) -> T | None:
        """A finished job's value (its folder published already); None when it was cancelled."""
        return handle.result()

    def cancel(self) -> list[T]:
        """Stop every job in flight (their processes killed); the values of those published meanwhile."""
        self.node.cancel.set()
        for future in self.futures:
            future.cancel()
        self._stop()
        return list(_published(self.futures))

    def _stop(self) -> None:
        """Kill what the jobs run until every thread has ended (each checks the cancel event between steps)."""
        while not all(f.done() for f in self.futures):
            try:
                kill_running()
                wait(self.futures, timeout=0.1)
            except KeyboardInterrupt:  # another Ctrl-C while stopping: the stop is under way, keep killing
                continue

    def close(self) -> None:
        """Wait for the threads to end (killing what they run, once cancelled)."""
        if self.node.cancel.is_set():
            self._stop()
        self.pool.shutdown(wait=True)


def _published(futures: Iterable[Future[T | None]]) -> Iterable[T]:
    """The values of the futures that ran to the end."""
    for future in futures:
        if not future.cancelled() and future.exception() is None and (value := future.result()) is not None:
            yield value


def executor_for(settings: Settings, node: Node) -> Executor[Any]:
    """The executor the settings choose: threads here on node (`--jobs` at a time), or tasks on the Ray cluster,
    each on a node of its worker (Ray is imported only then)."""
    if settings.executor != "ray":
        return LocalExecutor(node, settings.jobs)
    from runner.executors.ray_executor import RayExecutor

    return RayExecutor(settings, node.repo, tuple(str(p) for p in node.confinement.hide))
