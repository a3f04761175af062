"""Every command pays for what its CLI imports: the heavy libraries (scipy, numpy, Ray, Textual) are imported
only by the code that needs them, so `runner run` or `runner report` start in about a second, not four."""

from __future__ import annotations

import subprocess
import sys

import pytest

HEAVY = ("scipy", "numpy", "ray", "textual")
PROBE = """
import importlib, sys
importlib.import_module(sys.argv[1])
print(" ".join(name for name in sys.argv[2:] if name in sys.modules))
"""


@pytest.mark.parametrize("cli", ["runner.cli", "miner.cli", "authoring.cli"])
def test_a_cli_imports_no_heavy_library(cli: str) -> None:
    proc = subprocess.run([sys.executable, "-c", PROBE, cli, *HEAVY], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == []


def test_the_gate_still_uses_scipy_where_it_needs_it() -> None:
    """The paired t interval is scipy.special's, imported on first use: t(0.975, 2 df) = 4.3027."""
    code = ("import sys; from runner.gate.stats import paired_difference; "
            "r = paired_difference([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]); print('scipy.special' in sys.modules, r.ci_low)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    loaded, low = proc.stdout.split()
    assert loaded == "True" and float(low) == pytest.approx(2.0 - 4.302652729911275 / 3 ** 0.5, rel=1e-9)
