"""Size limits of a candidate (a module of its own: the command line reads the defaults before the scan loads)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class SizeLimits:
    """Bounds that keep a candidate small enough to be a task."""

    max_files: int = 50
    """Changed paths per commit (first pass, all categories)."""
    max_lines: int = 1500
    """Changed lines (added + deleted) over the oracle and test files (second pass)."""
