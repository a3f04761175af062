"""The Ray executor: each trial a task on a Ray cluster the user already has (`ray start --head`, KubeRay).

The driver (this process) alone writes the run directory. What a trial needs travels with its task: the case's
pack (its base and fix commits, put in the object store once per case and fetched once per node), the case with
its hidden files, the prompt and the agent command inside the trial's spec. The worker runs the trial exactly as
one machine does (runner.executors.remote) and returns its folder, which the driver publishes like a local
trial's (atomically, digest recorded). A task lost with its worker or node is an infrastructure failure: it is
submitted again, at most `retries` times, and then recorded as an error naming the cause, never as a fail.
Ray is imported here only, and only when `--executor ray` is chosen.
"""

from __future__ import annotations

import shutil
import socket
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpus import StoredCase, case_fingerprint
from corpus.errors import UsageError
from corpus.fsutil import replace_directory, staging_directory, writing
from runner.envs.environment import base_version
from runner.executors.packs import CasePack, build_pack
from runner.executors.remote import RemoteContext, VerifyContext, run_remote, unpack_folder, verify_remote
from runner.runs.result import RESULT_FILE, Durations, TrialResult, parse_trial, trial_path
from runner.settings import Settings
from runner.trial.trial import TrialSpec

if TYPE_CHECKING:
    from runner.verify.verify import Attempt

INSTALL = "--executor ray needs Ray on this machine and on the cluster: pip install 'hindcast[ray]'"
CANCEL_GRACE = 10.0
"""Seconds cancelled tasks get to kill their trial's processes before their workers are killed."""


@dataclass(eq=False)
class _Task:
    spec: TrialSpec
    ref: Any
    started: float = field(default_factory=time.monotonic)
    attempts: int = 1
    outcome: tuple[str | None, bytes] | None = None
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
        self.made: dict[str, tuple[Any, str | None]] = {}

    def get(self, stored: StoredCase) -> tuple[Any, str | None]:
        """The case's pack reference and base version."""
        case = stored.case
        commits = f"{case.base_commit}..{case.fix_commit}"
        if commits not in self.made:
            pack: CasePack = build_pack(self.repo, (case.base_commit, case.fix_commit))
            self.made[commits] = (self.ray.put(pack), base_version(self.repo, case.base_commit))
        return self.made[commits]


def _task_options(settings: Settings, name: str) -> dict[str, Any]:
    """A task's resources (no retries by Ray: the driver submits a lost task again itself) and its name."""
    options: dict[str, Any] = {"num_cpus": settings.trial_cpus, "max_retries": 0, "retry_exceptions": False,
                               "name": name}
    if settings.trial_memory:
        options["memory"] = settings.trial_memory
    return options


class RayExecutor:
    """Submits trials as Ray tasks and publishes what they send back."""

    def __init__(self, settings: Settings, repo: Path, run_dir: Path, ctx: RemoteContext,
                 warn: Callable[[str], None] = lambda line: print(line, file=sys.stderr)) -> None:
        self.settings, self.repo, self.run_dir, self.ctx, self.warn = settings, repo, run_dir, ctx, warn
        self.ray = connect(settings)
        self.remote = self.ray.remote(run_remote)
        self.packs = _Packs(self.ray, repo)
        self.tasks: dict[Any, _Task] = {}

    def slots(self, jobs: int) -> int:
        """Twice as many trials as the cluster has CPUs for (at --trial-cpus each), or --jobs when that is more:
        Ray queues what does not fit, so a worker that frees up starts its next trial at once instead of waiting
        for the driver to publish the last one and submit another."""
        cpus = float(self.ray.cluster_resources().get("CPU", 0))
        return max(jobs, 2 * int(cpus // max(self.settings.trial_cpus, 0.001)), 1)

    def _submit(self, spec: TrialSpec) -> Any:
        pack, version = self.packs.get(spec.stored)
        options = _task_options(self.settings, f"hindcast {spec.variant}::{spec.stored.case.id} #{spec.trial}")
        return self.remote.options(**options).remote(spec, self.ctx, pack, version)

    def submit(self, spec: TrialSpec) -> _Task:
        """Put one trial on the cluster."""
        task = _Task(spec, self._submit(spec))
        self.tasks[task.ref] = task
        return task

    def wait(self, pending: set[_Task]) -> set[_Task]:
        """The trials among pending that ended for good (a lost one is submitted again and stays pending)."""
        while True:
            refs = [t.ref for t in pending]
            ready, _ = self.ray.wait(refs, num_returns=1, timeout=None)
            done: set[_Task] = set()
            for ref in ready:
                task = self.tasks.pop(ref)
                try:
                    task.outcome = self.ray.get(ref)
                    done.add(task)
                except self.ray.exceptions.TaskCancelledError:
                    task.outcome = (None, b"")
                    done.add(task)
                except self.ray.exceptions.RayTaskError as exc:  # the harness failed on the worker
                    cause = getattr(exc, "cause", None) or exc
                    task.failure = f"harness on the worker: {type(cause).__name__}: {_first_line(cause)}"
                    done.add(task)
                except self.ray.exceptions.RayError as exc:  # the worker, its node or the object was lost
                    cause = _first_line(exc)
                    if task.attempts <= self.settings.retries:
                        self.warn(f"{task.spec.variant}::{task.spec.stored.case.id} #{task.spec.trial}: lost "
                                  f"({cause}); submitting it again ({task.attempts}/{self.settings.retries})")
                        task.ref = self._submit(task.spec)
                        task.attempts += 1
                        self.tasks[task.ref] = task
                        continue
                    task.failure = (f"infrastructure: the trial could not be run in {task.attempts} attempts on "
                                    f"the Ray cluster: {cause}")
                    done.add(task)
            if done:
                return done

    def result(self, task: _Task) -> TrialResult | None:
        """Publish a finished trial's folder in the run directory; None when it was cancelled."""
        spec = task.spec
        target = trial_path(self.run_dir, spec.variant, spec.stored.case.id, spec.trial)
        if task.failure is not None:
            return self._publish_error(task, target)
        assert task.outcome is not None
        text, folder = task.outcome
        if text is None:
            return None
        with writing(target):
            staged = staging_directory(target.parent, str(spec.trial))
            try:
                unpack_folder(folder, staged)
                result = parse_trial(text.encode(), target / RESULT_FILE, spec.variant, spec.stored.case.id,
                                     spec.trial)
                (staged / RESULT_FILE).write_text(text, encoding="utf-8")
                replace_directory(staged, target)
            except BaseException:
                shutil.rmtree(staged, ignore_errors=True)
                raise
        return result

    def _publish_error(self, task: _Task, target: Path) -> TrialResult:
        spec = task.spec
        case = spec.stored.case
        result = TrialResult(case_id=case.id, variant=spec.variant, trial=spec.trial, outcome="error",
                             reason=task.failure or "infrastructure", started=_now(),
                             case_fingerprint=case_fingerprint(case, spec.stored.files),
                             durations=Durations(total=round(time.monotonic() - task.started, 3)), mode=spec.mode)
        with writing(target):
            staged = staging_directory(target.parent, str(spec.trial))
            (staged / "transcript.log").write_text(f"[hindcast: {result.reason}]\n")
            (staged / RESULT_FILE).write_text(result.to_json(), encoding="utf-8")
            replace_directory(staged, target)
        return result

    def cancel(self) -> list[TrialResult]:
        """Cancel every task in flight: each gets CANCEL_GRACE seconds to kill its trial's processes, then its
        worker is killed. Nothing of theirs is published; the run stays resumable."""
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


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class RayAttempts:
    """runner verify on the cluster: each attempt a task; its logs come back into the driver's verify root."""

    def __init__(self, settings: Settings, repo: Path, root: Path, ctx: VerifyContext) -> None:
        self.settings, self.repo, self.root, self.ctx = settings, repo, root, ctx
        self.ray = connect(settings)
        self.remote = self.ray.remote(verify_remote)
        self.packs = _Packs(self.ray, repo)
        self.refs: list[Any] = []

    def submit(self, stored: StoredCase, side: str, repeat: int) -> _AttemptFuture:
        """Put one attempt on the cluster; its future's result() is the Attempt with its logs here."""
        return _AttemptFuture(self, stored, side, repeat)

    def _start(self, stored: StoredCase, side: str, repeat: int) -> Any:
        pack_ref, version = self.packs.get(stored)
        options = _task_options(self.settings, f"hindcast verify {stored.case.id} {side} #{repeat}")
        ref = self.remote.options(**options).remote(stored, side, repeat, self.ctx, pack_ref, version)
        self.refs.append(ref)
        return ref

    def cancel(self) -> None:
        """Cancel every attempt still on the cluster."""
        for ref in self.refs:
            self.ray.cancel(ref, force=True)


class _AttemptFuture:
    def __init__(self, owner: RayAttempts, stored: StoredCase, side: str, repeat: int) -> None:
        self.owner, self.stored, self.side, self.repeat = owner, stored, side, repeat
        self.started = time.monotonic()
        self.ref = owner._start(stored, side, repeat)

    def result(self) -> Attempt:
        """The attempt, submitted again while its worker or node is lost (at most the retries)."""
        from runner.verify.keep import LOGS_DIR
        from runner.verify.verify import Attempt

        ray, attempts = self.owner.ray, 1
        while True:
            try:
                attempt, logs = ray.get(self.ref)
                break
            except ray.exceptions.RayTaskError as exc:
                cause = getattr(exc, "cause", None) or exc
                reason = f"harness on the worker: {type(cause).__name__}: {_first_line(cause)}"
            except ray.exceptions.RayError as exc:
                if attempts <= self.owner.settings.retries:
                    attempts += 1
                    self.ref = self.owner._start(self.stored, self.side, self.repeat)
                    continue
                reason = f"infrastructure: the attempt could not be run in {attempts} attempts: {_first_line(exc)}"
            return Attempt(self.side, self.repeat, "error", reason,  # type: ignore[arg-type]
                           time.monotonic() - self.started)
        target = self.owner.root / LOGS_DIR / self.stored.case.id / f"{self.side}-{self.repeat}"
        target.mkdir(parents=True, exist_ok=True)
        if logs:
            unpack_folder(logs, target)
        return replace(attempt, logs=str(target))
