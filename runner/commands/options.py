"""What the `runner` commands share beyond `corpus.cli_support`: the --json flag, the gate's --corpus help, exits."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from corpus.errors import ExitCode
from runner.envs.cache import default_cache_dir
from runner.executors.settings import EXECUTORS, RaySettings
from runner.runs.find import default_results, resolve_run

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

sandbox_option = click.option(
    "--sandbox", type=click.Choice(["bwrap", "none"]), default="bwrap", show_default=True,
    help="Where setup, agent and grader run: a bubblewrap sandbox each, or none (on the host, as you).")
"""`--sandbox`, passed to the command as `sandbox`."""

json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
"""`--json`, passed to the command as `as_json`."""


def env_cache_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """`--env-cache DIR` and `--no-env-cache`, passed to the command as `env_cache` and `no_env_cache`."""
    command = click.option("--no-env-cache", is_flag=True,
                           help="Run every setup afresh in its own environment (no cache read or written).")(command)
    return click.option("--env-cache", type=click.Path(path_type=Path), default=None, metavar="DIR",
                        help="Share built environments and what setup leaves in the workspace between cases and "
                             "trials with the same interpreter, setup command and dependency files "
                             "[default: $XDG_CACHE_HOME/hindcast/envs].")(command)


def env_cache_dir(env_cache: Path | None, no_env_cache: bool) -> Path | None:
    """The cache directory the flags choose (None: no cache); click.UsageError when both are given."""
    if no_env_cache:
        if env_cache is not None:
            raise click.UsageError("use either --env-cache DIR or --no-env-cache, not both")
        return None
    return env_cache if env_cache is not None else default_cache_dir()


def run_dir(argument: Path, corpus_dir: Path | None, *, frozen: bool = True) -> Path:
    """The run directory a run argument names (``runner.runs.find.resolve_run``)."""
    return resolve_run(argument, default_results(corpus_dir), frozen=frozen)


def exits(**meanings: str) -> str:
    """``exit 0 PASS, 2 WARN``: each named ExitCode's number, then what it means for the command."""
    return "exit " + ", ".join(f"{int(ExitCode[name])} {meaning}".rstrip() for name, meaning in meanings.items())


def executor_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """`--executor`, `--ray-address`, `--retries`, `--trial-cpus`, `--trial-memory`."""
    for option in reversed((
        click.option("--executor", type=click.Choice(EXECUTORS), default="local", show_default=True,
                     help="Where trials run: threads here, or tasks on a Ray cluster (pip install 'hindcast[ray]')."),
        click.option("--ray-address", metavar="ADDR", default=None,
                     help="The Ray cluster [default: RAY_ADDRESS, else the cluster started on this machine]."),
        click.option("--retries", type=click.IntRange(min=0), default=2, show_default=True, metavar="N",
                     help="With ray: times a trial lost with its worker or node is submitted again."),
        click.option("--trial-cpus", type=click.FloatRange(min=0, min_open=True), default=1.0, show_default=True,
                     metavar="N", help="With ray: CPUs each trial reserves on the cluster."),
        click.option("--trial-memory", metavar="SIZE", default=None,
                     help="With ray: memory each trial reserves on the cluster (bytes, or 512M, 4G)."),
    )):
        function = option(function)
    return function


def ray_settings(executor: str, ray_address: str | None, retries: int, trial_cpus: float,
                 trial_memory: str | None) -> RaySettings:
    """The --executor ray settings, checked (click.UsageError naming the option)."""
    if executor != "ray":
        given = [name for name, value in (("--ray-address", ray_address), ("--trial-memory", trial_memory))
                 if value is not None]
        if given:
            raise click.UsageError(f"{given[0]} is for --executor ray")
    return RaySettings(ray_address, retries, trial_cpus, parse_size(trial_memory) if trial_memory else None)


def parse_size(text: str) -> int:
    """Bytes of `123`, `512M`, `4G` (K, M, G, T; powers of 1024); click.UsageError naming --trial-memory."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(?:i?[bB])?\s*", text)
    if match is None:
        raise click.UsageError(f"--trial-memory {text!r}: expected bytes or a size like 512M or 4G")
    number, unit = float(match.group(1)), match.group(2).upper()
    size = int(number * 1024 ** " KMGT".index(unit or " "))
    if size < 1:
        raise click.UsageError(f"--trial-memory {text!r}: must be at least one byte")
    return size
