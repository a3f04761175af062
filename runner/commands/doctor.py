"""`runner doctor`: one line per check of what a long run needs of this machine (over runner.doctor)."""

from __future__ import annotations

import click

from corpus.errors import ExitCode
from runner.commands.options import settings_options
from runner.doctor import Check, DoctorOptions, doctor
from runner.settings import Settings


@click.command("doctor")
@click.option("--agent", "agents", multiple=True, metavar="NAME|NAME=CMD",
              help="Also check this agent (repeatable): a preset's CLI on PATH and its login, or a command's programs.")
@settings_options("--env-cache", "--no-env-cache")
def doctor_command(agents: tuple[str, ...], settings: Settings) -> int:
    """Check this machine before a long run or verify, one line per check: bubblewrap starts a sandbox, user
    namespaces, the interpreters (pyenv, PATH), uv, each --agent's CLI and login, and where scratch and the
    environment cache live with their free disk.

    Exits 0 when every check passes (a warning passes), 1 when one fails; each failing line says how to fix it.
    """

    def show(check: Check) -> None:
        click.echo(check.line())

    report = doctor(DoctorOptions(agents=agents, env_cache=settings.env_cache), on_check=show)
    return ExitCode.OK if report.ok else ExitCode.FAILED
