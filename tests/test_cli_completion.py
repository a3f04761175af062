"""Shell completion, as the README documents it: each tool prints its bash, zsh and fish completion script, and the
script's callback completes commands and options."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
TOOLS = ("miner", "authoring", "runner")


def tool(name: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """The tool as its console script starts it (run_cli names the program), with env added."""
    return subprocess.run([sys.executable, "-c", f"from {name}.cli import main; main()"], capture_output=True,
                          text=True, env={**os.environ, **env}, timeout=60, check=False)


@pytest.mark.parametrize("name", TOOLS)
@pytest.mark.parametrize(("shell", "opening"), [("bash", "_{name}_completion() {{"), ("zsh", "#compdef {name}"),
                                                 ("fish", "function _{name}_completion")])
def test_each_tool_prints_the_completion_script_the_readme_names(name: str, shell: str, opening: str) -> None:
    variable = f"_{name.upper()}_COMPLETE"
    assert f"{variable}={shell}_source {name}" in README
    made = tool(name, {variable: f"{shell}_source"})
    assert made.returncode == 0 and made.stderr == ""
    assert made.stdout.startswith(opening.format(name=name)) or f"\n{opening.format(name=name)}" in made.stdout
    assert f"{variable}={shell}_complete" in made.stdout  # the script calls the tool back for each completion


def test_the_callback_completes_commands_and_options() -> None:
    commands = tool("runner", {"_RUNNER_COMPLETE": "bash_complete", "COMP_WORDS": "runner do", "COMP_CWORD": "1"})
    assert commands.stdout.split() == ["plain,doctor"]
    options = tool("runner", {"_RUNNER_COMPLETE": "bash_complete", "COMP_WORDS": "runner verify --ca",
                              "COMP_CWORD": "2"})
    assert options.stdout.split() == ["plain,--case", "plain,--candidates"]
    scan = tool("miner", {"_MINER_COMPLETE": "bash_complete", "COMP_WORDS": "miner scan --sz", "COMP_CWORD": "2"})
    assert scan.stdout.split() == ["plain,--szz"]
