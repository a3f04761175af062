"""Fixtures for the authoring tests: a real shop repository and a corpus of its candidates."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.testing.shopfactory import Shop, build_shop


@pytest.fixture
def shop(tmp_path: Path) -> Shop:
    """A fresh shop corpus with three candidates."""
    return build_shop(tmp_path)
