#!/usr/bin/env python3
"""Tries what root's capabilities would allow inside the sandbox: remount a read-only bind (--target DIR, a
jailed host directory the run binds) writable and write into it, and mount the host's disk to list a jailed
directory (--target again) from there. Prints CAPS <effective mask> first."""

import os

from escape import capabilities, host_file, make_writable, option, try_write

print(f"CAPS {capabilities()}", flush=True)
for target in option("target"):
    if make_writable(target):
        try_write(os.path.join(target, "pwned-by-agent"), "a read-only bind was remounted\n")
    place = host_file(target)
    if place is not None and place.is_dir():
        print(f"LISTED {target}: {sorted(os.listdir(place))}", flush=True)
print("tried", flush=True)
