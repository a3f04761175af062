#!/usr/bin/env python3
"""Sleeps argv[1] seconds, then exits 0 without changing anything."""

import sys
import time

time.sleep(float(sys.argv[1]))
