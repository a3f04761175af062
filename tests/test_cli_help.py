"""Every command of every tool has help text, and `--help` works everywhere."""

from __future__ import annotations

import importlib
import re

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
            assert param.help or (param.is_flag and param.name in ("help", "version")), \
                f"{name} {param.opts[0]} has no help text"


@pytest.mark.parametrize(("name", "command"), all_commands(), ids=[n for n, _ in all_commands()])
def test_help_text_has_no_unformatted_field(name: str, command: click.Command) -> None:
    texts = [command.help or "", *(p.help or "" for p in command.params if isinstance(p, click.Option))]
    left = [text for text in texts if re.search(r"\{[A-Za-z_][\w.]*(:[^}]*)?\}", text.replace("{workspace}", "")
                                                  .replace("{prompt_file}", "").replace("{case_id}", "")
                                                  .replace("{trial}", ""))]
    assert not left, f"{name}: an f-string field left unformatted: {left}"


def _run(module_name: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from corpus.cli_support import run_cli

    module = importlib.import_module(module_name)
    code = run_cli(module.cli, module_name.split(".")[0], argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return code, captured.out


def _argvs() -> list[tuple[str, list[str]]]:
    out = []
    for module_name in TOOLS:
        module = importlib.import_module(module_name)
        for name, _ in commands(module.cli, module_name.split(".")[0]):
            out.append((module_name, name.split()[1:]))
    return out


@pytest.mark.parametrize("flag", ["-h", "--help"])
@pytest.mark.parametrize(("module_name", "argv"), _argvs(), ids=[" ".join([m.split(".")[0], *a]) for m, a in _argvs()])
def test_short_and_long_help(module_name: str, argv: list[str], flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _run(module_name, [*argv, flag], capsys)
    assert code == 0
    assert out.startswith("Usage: ")
    assert " ".join([module_name.split(".")[0], *argv]) in out.splitlines()[0]


@pytest.mark.parametrize("module_name", TOOLS)
def test_version(module_name: str, capsys: pytest.CaptureFixture[str]) -> None:
    from corpus import __version__

    code, out = _run(module_name, ["--version"], capsys)
    assert code == 0
    assert out == f"{module_name.split('.')[0]} {__version__}\n"
