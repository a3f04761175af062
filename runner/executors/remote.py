"""One trial on a Ray worker: the case's repository from its pack, the trial run exactly as on one machine into a
folder of the worker's own, and that folder sent back whole for the driver to publish.

Nothing here imports Ray: the executor wraps `run_remote` as a task. Everything a worker makes lives under its
own temp directory (`hindcast-ray/`): the repositories of packs (one per node, shared by its worker processes),
templates (one per worker process), trial scratch and the unpublished trial folders.
"""

from __future__ import annotations

import io
import shutil
import tarfile
import tempfile
import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from corpus import StoredCase
from corpus.errors import HindcastError
from runner.behaviour.prices import PriceTable
from runner.envs.cache import EnvCache, open_env_cache
from runner.envs.environment import pin_base_version
from runner.executors.packs import CasePack, materialize
from runner.runs.result import trial_path
from runner.sandbox.confine import Confinement, confine, harness_dirs, hidden_paths
from runner.settings import Settings
from runner.trial.assets import AssetCache, CaseAssets
from runner.trial.trial import TrialContext, TrialSpec, run_trial

if TYPE_CHECKING:
    from runner.verify.verify import Attempt


@dataclass(frozen=True)
class RemoteContext:
    """The run-wide settings a worker needs, all of them plain values (no path of the driver is used there)."""

    agent_timeout: float
    """Seconds before an agent's process group is killed."""
    hidden: tuple[str, ...]
    """Paths no variable of the agent's environment may contain."""
    test_globs: tuple[str, ...]
    """The corpus's test-file globs."""
    transcript_limit: int
    """Bytes of agent output kept."""
    settings: Settings
    """The run's settings: the sandbox, checked on the worker (its bubblewrap, its binds), and the environment
    cache on the worker (its default directory for DEFAULT_ENV_CACHE)."""
    hide: tuple[str, ...]
    """Paths no sandbox may show (the worker adds its own root and Hindcast's packages)."""
    prices: PriceTable | None
    """The user's price table."""


_LOCK = threading.Lock()
_ASSETS: dict[str, AssetCache] = {}


def worker_root() -> Path:
    """Where this worker keeps what it makes."""
    return Path(tempfile.gettempdir()) / "hindcast-ray"


def run_remote(spec: TrialSpec, ctx: RemoteContext, pack: CasePack,
               base_version: str | None) -> tuple[str | None, bytes]:
    """Run one trial here; (its result.json text, its folder as a tar) or (None, b"") when it was cancelled."""
    root, repo, assets, cache = _node(pack, spec.stored.case.base_commit, base_version, ctx.settings)
    scratch = _mkdir(root / "scratch")
    confinement = Confinement(ctx.settings.sandbox)
    built: CaseAssets | HindcastError
    try:  # this worker's bubblewrap and binds; what cannot run here is the trial's error
        confinement = _here(ctx.settings, ctx.hide, root)
        built = assets.get(spec.stored)
    except HindcastError as exc:
        built = exc
    run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=_mkdir(root / "runs")))
    try:
        trial_ctx = TrialContext(repo=repo, run_dir=run_dir, agent_timeout=ctx.agent_timeout,
                                 hidden=(*ctx.hidden, str(root)), test_globs=ctx.test_globs, scratch_root=scratch,
                                 transcript_limit=ctx.transcript_limit, confinement=confinement,
                                 env_cache=cache, prices=ctx.prices)
        result = run_trial(spec, trial_ctx, built)
        if result is None:
            return None, b""
        folder = trial_path(run_dir, spec.variant, spec.stored.case.id, spec.trial)
        return result.to_json(), pack_folder(folder)
    finally:
        if cache is not None:
            cache.close()
        shutil.rmtree(run_dir, ignore_errors=True)


def _node(pack: CasePack, base_commit: str, base_version: str | None,
          settings: Settings) -> tuple[Path, Path, AssetCache, EnvCache | None]:
    """This worker's root, the pack's repository and asset cache (made once per node) and the task's own
    environment cache object."""
    root = worker_root()
    repo = materialize(pack, root / "repos")
    pin_base_version(base_commit, base_version)
    with _LOCK:
        if pack.digest not in _ASSETS:
            _ASSETS[pack.digest] = AssetCache(repo, root / "assets" / pack.digest)
        assets = _ASSETS[pack.digest]
    # A cache object of the task's own, which the task closes when it ends: a worker process lives as long as the
    # cluster, and an entry it kept holding would never be pruned on its node.
    return root, repo, assets, open_env_cache(settings.env_cache)


def _here(settings: Settings, hide: tuple[str, ...], root: Path) -> Confinement:
    """The driver's sandbox choice checked on this worker, which also hides its own root and Hindcast's files."""
    return confine(settings, hidden_paths(*hide, root, *harness_dirs()))


def pack_folder(folder: Path) -> bytes:
    """A trial folder as an uncompressed tar of its files (names relative to it)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path in sorted(folder.rglob("*")):
            tar.add(path, arcname=path.relative_to(folder).as_posix(), recursive=False)
    return buffer.getvalue()


def unpack_folder(data: bytes, target: Path) -> None:
    """Write a tar made by pack_folder into target (an empty staging directory); links and paths outside refused."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r") as tar:
        tar.extractall(target, filter="data")


def _mkdir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class VerifyContext:
    """What a worker needs to run one verify attempt."""

    settings: Settings
    """verify's settings: the sandbox, checked on the worker, the environment cache there, --keep."""
    hide: tuple[str, ...]
    """Paths no sandbox may show (the worker adds its own)."""
    test_globs: tuple[str, ...]
    """The corpus's test-file globs."""


def verify_remote(stored: StoredCase, side: str, repeat: int, ctx: VerifyContext, pack: CasePack,
                  base_version: str | None) -> tuple[Attempt, bytes]:
    """Run one verify attempt here; the attempt (its logs not yet anywhere) and its logs as a tar."""
    from runner.verify.keep import LOGS_DIR
    from runner.verify.verify import _Context, run_attempt

    root, repo, assets, cache = _node(pack, stored.case.base_commit, base_version, ctx.settings)
    confinement = _here(ctx.settings, ctx.hide, root)
    scratch = Path(tempfile.mkdtemp(prefix="verify-", dir=_mkdir(root / "runs")))
    try:
        context = _Context(repo, assets, confinement, scratch, ctx.test_globs, ctx.settings.keep, cache)
        attempt = run_attempt(stored, side, repeat, context)  # type: ignore[arg-type]
        logs = scratch / LOGS_DIR / stored.case.id / f"{side}-{repeat}"
        return replace(attempt, logs=None), pack_folder(logs) if logs.is_dir() else b""
    finally:
        if cache is not None:
            cache.close()
        shutil.rmtree(scratch, ignore_errors=True)
