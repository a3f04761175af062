"""`runner env list` and `runner env prune`: the environment cache (over runner.envs.manage)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from corpus.errors import ExitCode
from runner.commands.options import json_option, settings_options
from runner.envs.cache import env_cache_dir
from runner.envs.manage import list_entries, prune_entries
from runner.settings import Settings

cache_dir_option = settings_options("--env-cache")


@click.group("env")
def env_group() -> None:
    """The environment cache shared by `runner verify` and `runner run`."""


@env_group.command("list")
@cache_dir_option
@json_option
def list_command(settings: Settings, as_json: bool) -> int:
    """Every cached environment: key, python, setup command, size, last use and the cases that used it."""
    directory = _directory(settings)
    entries = list_entries(directory)
    if as_json:
        click.echo(json.dumps([entry.meta for entry in entries], indent=2, sort_keys=True))
        return ExitCode.OK
    if not entries:
        click.echo(f"no cached environments in {directory}")
        return ExitCode.OK
    click.echo(f"{'KEY':<24}  {'PYTHON':<7}  {'SIZE':>9}  {'LAST USED':<25}  CASES  COMMAND")
    for entry in entries:
        cases = ",".join(entry.cases)
        click.echo(f"{entry.key:<24}  {entry.python or '-':<7}  {_size(entry.size):>9}  {entry.last_used:<25}  "
                   f"{cases or '-'}  {entry.command or '-'}")
    return ExitCode.OK


@env_group.command("prune")
@cache_dir_option
@click.option("--older-than", type=click.FloatRange(min=0), default=None, metavar="DAYS",
              help="Remove environments not used for more than DAYS days.")
@click.option("--all", "everything", is_flag=True, help="Remove every environment not in use.")
def prune_command(settings: Settings, older_than: float | None, everything: bool) -> int:
    """Remove cached environments (never one a running verify or run is using) and half-built leftovers, and
    empty the cache's trash (what failed or interrupted builds left)."""
    result = prune_entries(_directory(settings), older_than, everything)
    for digest in result.in_use:
        click.echo(f"{digest}: in use, kept", err=True)
    click.echo(f"removed {len(result.removed)} environment(s), {_size(result.freed)} freed")
    return ExitCode.OK


def _directory(settings: Settings) -> Path:
    """The cache directory --env-cache names (the default one without it)."""
    directory = env_cache_dir(settings.env_cache)
    assert directory is not None  # the command has no --no-env-cache
    return directory


def _size(size: int) -> str:
    """Bytes as B, KiB, MiB or GiB."""
    amount, unit = float(size), "B"
    for unit in ("B", "KiB", "MiB", "GiB"):
        if amount < 1024 or unit == "GiB":
            break
        amount /= 1024
    return f"{amount:.0f} {unit}" if unit == "B" else f"{amount:.1f} {unit}"
