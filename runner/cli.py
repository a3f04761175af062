"""`runner`: validate, verify and score coding agents against the corpus (thin layer over the library)."""

from __future__ import annotations

import gc
import sys

import click

from corpus.cli_support import CONTEXT, run_cli, version_option
from corpus.errors import ExitCode
from runner.children import first_interrupt_only
from runner.commands.compare import compare_command
from runner.commands.doctor import doctor_command
from runner.commands.env import env_group
from runner.commands.flakes import flakes_command
from runner.commands.interop import export_command, import_command
from runner.commands.merge import merge_command
from runner.commands.report import report_command
from runner.commands.run import run_command
from runner.commands.runs import runs_command
from runner.commands.sample import sample_command
from runner.commands.select import select_command
from runner.commands.triage import triage_command
from runner.commands.validate import validate_command
from runner.commands.verify import verify_command

COMMANDS = (validate_command, verify_command, run_command, runs_command, report_command, compare_command,
            flakes_command, triage_command, select_command, import_command, export_command, merge_command,
            sample_command, env_group, doctor_command)


@click.group(context_settings=CONTEXT)
@version_option("runner")
def cli() -> None:
    """Validate the corpus, prove its cases, run agents on them and compare runs."""


for _command in COMMANDS:
    cli.add_command(_command)

def main() -> None:
    """The `runner` console script: a Ctrl-C stops the command, and a second one does not cut that stop short.

    A stopped command exits without the interpreter's last garbage collection, a walk over every object of its
    modules (0.1-0.4 s on a loaded 2-core machine) that frees nothing a process about to end needs freed; atexit
    handlers and the joining of threads still run."""
    first_interrupt_only()
    code = run_cli(cli, "runner")
    if code == ExitCode.INTERRUPTED:
        gc.freeze()
    sys.exit(code)
