"""Fixtures for runner trials: the calc corpus over a real repository, graded by pytest or by a quick check."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.trialkit import Bench, graded_by_pytest, graded_quickly

collect_ignore = ["agents"]


@pytest.fixture
def calc_pytest(tmp_path: Path) -> Bench:
    """The calc case graded by pytest."""
    return graded_by_pytest(tmp_path)


@pytest.fixture
def calc_fast(tmp_path: Path) -> Bench:
    """The calc case graded by a one-line Python check."""
    return graded_quickly(tmp_path)
