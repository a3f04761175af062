"""How the runner's commands run, as one frozen value (`Settings`): the sandbox and what agents see in it, the
environment cache, the executor and its cluster, jobs; the words that give it on the command line (`cli_words`);
and run.json's record of it (`RecordedSettings`). It imports nothing of runner, so the commands, trials, verify,
the executors and the reports all read it without climbing."""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Final, Literal, NamedTuple

from corpus.errors import UsageError

SandboxKind = Literal["bwrap", "none"]
SANDBOXES: tuple[SandboxKind, ...] = ("bwrap", "none")
ExecutorKind = Literal["local", "ray"]
EXECUTORS: tuple[ExecutorKind, ...] = ("local", "ray")
"""Where trials run: threads of this process, or tasks on a Ray cluster."""
DEFAULT_ENV_CACHE: Final = "default"
"""Settings.env_cache for the default cache directory of the machine the command runs on."""
EnvCacheChoice = Path | Literal["default"] | None
NEEDS_SANDBOX = ("--env-cache with --sandbox none: a cached environment serves sandboxed trials only, whose "
                 "workspace is always /workspace (on the host each has a path of its own); drop one of them")
"""The one-line refusal of an environment cache without the sandbox."""

FLAGS: Final = {"jobs": "--jobs", "sandbox": "--sandbox", "agent_network": "--agent-network",
                "agent_binds": "--agent-bind", "agent_home": "--agent-home", "env_cache": "--env-cache",
                "keep": "--keep", "max_errors": "--max-errors", "prices": "--prices", "executor": "--executor",
                "ray_address": "--ray-address", "retries": "--retries", "trial_cpus": "--trial-cpus",
                "trial_memory": "--trial-memory", "memory_limit": "--memory-limit", "process_limit": "--process-limit",
                "tmp_size": "--tmp-size", "workspace_limit": "--workspace-limit", "patch_limit": "--patch-limit"}
"""The command-line option of each setting (--no-env-cache is env_cache's other one)."""
MiB: Final = 1024 * 1024
GiB: Final = 1024 * MiB
LIMITS: Final = {"memory_limit": 8 * GiB, "process_limit": 4096, "tmp_size": 1 * GiB, "workspace_limit": 4 * GiB,
                 "patch_limit": 20 * MiB}
"""The limits of each sandboxed command and of a trial, with their defaults (`runner.sandbox.limits`)."""
RAY_ONLY = ("ray_address", "retries", "trial_cpus", "trial_memory")
"""The settings that mean something only with executor ray."""


class Change(NamedTuple):
    """One setting whose value differs from the one recorded (given at a resume)."""

    flag: str
    """The setting's option, e.g. --jobs."""
    old: str
    """The recorded value, as words."""
    new: str
    """The value now."""

    def __str__(self) -> str:
        return f"{self.flag} {self.old} -> {self.new}"


@dataclass(frozen=True)
class Settings:
    """How a command runs its trials or verify attempts (not what it measures: that is the run's configuration).

    With sandbox none, env_cache DEFAULT_ENV_CACHE is no cache: the default cache serves sandboxed runs only, and
    a cache directory given with sandbox none is refused (`check`)."""

    jobs: int = 1
    """Trials (verify: attempts) run at once."""
    sandbox: SandboxKind = "bwrap"
    """bwrap: setup, agent and grader run in bubblewrap; none: on the host."""
    agent_network: bool = True
    """Agents keep the host's network (--agent-network none turns it off)."""
    agent_binds: tuple[Path, ...] = ()
    """Host paths shown read-only inside the sandbox (--agent-bind)."""
    agent_home: tuple[Path, ...] = ()
    """Files of the real HOME copied into each agent's HOME (--agent-home)."""
    env_cache: EnvCacheChoice = None
    """The environment cache: a directory, DEFAULT_ENV_CACHE (the CLI's default), or None for none (the library's
    default, --no-env-cache)."""
    keep: bool = False
    """Keep each trial's scratch directory, or each verify attempt's workspace (--keep)."""
    max_errors: int | None = None
    """runner run: stop starting trials once this many ended in error (0: never); None: once the first five to
    finish all errored with the same reason (--max-errors)."""
    prices: Path | None = None
    """runner run: a price table for trials whose agent reports tokens but no cost (--prices)."""
    executor: ExecutorKind = "local"
    """local (threads here) or ray (tasks on a Ray cluster, --executor)."""
    ray_address: str | None = None
    """With ray: the cluster (`ray://host:10001`, `host:6379`); None: RAY_ADDRESS or the one started here."""
    retries: int = 2
    """With ray: times a trial or attempt lost with its worker or node is submitted again."""
    trial_cpus: float = 1.0
    """With ray: CPUs each trial or attempt reserves."""
    trial_memory: int | None = None
    """With ray: bytes of memory each trial or attempt reserves (None: no reservation)."""
    memory_limit: int | None = LIMITS["memory_limit"]
    """Bytes of memory each sandboxed command may use with every process it starts (None: no limit)."""
    process_limit: int | None = LIMITS["process_limit"]
    """Processes and threads each sandboxed command may have at once (None: no limit)."""
    tmp_size: int = LIMITS["tmp_size"]
    """Bytes of each sandbox's /tmp (a tmpfs)."""
    workspace_limit: int | None = LIMITS["workspace_limit"]
    """Bytes of the agent's workspace when it ends, and of any one file a sandboxed command writes (None: no
    limit)."""
    patch_limit: int = LIMITS["patch_limit"]
    """Bytes of a candidate patch: a bigger one fails its trial."""

    def __post_init__(self) -> None:
        if self.sandbox == "none" and self.env_cache == DEFAULT_ENV_CACHE:
            object.__setattr__(self, "env_cache", None)

    def check(self) -> Settings:
        """These settings, or UsageError naming the flags of a combination that cannot run."""
        if self.sandbox == "none" and self.env_cache is not None:
            raise UsageError(NEEDS_SANDBOX)
        return self

    def absolute(self) -> Settings:
        """The settings with their paths absolute (as the working directory names them), so they mean the same
        from anywhere: what a run records and a resume restores."""
        env_cache = self.env_cache
        if isinstance(env_cache, Path):
            env_cache = Path(os.path.abspath(env_cache))
        return replace(self, agent_binds=tuple(Path(os.path.abspath(p)) for p in self.agent_binds),
                       agent_home=tuple(Path(os.path.abspath(p)) for p in self.agent_home), env_cache=env_cache,
                       prices=Path(os.path.abspath(self.prices)) if self.prices is not None else None)

    def over(self, given: Settings, names: Iterable[str]) -> Settings:
        """These settings with the named ones taken from given (the settings named on a command line)."""
        return replace(self, **{name: getattr(given, name) for name in names})

    def changes(self, new: Settings) -> tuple[Change, ...]:
        """Every setting new gives otherwise, with both values as words."""
        return tuple(Change(FLAGS[f.name], self.text(f.name), new.text(f.name)) for f in fields(self)
                     if getattr(self, f.name) != getattr(new, f.name))

    def text(self, name: str) -> str:
        """One setting's value as words: `4`, `none`, `host`, `/a /b`, `off`."""
        value = getattr(self, name)
        if name == "agent_network":
            return "host" if value else "none"
        if name == "env_cache":
            return "off" if value is None else str(value)
        if isinstance(value, tuple):
            return " ".join(str(p) for p in value) or "none"
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, float):
            return f"{value:g}"
        return "none" if value is None else str(value)

    def cli_words(self) -> list[str]:
        """The options that give these settings to `runner run` (nothing for a setting at the CLI's default)."""
        words: list[str] = []
        if self.jobs != 1:
            words += ["--jobs", str(self.jobs)]
        if self.sandbox != "bwrap":
            words += ["--sandbox", self.sandbox]
        if not self.agent_network:
            words += ["--agent-network", "none"]
        for path in self.agent_binds:
            words += ["--agent-bind", str(path)]
        for path in self.agent_home:
            words += ["--agent-home", str(path)]
        if isinstance(self.env_cache, Path):
            words += ["--env-cache", str(self.env_cache)]
        elif self.env_cache is None and self.sandbox == "bwrap":
            words.append("--no-env-cache")
        if self.keep:
            words.append("--keep")
        if self.max_errors is not None:
            words += ["--max-errors", str(self.max_errors)]
        if self.prices is not None:
            words += ["--prices", str(self.prices)]
        for name, default_value in LIMITS.items():
            if getattr(self, name) != default_value:
                words += [FLAGS[name], self.text(name)]
        if self.executor == "ray":
            default = Settings()
            words += ["--executor", "ray"]
            words += ["--ray-address", self.ray_address] if self.ray_address else []
            words += ["--retries", str(self.retries)] if self.retries != default.retries else []
            words += ["--trial-cpus", f"{self.trial_cpus:g}"] if self.trial_cpus != default.trial_cpus else []
            words += ["--trial-memory", str(self.trial_memory)] if self.trial_memory else []
        return words

    def to_json(self) -> dict[str, Any]:
        """The settings as JSON values (paths as strings)."""
        data: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, tuple):
                value = [str(p) for p in value]
            elif isinstance(value, Path):
                value = str(value)
            data[f.name] = value
        return data

    @staticmethod
    def from_json(data: Mapping[str, Any]) -> Settings:
        """Settings from to_json's values; a setting missing is its default. ValueError naming a bad value."""
        values: dict[str, Any] = {}
        for f in fields(Settings):
            if f.name in data:
                values[f.name] = _value(f.name, data[f.name])
        return Settings(**values)


def _value(name: str, value: Any) -> Any:
    """A setting's value from JSON, checked."""
    def bad() -> ValueError:
        return ValueError(f"settings: {name}: {value!r} is not a valid value")

    if name in ("agent_binds", "agent_home"):
        if not isinstance(value, list) or not all(isinstance(p, str) for p in value):
            raise bad()
        return tuple(Path(p) for p in value)
    if (name == "sandbox" and value not in SANDBOXES) or (name == "executor" and value not in EXECUTORS):
        raise bad()
    if name == "env_cache":
        if value is None or value == DEFAULT_ENV_CACHE:
            return value
        if not isinstance(value, str):
            raise bad()
        return Path(value)
    if name == "prices":
        if value is not None and not isinstance(value, str):
            raise bad()
        return Path(value) if value is not None else None
    if name in ("agent_network", "keep") and not isinstance(value, bool):
        raise bad()
    if name in ("jobs", "retries") and (not isinstance(value, int) or isinstance(value, bool)):
        raise bad()
    if name in ("tmp_size", "patch_limit") and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
        raise bad()
    if name in ("max_errors", "trial_memory", "memory_limit", "process_limit", "workspace_limit") and value is not None and (
            not isinstance(value, int) or isinstance(value, bool)):
        raise bad()
    if name == "trial_cpus":
        if not isinstance(value, int | float) or isinstance(value, bool):
            raise bad()
        return float(value)
    if name == "ray_address" and value is not None and not isinstance(value, str):
        raise bad()
    return value


@dataclass(frozen=True)
class RecordedSettings:
    """run.json's `settings`: the settings a run was started with, and the bubblewrap its sandbox was."""

    settings: Settings
    """The settings, their paths absolute."""
    bwrap_version: str | None = None
    """bubblewrap's version (None unsandboxed, or when it could not be told)."""
    isolation: Mapping[str, Any] | None = None
    """What of the sandbox's isolation applied on the machine that started the run (`runner.sandbox.confine.
    isolation`): user namespace, keyring filter, how memory and processes were limited (None unsandboxed, or a
    run made before runs recorded it)."""
    inferred: bool = False
    """A run made before run.json recorded its settings: read from its runtime's sandbox and its jobs, the rest
    the CLI's defaults (never written back)."""

    def runtime_sandbox(self) -> dict[str, Any]:
        """What the runtime (and its fingerprint) records of the sandbox."""
        settings = self.settings
        return {"kind": settings.sandbox, "version": self.bwrap_version,
                "agent_network": settings.agent_network, "binds": [str(p) for p in settings.agent_binds],
                "home_copies": [str(p) for p in settings.agent_home]}

    def to_json(self) -> dict[str, Any]:
        """run.json's `settings` object."""
        return {**self.settings.to_json(), "bwrap_version": self.bwrap_version,
                "isolation": dict(self.isolation) if self.isolation is not None else None}

    @staticmethod
    def from_json(data: Any, runtime: Mapping[str, Any], jobs: int) -> RecordedSettings | None:
        """The record of run.json's `settings`, or, for a run made before runs recorded them, what its runtime's
        sandbox and its configuration's jobs say (None when neither is there: a run made elsewhere). ValueError
        naming a bad value."""
        if data is not None:
            if not isinstance(data, dict):
                raise ValueError(f"settings: {data!r} is not an object")
            version = data.get("bwrap_version")
            if version is not None and not isinstance(version, str):
                raise ValueError(f"settings: bwrap_version: {version!r} is not a string")
            isolation = data.get("isolation")
            if isolation is not None and not isinstance(isolation, dict):
                raise ValueError(f"settings: isolation: {isolation!r} is not an object")
            return RecordedSettings(Settings.from_json(data), version, isolation)
        sandbox = runtime.get("sandbox")
        if not isinstance(sandbox, dict) or sandbox.get("kind") not in SANDBOXES:
            return None
        settings = Settings.from_json({"jobs": jobs, "sandbox": sandbox["kind"],
                                       "agent_network": bool(sandbox.get("agent_network", True)),
                                       "agent_binds": list(sandbox.get("binds") or ()),
                                       "agent_home": list(sandbox.get("home_copies") or ()),
                                       "env_cache": DEFAULT_ENV_CACHE})
        version = sandbox.get("version")
        return RecordedSettings(settings, version if isinstance(version, str) else None, inferred=True)


def resume_command(run_dir: Path | str, settings: Settings) -> str:
    """The `runner run --resume` command line that completes run_dir with these settings, shell-quoted."""
    return shlex.join(["runner", "run", "--resume", str(run_dir), *settings.cli_words()])
