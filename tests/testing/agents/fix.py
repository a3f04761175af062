#!/usr/bin/env python3
"""Fixes the calc case: corrects add(), adds a binary file and deletes the README (the patch must carry all)."""

from pathlib import Path

Path("calc.py").write_text("def add(a, b):\n    return a + b\n")
Path("data.bin").write_bytes(bytes(range(256)) * 4)
Path("README.md").unlink()
print("fixed add()")
