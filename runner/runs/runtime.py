"""The runtime fingerprint: what ran a run (Hindcast's version and commit, Python, OS, git, agent commands)."""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from pathlib import Path
from typing import Any

from corpus import __version__
from corpus.gitutil import git_env
from runner.runs.manifest import RunConfig
from runner.settings import RecordedSettings

SOURCE_ROOT = Path(__file__).resolve().parents[2]


def _git(args: list[str], cwd: Path) -> str | None:
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=git_env(), check=False)
    except OSError:
        return None
    return proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else None


def hindcast_commit(source: Path = SOURCE_ROOT) -> tuple[str | None, bool | None]:
    """The commit Hindcast runs from and whether tracked files differ from it; (None, None) when not a checkout."""
    top = _git(["rev-parse", "--show-toplevel"], source)
    if top is None or Path(top).resolve() != source:
        return None, None
    commit = _git(["rev-parse", "HEAD"], source)
    status = _git(["status", "--porcelain", "--untracked-files=no"], source)
    return commit, bool(status) if status is not None else None


def runtime_info(config: RunConfig, settings: RecordedSettings | None = None) -> dict[str, Any]:
    """The runtime record of run.json (with the sandbox the settings confined trials in), with a sha256
    fingerprint over its canonical JSON."""
    commit, dirty = hindcast_commit()
    info: dict[str, Any] = {
        "hindcast_version": __version__,
        "hindcast_commit": commit,
        "hindcast_dirty": dirty,
        "python": f"{platform.python_implementation()} {platform.python_version()}",
        "os": platform.platform(),
        "git": (_git(["--version"], SOURCE_ROOT) or "unknown").removeprefix("git version "),
        "mode": config.mode,
        "trials": config.trials,
        "agent_commands": {v.name: v.command for v in config.variants},
        "agent_timeout": config.agent_timeout,
        "sandbox": settings.runtime_sandbox() if settings is not None else None,
    }
    canonical = json.dumps(info, sort_keys=True, separators=(",", ":")).encode()
    info["fingerprint"] = hashlib.sha256(canonical).hexdigest()
    return info
