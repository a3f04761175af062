"""`runner` imports every command explicitly: all eight are there, and a command module that fails to import fails
the whole tool instead of dropping its command."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from runner.cli import cli

ROOT = Path(__file__).resolve().parents[3]
COMMANDS = ["compare", "doctor", "env", "export", "flakes", "import", "merge", "report", "run", "runs", "sample", "select",
            "triage", "validate", "verify"]
COMMAND_MODULES = ["compare", "doctor", "env", "flakes", "interop", "merge", "report", "run", "runs", "sample", "select",
                   "triage", "validate", "verify"]


def test_every_command_is_wired() -> None:
    assert sorted(cli.commands) == COMMANDS


@pytest.mark.parametrize("name", COMMAND_MODULES)
def test_a_command_module_that_fails_to_import_fails_loudly(name: str) -> None:
    module = f"runner.commands.{name}"
    code = f"import sys; sys.modules[{module!r}] = None; from runner.cli import main; main()"
    proc = subprocess.run([sys.executable, "-c", code, "--help"], cwd=ROOT, capture_output=True, text=True,
                          check=False)
    assert proc.returncode != 0
    assert "ModuleNotFoundError" in proc.stderr and module in proc.stderr
    assert "Usage:" not in proc.stdout
