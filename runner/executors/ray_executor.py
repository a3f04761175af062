"""The Ray executor: each job a task on a Ray cluster the user already has (`ray start --head`, KubeRay).

The driver (this process) alone writes the run directory (or verify's logs). What a job needs travels with its
task: the case's pack (its base and fix commits, put in the object store once per commit pair and fetched once per
node), the job itself (for a trial: the case with its hidden files, the prompt and the agent command) and the
command's settings. The worker runs the job on a node of its own (runner.executors.remote) and returns its value
and its folder, which the driver publishes as a local job's is published (atomically). A task lost with its
worker or node is an infrastructure failure: it is submitted again, at most `retries` times, and then the job is
an error naming the cause, never a fail. Ray is imported here only, and only when `--executor ray` is chosen.
"""

from __future__ import annotations

import shlex
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from corpus.errors import UsageError
from runner.envs.environment import base_version
from runner.executors.jobs import Job, publish
from runner.executors.packs import CasePack, build_pack
from runner.executors.remote import run_remote, unpack_folder
from runner.settings import Settings

T = TypeVar("T")
INSTALL = (f"--executor ray needs Ray on this machine and on the cluster: "
           f"uv pip install --python {shlex.quote(sys.executable)} 'ray>=2.9'")
CANCEL_GRACE = 10.0
"""Seconds cancelled tasks get to kill their job's processes before their workers are killed."""
STALL_CHECK = 10.0
"""Seconds without a job ending after which the driver asks whether any node of the cluster can take a job."""


@dataclass(eq=False)
class _Task(Generic[T]):
    job: Job[T]
    ref: Any
    started: float = field(default_factory=time.monotonic)
    attempts: int = 1
    outcome: tuple[T | None, bytes] | None = None
    failure: str | None = None


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError(INSTALL) from None
    return ray


def connect(settings: Settings) -> Any:
    """Ray, connected to the cluster (UsageError naming --ray-address when there is none)."""
    ray = _ray()
    address = settings.ray_address
    if ray.is_initialized():
        if not address or address == ray.get_runtime_context().gcs_address:
            return ray
        ray.shutdown()  # connected to another cluster before (one process, several runs)
    _reachable(address)
    try:
        ray.init(address=address or "auto", log_to_driver=False, configure_logging=False,
                 include_dashboard=False)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = address or "auto (RAY_ADDRESS or a cluster started here)"
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"--ray-address {where}: no Ray cluster to connect to ({first}); start one with "
                         f"`ray start --head` or pass --ray-address") from None
    return ray


def _reachable(address: str | None) -> None:
    """A `host:port` cluster address must answer at once (Ray would retry for a minute before saying no)."""
    if not address or "://" in address or address == "auto":
        return
    host, _, port = address.rpartition(":")
    if not port.isdigit():
        raise UsageError(f"--ray-address {address}: expected HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as exc:
        raise UsageError(f"--ray-address {address}: no Ray cluster answers there ({exc.strerror or exc}); start "
                         f"one with `ray start --head` or pass the address it printed") from None


class _Packs:
    """Each commit pair's pack in the object store, with its base's version: built once, shared by its cases."""

    def __init__(self, ray: Any, repo: Path) -> None:
        self.ray, self.repo = ray, repo
        self.made: dict[tuple[str, str], tuple[Any, str | None]] = {}

    def get(self, commits: tuple[str, str]) -> tuple[Any, str | None]:
        """The pack reference and base version of a base and fix commit."""
        if commits not in self.made:
            pack: CasePack = build_pack(self.repo, commits)
            self.made[commits] = (self.ray.put(pack), base_version(self.repo, commits[0]))
        return self.made[commits]


def _task_options(settings: Settings, name: str) -> dict[str, Any]:
    """A task's resources (no retries by Ray: the driver submits a lost task again itself) and its name."""
    options: dict[str, Any] = {"num_cpus": settings.trial_cpus, "max_retries": 0, "retry_exceptions": False,
                               "name": name}
    if settings.trial_memory:
        options["memory"] = settings.trial_memory
    return options


class RayExecutor(Generic[T]):
    """Submits jobs as Ray tasks, submits a lost one again, and publishes what they send back."""

    def __init__(self, settings: Settings, repo: Path, hide: tuple[str, ...],
                 warn: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> None:
        self.settings, self.hide, self.warn = settings, hide, warn
        self.ray = connect(settings)
        self.remote = self.ray.remote(run_remote)
        self.packs = _Packs(self.ray, repo)
        self.tasks: dict[Any, _Task[T]] = {}
        self.stalled: str | None = None
        """The last warning that no node can take a job (None: some node can)."""

    def slots(self, jobs: int) -> int:
        """Twice as many jobs as the cluster has CPUs for (at --trial-cpus each), or --jobs when that is more:
        Ray queues what does not fit, so a worker that frees up starts its next job at once instead of waiting
        for the driver to publish the last one and submit another."""
        cpus = float(self.ray.cluster_resources().get("CPU", 0))
        return max(jobs, 2 * int(cpus // max(self.settings.trial_cpus, 0.001)), 1)

    def _start(self, job: Job[T]) -> Any:
        pack, version = self.packs.get(job.commits)
        options = _task_options(self.settings, f"hindcast {job.name}")
        return self.remote.options(**options).remote(job, self.settings, self.hide, pack, version)

    def submit(self, job: Job[T]) -> _Task[T]:
        """Put one job on the cluster."""
        task = _Task(job, self._start(job))
        self.tasks[task.ref] = task
        return task

    def wait(self, pending: set[_Task[T]]) -> set[_Task[T]]:
        """The jobs among pending that ended for good. The one retry rule: a job lost with its worker, its node
        or its object is submitted again, at most `retries` times, and stays pending; then it is an error naming
        the cause."""
        while True:
            ready, _ = self.ray.wait([t.ref for t in pending], num_returns=1, timeout=STALL_CHECK)
            if not ready:
                self._check_nodes(len(pending))
                continue
            self.stalled = None
            done: set[_Task[T]] = set()
            for ref in ready:
                task = self.tasks.pop(ref)
                try:
                    task.outcome = self.ray.get(ref)
                except self.ray.exceptions.TaskCancelledError:
                    task.outcome = (None, b"")
                except self.ray.exceptions.RayTaskError as exc:  # the harness failed on the worker
                    cause = getattr(exc, "cause", None) or exc
                    task.failure = f"harness on the worker: {type(cause).__name__}: {_first_line(cause)}"
                except self.ray.exceptions.RayError as exc:  # the worker, its node or the object was lost
                    cause = _first_line(exc)
                    if task.attempts <= self.settings.retries:
                        self.warn(f"{task.job.name}: lost ({cause}); submitting it again "
                                  f"({task.attempts}/{self.settings.retries})")
                        task.ref = self._start(task.job)
                        task.attempts += 1
                        self.tasks[task.ref] = task
                        continue
                    task.failure = (f"infrastructure: the {task.job.what} could not be run in {task.attempts} "
                                    f"attempts on the Ray cluster: {cause}")
                done.add(task)
            if done:
                return done

    def _check_nodes(self, waiting: int) -> None:
        """Say so, once until it changes, when no live node of the cluster has the CPUs and memory a job asks
        for: Ray keeps such a task waiting for a node that may never join (the workers were lost, or
        --trial-cpus is more than any node has)."""
        need_cpus, need_memory = self.settings.trial_cpus, self.settings.trial_memory or 0
        nodes = [n.get("Resources", {}) for n in self.ray.nodes() if n.get("Alive")]
        if any(r.get("CPU", 0) >= need_cpus and r.get("memory", 0) >= need_memory for r in nodes):
            self.stalled = None
            return
        most = max((r.get("CPU", 0) for r in nodes), default=0)
        line = (f"waiting: no node of the Ray cluster can take a job: each asks for --trial-cpus {need_cpus:g}"
                + (f" and --trial-memory {need_memory}" if need_memory else "")
                + f", the {len(nodes)} live node(s) have at most {most:g} CPUs; {waiting} job(s) wait for a node "
                  "that can (Ctrl-C stops; the run stays resumable)")
        if line != self.stalled:
            self.stalled = line
            self.warn(line)

    def result(self, task: _Task[T]) -> T | None:
        """Publish a finished job's folder at its target; its value, None when it was cancelled."""
        job, failure = task.job, task.failure
        if failure is not None:
            seconds = time.monotonic() - task.started
            return publish(job.target, lambda out: job.failed(failure, seconds, out))
        assert task.outcome is not None
        value, folder = task.outcome
        if value is None:
            return None

        def fill(out: Path) -> T:
            unpack_folder(folder, out)
            return value

        return publish(job.target, fill)

    def cancel(self) -> list[T]:
        """Cancel every task in flight: each gets CANCEL_GRACE seconds to kill its job's processes, then its worker
        is killed. Nothing of theirs is published; a run stays resumable."""
        refs = list(self.tasks)
        for ref in refs:
            self.ray.cancel(ref, force=False)
        deadline = time.monotonic() + CANCEL_GRACE
        left = refs
        while left and time.monotonic() < deadline:
            _, left = self.ray.wait(left, num_returns=len(left), timeout=0.5)
        for ref in left:
            self.ray.cancel(ref, force=True)
        self.tasks.clear()
        return []

    def close(self) -> None:
        """Nothing stays on the cluster: the packs are released with the references."""
        self.packs.made.clear()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return (text.splitlines()[0] if text else type(exc).__name__)[:300]
