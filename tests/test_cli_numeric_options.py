"""Every numeric option of every tool is typed as a number: a word or an out-of-range value is a usage error."""

from __future__ import annotations

import importlib
import re

import click
import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from tests.test_cli_help import TOOLS, all_commands

NUMERIC_NAME = re.compile(r"^--(jobs|trials|k|alpha|tolerance|limit|top|reruns|repeats|older-than|max-.*|min-.*|"
                          r".*-timeout|timeout)$")
"""Option names that take a number."""


def numeric_options() -> list[tuple[str, str, click.Option]]:
    """(tool, command path, option) for every option whose name says it takes a number."""
    found = []
    for name, command in all_commands():
        for param in command.params:
            if isinstance(param, click.Option) and not param.is_flag:
                long = next((opt for opt in param.opts if opt.startswith("--")), None)
                if long is not None and NUMERIC_NAME.match(long):
                    found.append((name.split()[0], name, param))
    return found


OPTIONS = numeric_options()
IDS = [f"{name} {param.opts[0]}" for _, name, param in OPTIONS]


def test_the_walk_finds_the_numeric_options_of_all_three_tools() -> None:
    names = set(IDS)
    assert {"runner run --jobs", "runner run --trials", "runner run --agent-timeout", "runner flakes --k",
            "runner compare --alpha", "miner scan --max-candidates", "miner scan --min-score",
            "authoring approve --grader-timeout", "authoring set --setup-timeout"} <= names
    assert {tool for tool, _, _ in OPTIONS} == {module.split(".")[0] for module in TOOLS}


@pytest.mark.parametrize(("tool", "name", "param"), OPTIONS, ids=IDS)
def test_numeric_option_has_a_numeric_type(tool: str, name: str, param: click.Option) -> None:
    assert isinstance(param.type, click.types.IntParamType | click.types.FloatParamType), \
        f"{name} {param.opts[0]} is typed {param.type!r}"


@pytest.mark.parametrize(("tool", "name", "param"), OPTIONS, ids=IDS)
def test_a_word_for_a_number_is_a_one_line_usage_error(tool: str, name: str, param: click.Option,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    group = importlib.import_module(f"{tool}.cli").cli
    option = next(opt for opt in param.opts if opt.startswith("--"))
    code = run_cli(group, tool, [*name.split()[1:], option, "abc"])
    out, err = capsys.readouterr()
    assert code == ExitCode.BAD_INPUT and out == ""
    assert err.startswith(f"{tool}: error: Invalid value for '{option}': 'abc' is not a valid ")
    assert err.count("\n") == 1


@pytest.mark.parametrize(("argv", "option"), [
    (["run", "--trials", "-1"], "--trials"),
    (["run", "--jobs", "0"], "--jobs"),
    (["run", "--max-errors", "-2"], "--max-errors"),
    (["run", "--agent-timeout", "0"], "--agent-timeout"),
    (["verify", "--repeats", "0"], "--repeats"),
    (["env", "prune", "--older-than", "-1"], "--older-than"),
])
def test_a_number_out_of_range_is_a_usage_error(argv: list[str], option: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    from runner.cli import cli

    code = run_cli(cli, "runner", argv)
    err = capsys.readouterr().err
    assert code == ExitCode.BAD_INPUT
    assert err.startswith(f"runner: error: Invalid value for '{option}': ") and "is not in the range" in err
