"""One job on a Ray worker: the case's repository from its pack, a node of the worker's own, the job run there
exactly as on one machine into a folder of the worker's, and that folder sent back whole for the driver to
publish.

Nothing here imports Ray: the executor wraps `run_remote` as a task. Everything a worker makes lives under its
own temp directory (`hindcast-ray/`): the repositories of packs (one per node, shared by its worker processes),
templates (one per node and pack), job scratch and the unpublished folders.
"""

from __future__ import annotations

import io
import shutil
import tarfile
import tempfile
import threading
import time
from pathlib import Path
from typing import TypeVar

from corpus.errors import HindcastError
from runner.envs.cache import EnvCache, open_env_cache
from runner.envs.environment import pin_base_version, uv_binary
from runner.executors.jobs import Job, Node
from runner.executors.packs import CasePack, materialize
from runner.grading.assets import AssetCache
from runner.sandbox.confine import confine, harness_dirs, hidden_paths
from runner.settings import Settings

T = TypeVar("T")
_LOCK = threading.Lock()
_ASSETS: dict[str, AssetCache] = {}


def worker_root() -> Path:
    """Where this worker keeps what it makes."""
    return Path(tempfile.gettempdir()) / "hindcast-ray"


def run_remote(job: Job[T], settings: Settings, hide: tuple[str, ...], pack: CasePack,
               base_version: str | None) -> tuple[T | None, bytes]:
    """Run one job here; its value and its folder as a tar, or (None, b"") when it was cancelled. What cannot run
    on this worker (its bubblewrap, a bind missing, the environment cache) is the job's error."""
    root = worker_root()
    out = Path(tempfile.mkdtemp(prefix="job-", dir=_mkdir(root / "runs")))
    started = time.monotonic()
    cache: EnvCache | None = None
    try:
        try:
            repo, assets = _repository(pack, job.commits[0], base_version)
            confinement = confine(settings, hidden_paths(*hide, root, *harness_dirs()))
            # A cache object of the task's own, closed when it ends: a worker process lives as long as the
            # cluster, and an entry it kept holding would never be pruned on its node.
            uv_binary()  # what the trials' threads need of the interpreter, resolved before they start
            cache = open_env_cache(settings.env_cache)
        except HindcastError as exc:
            return job.failed(exc.message, time.monotonic() - started, out), pack_folder(out)
        node = Node(repo, assets, confinement, cache, scratch=_mkdir(root / "scratch"), hide=(str(root),))
        value = job.run(node, out)
        return value, pack_folder(out) if value is not None else b""
    finally:
        if cache is not None:
            cache.close()
        shutil.rmtree(out, ignore_errors=True)


def _repository(pack: CasePack, base_commit: str, base_version: str | None) -> tuple[Path, AssetCache]:
    """The pack's repository and asset cache, made once per node."""
    root = worker_root()
    repo = materialize(pack, root / "repos")
    pin_base_version(base_commit, base_version)
    with _LOCK:
        if pack.digest not in _ASSETS:
            _ASSETS[pack.digest] = AssetCache(repo, root / "assets" / pack.digest)
        return repo, _ASSETS[pack.digest]


def pack_folder(folder: Path) -> bytes:
    """A folder as an uncompressed tar of its files (names relative to it)."""
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
