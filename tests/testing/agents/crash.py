#!/usr/bin/env python3
"""Starts editing, then crashes with a traceback (exit 1)."""

from pathlib import Path

Path("calc.py").write_text("def add(a, b):\n    return a + b\n")
raise RuntimeError("the agent fell over")
