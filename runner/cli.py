"""`runner`: validate, verify and score coding agents against the corpus (thin layer over the library)."""

from __future__ import annotations

import importlib

import click

from corpus.cli_support import CONTEXT, entry

# Each module exports COMMANDS, a list of click commands; this file only wires them together.
COMMAND_MODULES = ("runner.commands.verify", "runner.commands.run", "runner.commands.compare")


@click.group(context_settings=CONTEXT)
@click.version_option(package_name="hindcast")
def cli() -> None:
    """Validate the corpus, prove its cases, run agents on them and compare runs."""


for _name in COMMAND_MODULES:
    try:
        _module = importlib.import_module(_name)
    except ModuleNotFoundError as exc:
        if exc.name != _name:
            raise
        continue
    for _command in _module.COMMANDS:
        cli.add_command(_command)

main = entry(cli, "runner")
