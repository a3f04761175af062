#!/usr/bin/env python3
"""Cheats by replacing the folders the harness writes into with links to a directory outside the workspace."""

import os
import sys
from pathlib import Path

victim = Path(sys.argv[1])
for name in ("tests", ".hindcast"):
    os.symlink(victim, name)
