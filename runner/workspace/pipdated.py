"""Deciding how a setup that installs with pip resolves (`runner.envs.pipindex`): as of the fix's date through a
dated index on the loopback, else today's when the dated setup fails; decided once per interpreter, command,
dependency files and date, in a process and in the cache directory."""

from __future__ import annotations

import hashlib
import json
import shlex
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from corpus.fsutil import atomic_write_text
from corpus.model import Case
from runner.envs.cache import EnvCache
from runner.envs.key import dependency_digest
from runner.envs.pipindex import installs_with_pip, serve_dated
from runner.envs.resolution import Resolution, fix_date, write_config

STORE = "resolutions"
"""The cache directory's folder of decided resolutions (`runner.workspace.resolve.STORE`)."""

_DECIDED: dict[str, Resolution] = {}
_LOCK = threading.Lock()


def pip_resolution(case: Case, repo: Path, directory: Path, cache: EnvCache | None = None) -> Resolution | None:
    """How the case's pip setup resolves: as of the fix's date unless a dated setup of the same interpreter,
    command, dependency files and date failed before (then today's); None when setup installs nothing with pip.
    A dated one writes uv's dated configuration into directory too, so a uv step of the same setup is dated
    alike."""
    if not installs_with_pip(case.setup.command):
        return None
    as_of = fix_date(repo, case.fix_commit)
    if as_of is None:
        return Resolution(None, "resolution: today's; the fix's date cannot be read")
    name = _name(case, repo, as_of)
    with _LOCK:
        found = _DECIDED.get(name) or _stored(cache, name)
        if found is None:
            found = Resolution(as_of, f"resolution: as of the fix's date {as_of} (pip; build tools today's)",
                               pip=True)
        _DECIDED[name] = found
    if found.as_of is not None:
        write_config(directory, found.as_of)
    return found


def pip_fall_back(case: Case, repo: Path, dated: Resolution, why: str, cache: EnvCache | None = None) -> Resolution:
    """Today's resolution for a pip setup that failed as of the fix's date (why); decided so for every later
    setup of the same interpreter, command, dependency files and date."""
    assert dated.as_of is not None
    found = Resolution(None, f"resolution: today's; as of the fix's date {dated.as_of} setup fails: {why}",
                       pip=True)
    name = _name(case, repo, dated.as_of)
    with _LOCK:
        _DECIDED[name] = found
    if cache is not None:
        (cache.root / STORE).mkdir(exist_ok=True)
        atomic_write_text(cache.root / STORE / f"pip-{name}.json",
                          json.dumps({"as_of": found.as_of, "origin": found.origin}) + "\n")
    return found


@contextmanager
def pip_index(command: str | None, resolution: Resolution | None) -> Iterator[dict[str, str]]:
    """The variables that make a dated setup's pip resolve as of the fix's date (PIP_INDEX_URL of a dated index
    served for the block); none for today's or a setup without pip."""
    if resolution is None or resolution.as_of is None or not installs_with_pip(command):
        yield {}
        return
    with serve_dated(resolution.as_of) as url:
        yield {"PIP_INDEX_URL": url}


@contextmanager
def runtime_index(resolution: Resolution, dated: bool) -> Iterator[dict[str, str]]:
    """The variables of a pip setup's build tools reinstall: PIP_INDEX_URL of an index as of the fix's date with
    nothing exempt when dated, else with the build tools whole (today's); none for a uv setup."""
    if not resolution.pip or resolution.as_of is None:
        yield {}
        return
    with serve_dated(resolution.as_of, *(((),) if dated else ())) as url:
        yield {"PIP_INDEX_URL": url}


def pip_runtime_command(installed: dict[str, str]) -> str:
    """`runner.envs.resolution.runtime_command` with pip: each build tool installed (name to version) reinstalled
    at the newest version the index offers up to the one the setup installed (what the setup's resolution chose
    satisfies its dependents' bounds, so a dated version above it could break them, as `pytest==3.5.1` holds
    `pluggy<0.7`), their dependencies left as they are, then setuptools, when among them, imported."""
    words = ["python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--force-reinstall",
             "--no-deps", *(f"{name}<={version}" for name, version in installed.items())]
    check = " && python -c 'import setuptools'" if "setuptools" in installed else ""
    return " ".join(shlex.quote(word) for word in words) + check


def _name(case: Case, repo: Path, as_of: str) -> str:
    digest = dependency_digest(repo, case.base_commit)[0]
    return hashlib.sha256(json.dumps(["pip", case.setup.python, case.setup.command, digest, as_of]).encode()
                          ).hexdigest()[:24]


def _stored(cache: EnvCache | None, name: str) -> Resolution | None:
    if cache is None:
        return None
    try:
        data = json.loads((cache.root / STORE / f"pip-{name}.json").read_text(encoding="utf-8"))
        return Resolution(data["as_of"], data["origin"], pip=True)
    except (OSError, ValueError, KeyError, TypeError):
        return None
