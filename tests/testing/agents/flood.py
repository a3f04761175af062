#!/usr/bin/env python3
"""Writes 100 MB to stdout."""

import sys

chunk = b"x" * 1023 + b"\n"
for _ in range(100 * 1024):
    sys.stdout.buffer.write(chunk)
