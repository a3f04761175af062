"""What the `runner` commands share beyond `corpus.cli_support`: the settings options (one group, each command takes
those it needs), the --json flag, the gate's --corpus help, exits."""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
from click.core import ParameterSource

from corpus.errors import ExitCode
from runner.runs.find import default_results, resolve_run
from runner.settings import DEFAULT_ENV_CACHE, EXECUTORS, FLAGS, LIMITS, SANDBOXES, Settings

GATE_CORPUS_HELP = "Corpus directory (case policy and criticality)."
"""--corpus help of the commands that read case policy and criticality from a corpus (select)."""

RUN_HELP = ("A run directory, a frozen run file (runner export --json), `latest` (the newest run) or a run's "
            "--name, bare (looked up in the --corpus results) or after a results directory (results/latest).")
"""How a run argument can be written (``runner.runs.find.resolve_run``)."""

recorded_corpus_option = click.option(
    "--corpus", "corpus_dir", type=click.Path(path_type=Path), default=None,
    help="Apply this corpus's case policy and criticality as they are today instead of what the runs recorded; "
         "also where a bare `latest` or run name is looked up [default: ./evals].")
"""`--corpus` of the commands that judge runs from their own records (compare, flakes, triage)."""

json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
"""`--json`, passed to the command as `as_json`."""


def run_dir(argument: Path, corpus_dir: Path | None, *, frozen: bool = True) -> Path:
    """The run directory a run argument names (``runner.runs.find.resolve_run``)."""
    return resolve_run(argument, default_results(corpus_dir), frozen=frozen)


def exits(**meanings: str) -> str:
    """``exit 0 PASS, 2 WARN``: each named ExitCode's number, then what it means for the command."""
    return "exit " + ", ".join(f"{int(ExitCode[name])} {meaning}".rstrip() for name, meaning in meanings.items())


SETTINGS_OPTIONS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "--jobs": click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True,
                           help="Trials (verify: attempts) run at once."),
    "--sandbox": click.option(
        "--sandbox", type=click.Choice(SANDBOXES), default="bwrap", show_default=True,
        help="Where setup, agent and grader run: a bubblewrap sandbox each, or none (on the host, as you)."),
    "--agent-network": click.option(
        "--agent-network", type=click.Choice(["host", "none"]), default="host", show_default=True,
        help="The agent's network inside the sandbox: the host's, or none (loopback only)."),
    "--agent-bind": click.option(
        "--agent-bind", "agent_binds", multiple=True, type=click.Path(path_type=Path), metavar="PATH",
        help="Show this host path read-only at the same path inside the sandbox, e.g. the agent's CLI or a "
             "toolchain under your home directory (repeatable)."),
    "--agent-home": click.option(
        "--agent-home", "agent_home", multiple=True, type=click.Path(path_type=Path), metavar="PATH",
        help="Copy this file or directory of your home directory into each agent's own HOME, e.g. ~/.codex or "
             "~/.claude (repeatable); changes stay in the trial."),
    "--env-cache": click.option(
        "--env-cache", type=click.Path(path_type=Path), default=None, metavar="DIR",
        help="The environment cache: built environments and what setup leaves in the workspace, shared between "
             "cases and trials with the same interpreter, setup command and dependency files; sandboxed runs "
             "only [default: $XDG_CACHE_HOME/hindcast/envs]."),
    "--no-env-cache": click.option(
        "--no-env-cache", is_flag=True,
        help="Run every setup afresh in its own environment (no cache read or written)."),
    "--keep": click.option("--keep", is_flag=True,
                           help="Keep each trial's workspace (verify: every attempt's workspace and logs, under "
                                ".hindcast/verify/), for debugging."),
    "--max-errors": click.option(
        "--max-errors", type=click.IntRange(min=0), default=None, metavar="N",
        help="Stop starting trials once N have ended in error; 0 never stops [default: stop when the first five "
             "to finish all errored with the same reason]. The run stays resumable."),
    "--prices": click.option(
        "--prices", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
        help="A price table (YAML or JSON: per model, USD per million input, cache_read, cache_write and output "
             "tokens) costing trials whose agent reports tokens but no cost."),
    "--executor": click.option(
        "--executor", type=click.Choice(EXECUTORS), default="local", show_default=True,
        help="Where trials (verify: attempts) run: threads here, or tasks on a Ray cluster "
             "(needs Ray: uv pip install 'ray>=2.9', or install Hindcast with its ray extra)."),
    "--ray-address": click.option(
        "--ray-address", metavar="ADDR", default=None,
        help="The Ray cluster [default: RAY_ADDRESS, else the cluster started on this machine]."),
    "--retries": click.option(
        "--retries", type=click.IntRange(min=0), default=2, show_default=True, metavar="N",
        help="With ray: times a trial (verify: attempt) lost with its worker or node is submitted again."),
    "--trial-cpus": click.option(
        "--trial-cpus", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True, metavar="N",
        help="With ray: CPUs each trial (verify: attempt) reserves on the cluster."),
    "--trial-memory": click.option(
        "--trial-memory", metavar="SIZE", default=None,
        help="With ray: memory each trial (verify: attempt) reserves on the cluster (bytes, or 512M, 4G)."),
    "--memory-limit": click.option(
        "--memory-limit", metavar="SIZE", default=None,
        help="Memory each sandboxed command (setup, agent, grader) may use with every process it starts: a "
             "cgroup where the machine allows, else each process's data rlimit (bytes, 512M, 4G, or none) "
             "[default: 8G]."),
    "--process-limit": click.option(
        "--process-limit", metavar="N", default=None,
        help="Processes and threads each sandboxed command may have at once (a number, or none) [default: 4096]."),
    "--tmp-size": click.option(
        "--tmp-size", metavar="SIZE", default=None,
        help="Size of each sandbox's /tmp, a tmpfs (bytes, 512M, 4G) [default: 1G]."),
    "--workspace-limit": click.option(
        "--workspace-limit", metavar="SIZE", default=None,
        help="The agent's workspace when it ends, and any one file a sandboxed command writes; over it the "
             "trial fails (bytes, 512M, 4G, or none) [default: 4G]."),
    "--patch-limit": click.option(
        "--patch-limit", metavar="SIZE", default=None,
        help="A candidate patch; over it the trial fails, ungraded (bytes, 512K, 20M) [default: 20M]."),
}
"""Every option of `runner.settings.Settings`, declared once; `settings_options` gives a command those it takes."""
LIMIT_FLAGS = ("--memory-limit", "--process-limit", "--tmp-size", "--workspace-limit", "--patch-limit")
"""The limits of each sandboxed command and of a trial's workspace and patch."""
EXECUTOR_FLAGS = ("--executor", "--ray-address", "--retries", "--trial-cpus", "--trial-memory")
"""--executor and the options of its Ray cluster."""
SETTINGS_FLAGS = tuple(SETTINGS_OPTIONS)
"""Every settings option (runner run's)."""
_PARAMS = {"--jobs": "jobs", "--sandbox": "sandbox", "--agent-network": "agent_network",
           "--agent-bind": "agent_binds", "--agent-home": "agent_home", "--env-cache": "env_cache",
           "--no-env-cache": "no_env_cache", "--keep": "keep", "--max-errors": "max_errors", "--prices": "prices",
           "--executor": "executor", "--ray-address": "ray_address", "--retries": "retries",
           "--trial-cpus": "trial_cpus", "--trial-memory": "trial_memory", "--memory-limit": "memory_limit",
           "--process-limit": "process_limit", "--tmp-size": "tmp_size", "--workspace-limit": "workspace_limit",
           "--patch-limit": "patch_limit"}
"""Each settings option's parameter: the Settings field it sets (no_env_cache sets env_cache)."""


def settings_options(*flags: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the settings options named (from SETTINGS_OPTIONS), passed to it as one `settings`
    (`runner.settings.Settings`, the CLI's defaults for the options it does not take) and, when the command has
    a `given` parameter, the names of the settings given on the command line."""
    unknown = [flag for flag in flags if flag not in SETTINGS_OPTIONS]
    assert not unknown, unknown

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        takes_given = "given" in inspect.signature(command).parameters
        params = [_PARAMS[flag] for flag in flags]

        @functools.wraps(command)
        def with_settings(**kwargs: Any) -> Any:
            source = click.get_current_context().get_parameter_source
            values = {name: kwargs.pop(name) for name in params}
            given = frozenset("env_cache" if param == "no_env_cache" else param for param in params
                              if source(param) not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP))
            kwargs["settings"] = _settings(values)
            if takes_given:
                kwargs["given"] = given
            return command(**kwargs)

        decorated: Callable[..., Any] = with_settings
        for flag in reversed(flags):
            decorated = SETTINGS_OPTIONS[flag](decorated)
        return decorated

    return decorate


def _settings(values: dict[str, Any]) -> Settings:
    """The Settings of a command's settings options (click.UsageError naming the option on bad input)."""
    fields: dict[str, Any] = {"env_cache": DEFAULT_ENV_CACHE}
    for name, value in values.items():
        if name == "agent_network":
            fields[name] = value == "host"
        elif name == "env_cache" and value is not None:
            fields[name] = value
        elif name == "no_env_cache" and value:
            if values.get("env_cache") is not None:
                raise click.UsageError("use either --env-cache DIR or --no-env-cache, not both")
            fields["env_cache"] = None
        elif name == "trial_memory":
            fields[name] = parse_size(value) if value is not None else None
        elif name in LIMITS:
            if value is not None:
                fields[name] = _limit(name, value)
        elif name not in ("env_cache", "no_env_cache"):
            fields[name] = value
    if fields.get("executor", "local") != "ray":
        named = [flag for flag, name in (("--ray-address", "ray_address"), ("--trial-memory", "trial_memory"))
                 if values.get(name) is not None]
        if named:
            raise click.UsageError(f"{named[0]} is for --executor ray")
    return Settings(**fields)


def _limit(name: str, text: str) -> int | None:
    """A limit's value from its option: a size (a count for --process-limit), or None for `none` where the
    limit may be lifted; click.UsageError naming the option."""
    flag = FLAGS[name]
    if text.strip().lower() == "none" and name not in ("tmp_size", "patch_limit"):
        return None
    if name == "process_limit":
        if not text.strip().isdigit() or int(text) < 1:
            raise click.UsageError(f"--process-limit {text!r}: expected a number of at least 1, or none")
        return int(text)
    return parse_size(text, flag)


def parse_size(text: str, flag: str = "--trial-memory") -> int:
    """Bytes of `123`, `512M`, `4G` (K, M, G, T; powers of 1024); click.UsageError naming flag."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    if match is None:
        raise click.UsageError(f"{flag} {text!r}: expected bytes or a size like 512M or 4G")
    number, unit = float(match.group(1)), match.group(2).upper()
    size = int(number * 1024 ** " KMGT".index(unit or " "))
    if size < 1:
        raise click.UsageError(f"{flag} {text!r}: must be at least one byte")
    return size
