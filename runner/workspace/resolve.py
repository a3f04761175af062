"""Deciding how a case's setup resolves (`runner.envs.resolution`): its uv installs resolved as of the fix's date
in setup's sandbox, else today's; the resolved set keys the environment cache."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from pathlib import Path

from corpus.fsutil import atomic_write_text
from corpus.interpreters import find_python
from corpus.model import Case
from runner.envs.cache import EnvCache
from runner.envs.environment import (
    UV_SETUP_ENV,
    base_environment,
    failure_line,
    uv_binary,
    version_environment,
)
from runner.envs.key import dependency_digest
from runner.envs.resolution import (
    CONFIG_NAME,
    RUNTIME_CONFIG_NAME,
    Installs,
    Resolution,
    build_tools_in,
    compile_command,
    fix_date,
    resolved_digest,
    uv_installs,
    write_config,
)
from runner.process import run_command
from runner.sandbox.bwrap import Bind
from runner.sandbox.confine import Confinement, phase_sandbox
from runner.workspace.pipdated import pip_fall_back, pip_resolution
from runner.workspace.workspace import copy_workspace

RESOLUTION_DIR = "resolution"
COMPILE_TIMEOUT = 300
"""Seconds a resolution may take (it may build the project's metadata)."""
STORE = "resolutions"
"""The cache directory's folder of the resolutions decided, so a warm run resolves nothing: a dated one does not
change with time; a today's one keys its entry as of the day it was decided, as dependency files did."""

_DECIDED: dict[str, Resolution] = {}
_LOCKS: dict[str, threading.Lock] = {}
_LOCK = threading.Lock()


def resolution_dir(scratch: Path) -> Path:
    """Where a setup's resolution files are (bound into setup's sandbox at their own path)."""
    return scratch / RESOLUTION_DIR


def decide(case: Case, repo: Path, workspace: Path, scratch: Path, confinement: Confinement | None,
           cache: EnvCache | None = None) -> Resolution | None:
    """How the case's setup resolves: as of the fix's date when its uv installs resolve so, else today's (None
    when setup installs nothing with uv or pip; a pip setup as `runner.workspace.pipdated` decides). Decided once
    per interpreter, command, dependency files and date in a process, and once per cache directory."""
    installs = uv_installs(case.setup.command)
    if installs is None:
        return pip_resolution(case, repo, resolution_dir(scratch), cache)
    as_of = fix_date(repo, case.fix_commit)
    if as_of is None:
        return Resolution(None, "resolution: today's; the fix's date cannot be read", None, installs.only)
    python = str(find_python(case.setup.python)) if case.setup.python else None
    name = _name(case, repo, python, as_of)
    with _LOCK:
        lock = _LOCKS.setdefault(name, threading.Lock())
    with lock:
        found = _DECIDED.get(name) or _stored(cache, name)
        if found is None:
            version = version_environment(repo, case.base_commit)
            found = _decide(installs, as_of, python, workspace, scratch, confinement, cache, version)
            _store(cache, name, found)
        _DECIDED[name] = found
    if found.as_of is not None:
        write_config(resolution_dir(scratch), found.as_of)
    return found


def fall_back(case: Case, repo: Path, workspace: Path, scratch: Path, confinement: Confinement | None,
              cache: EnvCache | None, dated: Resolution, why: str) -> Resolution:
    """Today's resolution for a case whose dated setup failed (why), resolved again today; decided so for every
    later setup of the same interpreter, command, dependency files and date."""
    installs = uv_installs(case.setup.command)
    if installs is None:
        return pip_fall_back(case, repo, dated, why, cache)
    assert dated.as_of is not None
    python = str(find_python(case.setup.python)) if case.setup.python else None
    probe = copy_workspace(workspace, resolution_dir(scratch) / "workspace")
    try:
        today, _ = _compile(installs, python, probe, scratch, confinement, cache, None,
                            version_environment(repo, case.base_commit))
    finally:
        shutil.rmtree(probe, ignore_errors=True)
    found = Resolution(None, f"resolution: today's; as of the fix's date {dated.as_of} setup fails: {why}", today,
                       installs.only)
    name = _name(case, repo, python, dated.as_of)
    with _LOCK:
        _DECIDED[name] = found
    _store(cache, name, found)
    return found


def _name(case: Case, repo: Path, python: str | None, as_of: str) -> str:
    digest = dependency_digest(repo, case.base_commit)[0]
    return hashlib.sha256(json.dumps([python, case.setup.command, digest, as_of]).encode()).hexdigest()[:24]


def _decide(installs: Installs, as_of: str, python: str | None, workspace: Path, scratch: Path,
            confinement: Confinement | None, cache: EnvCache | None, version: dict[str, str]) -> Resolution:
    probe = copy_workspace(workspace, resolution_dir(scratch) / "workspace")
    try:
        return _decide_in(installs, as_of, python, probe, scratch, confinement, cache, version)
    finally:
        shutil.rmtree(probe, ignore_errors=True)


def _decide_in(installs: Installs, as_of: str, python: str | None, workspace: Path, scratch: Path,
               confinement: Confinement | None, cache: EnvCache | None, version: dict[str, str]) -> Resolution:
    """The decision, resolving in workspace: a copy of the case's, as building the project's metadata may write
    into it (`*.egg-info`) and setup must start from the base as every other trial's does; with the base's version
    from its tags, as setup has it (`version_environment`)."""
    dated, why = _compile(installs, python, workspace, scratch, confinement, cache, as_of, version)
    if dated is not None:
        # the build tools the environment will hold, at their dated versions (setup sets them back so): with the
        # set, they are all the date decides, so fixes of other dates that resolve alike share an entry
        names = build_tools_in((resolution_dir(scratch) / "dated.txt").read_text(encoding="utf-8"))
        tools, _ = _compile(Installs(names, (), True), python, workspace, scratch, confinement, cache, as_of,
                            version, RUNTIME_CONFIG_NAME, "tools")
        resolved = hashlib.sha256(f"{dated}\n{tools or as_of}".encode()).hexdigest()
        return Resolution(as_of, f"resolution: as of the fix's date {as_of} (build tools today's)", resolved,
                          installs.only)
    today, failed = _compile(installs, python, workspace, scratch, confinement, cache, None, version)
    if today is not None:
        return Resolution(None, f"resolution: today's; as of the fix's date {as_of} it does not resolve: {why}",
                          today, installs.only)
    return Resolution(None, f"resolution: today's; setup's installs do not resolve before it runs: {failed}", None,
                      installs.only)


def _compile(installs: Installs, python: str | None, workspace: Path, scratch: Path,
             confinement: Confinement | None, cache: EnvCache | None, as_of: str | None,
             version: dict[str, str], config: str = CONFIG_NAME, label: str = "") -> tuple[str | None, str]:
    """The resolved set's digest (None when it does not resolve) and the failure's line; dated by the
    configuration file named config, written to `<label or dated or today>.txt`."""
    directory = resolution_dir(scratch)
    tools = directory / "bin"
    tools.mkdir(parents=True, exist_ok=True)
    if not os.path.lexists(tools / "uv"):
        (tools / "uv").symlink_to(uv_binary())
    requirements = directory / "requirements.in"
    atomic_write_text(requirements, "".join(f"{line}\n" for line in installs.requirements))
    label = label or ("dated" if as_of else "today")
    output = directory / f"{label}.txt"
    output.unlink(missing_ok=True)
    env = {**version, **base_environment(), **UV_SETUP_ENV, **(cache.setup_variables() if cache is not None else {})}
    interpreter = [os.path.dirname(python)] if python else []  # on PATH: the sandbox shows PATH's interpreters
    env["PATH"] = os.pathsep.join([str(tools), *interpreter, env.get("PATH", "")])
    if as_of is not None:
        write_config(directory, as_of)
        env.update(Resolution(as_of, "").setup_variables(directory, config))
    else:
        env.pop("UV_CONFIG_FILE", None)
    binds = [Bind(directory, str(directory), writable=True), Bind(uv_binary(), str(uv_binary()))]
    if cache is not None:
        binds += [Bind(d, str(d), writable=True) for d in cache.download_dirs()]
    sandbox = phase_sandbox(confinement or Confinement("none"), "setup", scratch, workspace=workspace, env=env,
                            extra=binds)
    result = run_command(compile_command(installs, python, output, requirements), workspace, env,
                         COMPILE_TIMEOUT, directory / f"compile-{label}.log", sandbox=sandbox)
    if result.start_error:
        return None, f"could not start: {result.start_error}"
    if result.timed_out:
        return None, f"timed out after {COMPILE_TIMEOUT}s"
    if result.exit_code != 0 or not output.is_file():
        return None, failure_line(result.tail) or f"exit {result.exit_code}"
    return resolved_digest(output.read_text(encoding="utf-8")), ""


def _stored(cache: EnvCache | None, name: str) -> Resolution | None:
    if cache is None:
        return None
    try:
        data = json.loads((cache.root / STORE / f"{name}.json").read_text(encoding="utf-8"))
        return Resolution(data["as_of"], data["origin"], data["resolved"], bool(data["only"]))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _store(cache: EnvCache | None, name: str, found: Resolution) -> None:
    if cache is None:
        return
    (cache.root / STORE).mkdir(exist_ok=True)
    atomic_write_text(cache.root / STORE / f"{name}.json",
                      json.dumps({"as_of": found.as_of, "origin": found.origin, "resolved": found.resolved,
                                  "only": found.only}) + "\n")
