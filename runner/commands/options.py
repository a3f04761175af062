"""What the `runner` commands share beyond `corpus.cli_support`: the --json flag, the gate's --corpus help, exits."""

from __future__ import annotations

import click

from corpus.errors import ExitCode

GATE_CORPUS_HELP = "Corpus directory (case policy and criticality)."
"""--corpus help of the commands that read case policy and criticality (compare, flakes, select)."""

sandbox_option = click.option(
    "--sandbox", type=click.Choice(["bwrap", "none"]), default="bwrap", show_default=True,
    help="Where setup, agent and grader run: a bubblewrap sandbox each, or none (on the host, as you).")
"""`--sandbox`, passed to the command as `sandbox`."""

json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
"""`--json`, passed to the command as `as_json`."""


def exits(**meanings: str) -> str:
    """``exit 0 PASS, 2 WARN``: each named ExitCode's number, then what it means for the command."""
    return "exit " + ", ".join(f"{int(ExitCode[name])} {meaning}".rstrip() for name, meaning in meanings.items())
