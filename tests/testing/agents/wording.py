#!/usr/bin/env python3
"""Fixes a case only under one wording: `wording.py PROMPT_FILE PATCH NEEDLE` applies PATCH (a fix it carries)
when the prompt it was given contains NEEDLE, and does nothing otherwise, like an agent tuned to one phrasing."""

import subprocess
import sys
from pathlib import Path

prompt_file, patch, needle = sys.argv[1:4]
if needle in Path(prompt_file).read_text(encoding="utf-8") and Path(patch).is_file():
    subprocess.run(["git", "apply", patch], check=True)
    print(f"the prompt says {needle!r}: applied {Path(patch).name}")
else:
    print("nothing to do under this wording")
