"""Deciding how a setup that installs with pip resolves (`runner.envs.pipindex`): as of the fix's date through a
dated index on the loopback, else today's when the dated setup fails; decided once per interpreter, command,
dependency files and date, in a process and in the cache directory.

A dated pip setup's environment is shared with a fix of another date when the index would answer every question
the other's setup asked of it alike (`shared_date`): pip, given the same interpreter, command, dependency files
and the same pages, resolves the same set. What each build read is kept beside its decisions (`record_views`)."""

from __future__ import annotations

import hashlib
import json
import shlex
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from corpus.fsutil import atomic_write_text
from corpus.model import Case
from runner.envs.cache import EnvCache
from runner.envs.key import EnvKey, dependency_digest
from runner.envs.pipindex import DatedIndex, installs_with_pip, instant, serve_dated, view_as_of
from runner.envs.resolution import Resolution, fix_date, write_config

STORE = "resolutions"
"""The cache directory's folder of decided resolutions (`runner.workspace.resolve.STORE`)."""

VIEWS = "pip-views"
"""The folder of `STORE` keeping what each dated pip build read of its index, by key family."""
NEAREST = 3
"""How many builds of other dates, the nearest first, a dated pip setup compares its index with."""

_DECIDED: dict[str, Resolution] = {}
_LOCK = threading.Lock()
_RECORDING = threading.local()


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
    with serve_dated(resolution.as_of) as index:
        _served("setup", index)
        yield {"PIP_INDEX_URL": index.url}


@contextmanager
def runtime_index(resolution: Resolution, dated: bool) -> Iterator[dict[str, str]]:
    """The variables of a pip setup's build tools reinstall: PIP_INDEX_URL of an index as of the fix's date with
    nothing exempt when dated, else with the build tools whole (today's); none for a uv setup."""
    if not resolution.pip or resolution.as_of is None:
        yield {}
        return
    with serve_dated(resolution.as_of, *(((),) if dated else ())) as index:
        _served("runtime", index)
        yield {"PIP_INDEX_URL": index.url}


@contextmanager
def recording() -> Iterator[list[tuple[str, DatedIndex]]]:
    """The dated indexes this thread serves in the block (setup's, the build tools' reinstall), with their role."""
    served: list[tuple[str, DatedIndex]] = []
    _RECORDING.served = served
    try:
        yield served
    finally:
        _RECORDING.served = None


def _served(role: str, index: DatedIndex) -> None:
    served = getattr(_RECORDING, "served", None)
    if served is not None:
        served.append((role, index))


def _dated_pip(key: EnvKey, resolution: Resolution | None) -> bool:
    return resolution is not None and resolution.pip and key.as_of is not None and not key.by_resolution


def _family(key: EnvKey) -> str:
    """The key without its date: builds of one family differ only in the date they resolved as of."""
    parts = {k: v for k, v in key.parts().items() if k != "as_of"}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=list).encode()).hexdigest()[:24]


def _records(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def shared_date(key: EnvKey, resolution: Resolution | None, cache: EnvCache) -> str | None:
    """The date of a build of the key's family whose setup read of its index exactly what an index as of the
    key's date answers (the nearest `NEAREST` dates are compared); None when there is none, when the key's own
    entry is there, or for a setup that is not dated pip. Its entry is then this key's: pip gets the same pages,
    so it resolves the same set. The answer is kept (an alias record), so a warm run asks the index nothing."""
    if not _dated_pip(key, resolution) or key.as_of is None:
        return None
    folder = cache.root / STORE / VIEWS / _family(key)
    ours = key.as_of
    own = _record(folder / _record_name(ours))
    if own is not None:
        return str(own["same_as"]) if "same_as" in own else None
    if cache.has(key):
        return None
    records = []
    for path in _records(folder):
        data = _record(path)
        try:
            if (data is not None and "views" in data and data["as_of"] != ours
                    and data.get("tree") in (None, key.base_tree)):
                records.append((str(data["as_of"]),
                                [(dict(v["view"]), tuple(v["exempt"])) for v in data["views"]]))
        except (KeyError, TypeError, ValueError):
            continue
    records.sort(key=lambda r: abs(_seconds(r[0]) - _seconds(ours)))
    for as_of, views in records[:NEAREST]:
        if views and all(view_as_of(view, ours, exempt) == view for view, exempt in views):
            atomic_write_text(folder / _record_name(ours), json.dumps({"as_of": ours, "same_as": as_of}) + "\n")
            return as_of
    return None


def _record_name(as_of: str) -> str:
    return hashlib.sha256(as_of.encode()).hexdigest()[:16] + ".json"


def _record(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and "as_of" in data else None


def record_views(key: EnvKey, resolution: Resolution | None, cache: EnvCache,
                 served: list[tuple[str, DatedIndex]], tree: str | None) -> None:
    """Keep what a dated pip build of key read of its indexes (nothing for other setups, or when none served), and
    tree: the base tree its entry serves alone when it holds files of the project, else None."""
    if not _dated_pip(key, resolution) or not served or key.as_of is None:
        return
    folder = cache.root / STORE / VIEWS / _family(key)
    folder.mkdir(parents=True, exist_ok=True)
    views = [{"role": role, "exempt": list(index.exempt), "view": index.view()} for role, index in served]
    atomic_write_text(folder / _record_name(key.as_of),
                      json.dumps({"as_of": key.as_of, "tree": tree, "views": views}) + "\n")


def _seconds(text: str) -> float:
    found = instant(text)
    return found.timestamp() if found is not None else 0.0


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
