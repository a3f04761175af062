"""Reviewability: how easily a person could review the patch, 0..1, from four parts with documented weights."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from corpus.testfiles import glob_matcher
from runner.scorecard.blast import LOCKFILES
from runner.scorecard.patch import FileChange

WEIGHTS: dict[str, float] = {"size": 0.4, "locality": 0.2, "noise": 0.2, "generated": 0.2}
"""Each part's weight (DESIGN.md, "Patch scorecard": size costs a reviewer most, the other three about alike)."""
SIZE_ALLOWANCE = 2.0
"""A patch up to this many times the oracle's changed source lines loses nothing on size."""
GENERATED_GLOBS = ("*.min.js", "*.min.css", "*.js.map", "*.css.map", "__pycache__/", "*.pyc", "*.pyo", "build/",
                   "dist/", "*.egg-info/", "*.dist-info/", "node_modules/", "target/", ".tox/", ".nox/",
                   ".coverage", "coverage.xml", "htmlcov/", ".pytest_cache/", ".mypy_cache/", ".ruff_cache/",
                   *sorted(LOCKFILES))
is_generated = glob_matcher(GENERATED_GLOBS)
"""Whether a path is generated noise: lockfiles, build output, minified files, bytecode and caches."""


@dataclass(frozen=True)
class Reviewability:
    """The reviewability score and its parts (each 0..1, 1 best; None when it cannot be measured)."""

    score: float | None
    """The weighted mean of the parts that could be measured (None for an empty patch)."""
    size: float | None
    """1 up to SIZE_ALLOWANCE times the oracle's changed source lines, then allowance x oracle / lines."""
    locality: float | None
    """Share of the patch's source files in a directory the oracle changed a file in."""
    noise: float | None
    """1 - share of hunks that change only whitespace, with renames the oracle does not make counted as hunks."""
    generated: float | None
    """1 - share of changed files that are generated noise (lockfiles, build output, .min.js, __pycache__)."""
    weights: dict[str, float] = field(default_factory=lambda: dict(WEIGHTS))
    """The weight of each part."""
    outside_dirs: tuple[str, ...] = ()
    """Source files outside the oracle's directories."""
    whitespace_hunks: int = 0
    """Hunks that change only whitespace."""
    unrelated_renames: tuple[str, ...] = ()
    """Renames (`old -> new`) the oracle does not make."""
    generated_files: tuple[str, ...] = ()
    """Changed files that are generated noise."""


def reviewability(candidate: Sequence[FileChange], oracle: Sequence[FileChange],
                  is_test: Callable[[str], bool]) -> Reviewability:
    """Score the patch's reviewability against the oracle."""
    if not candidate:
        return Reviewability(None, None, None, None, None)
    source = [c for c in candidate if not is_test(c.path)]
    lines = sum(c.lines for c in source)
    oracle_lines = sum(c.lines for c in oracle)
    size = None if not oracle_lines else round(min(1.0, SIZE_ALLOWANCE * oracle_lines / lines) if lines else 1.0, 3)
    oracle_dirs = {str(PurePosixPath(c.path).parent) for c in oracle}
    oracle_paths = {c.path for c in oracle} | {c.old_path for c in oracle if c.old_path}
    outside = tuple(c.path for c in source if str(PurePosixPath(c.path).parent) not in oracle_dirs)
    locality = round(1 - len(outside) / len(source), 3) if source and oracle_dirs else None
    whitespace = sum(1 for c in candidate for h in c.hunks if h.whitespace_only)
    renames = tuple(f"{c.old_path} -> {c.path}" for c in candidate
                    if c.status == "renamed" and c.path not in oracle_paths and c.old_path not in oracle_paths)
    hunks = sum(len(c.hunks) for c in candidate) + len(renames)
    noise = round(1 - (whitespace + len(renames)) / hunks, 3) if hunks else 1.0
    generated_files = tuple(c.path for c in candidate if is_generated(c.path))
    generated = round(1 - len(generated_files) / len(candidate), 3)
    parts = {"size": size, "locality": locality, "noise": noise, "generated": generated}
    measured = {k: v for k, v in parts.items() if v is not None}
    total = sum(WEIGHTS[k] for k in measured)
    score = round(sum(WEIGHTS[k] * v for k, v in measured.items()) / total, 3) if total else None
    return Reviewability(score, size, locality, noise, generated, dict(WEIGHTS), outside, whitespace, renames,
                         generated_files)
