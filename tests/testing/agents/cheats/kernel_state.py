"""A cheating agent that keeps state in the kernel between trials: `store` puts a value in its user and session
keyrings (add_key), `read` looks for it there (keyctl search); each prints what the calls returned."""

from __future__ import annotations

import ctypes
import sys

ADD_KEY, KEYCTL = 248, 250  # x86-64
KEYCTL_SEARCH = 10
RINGS = {"user": -4, "session": -3, "user-session": -5}


def main() -> int:
    libc = ctypes.CDLL(None, use_errno=True)
    for name, ring in RINGS.items():
        if sys.argv[1] == "store":
            got = libc.syscall(ADD_KEY, b"user", b"hindcast-pass", b"forged", 6, ctypes.c_int(ring))
        else:
            got = libc.syscall(KEYCTL, KEYCTL_SEARCH, ctypes.c_int(ring), b"user", b"hindcast-pass", 0)
        print(f"{sys.argv[1]} {name}: {got} errno {ctypes.get_errno()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
