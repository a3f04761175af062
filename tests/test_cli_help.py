"""Every command of every tool has help text, and `--help` works everywhere."""

from __future__ import annotations

import importlib

import click
import pytest

TOOLS = ["runner.cli", "miner.cli", "authoring.cli"]


def commands(group: click.Group, prefix: str) -> list[tuple[str, click.Command]]:
    found = [(prefix, group)]
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += commands(command, f"{prefix} {name}")
        else:
            found.append((f"{prefix} {name}", command))
    return found


def all_commands() -> list[tuple[str, click.Command]]:
    out = []
    for module_name in TOOLS:
        module = importlib.import_module(module_name)
        out += commands(module.cli, module_name.split(".")[0])
    return out


@pytest.mark.parametrize(("name", "command"), all_commands(), ids=[n for n, _ in all_commands()])
def test_command_has_help(name: str, command: click.Command) -> None:
    assert (command.help or "").strip(), f"{name} has no help text"
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert param.help or param.is_flag and param.name in ("help", "version"), \
                f"{name} {param.opts[0]} has no help text"
