"""One reason behind the gate's decision, the shape every rule of the gate (gate.py and its rule modules) returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["BLOCK", "WARN"]
"""How much a finding weighs: BLOCK blocks the merge, WARN asks a person to look."""


@dataclass(frozen=True)
class Finding:
    """One reason behind the decision."""

    level: Level
    """BLOCK or WARN."""
    rule: str
    """refused, significant-drop, critical-regression, missing-case, quarantine, underpowered-drop, cost,
    error-rate, advisory-drop, advisory-tolerance, advisory-regression, same-run, wording-seed, forbidden-tool,
    bait, upstream-lookup, test-downgrade, tampering, unsafe-pass, holdout-gap."""
    message: str
    """One line for a person."""
