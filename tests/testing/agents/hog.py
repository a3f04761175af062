"""An agent that takes what it can: `forks` starts sleeping children until the kernel refuses one, `memory` touches
memory 16 MiB at a time up to 2 GiB, `file MiB` writes a file of that size into the workspace, `nest N` makes a
directory nest N deep; each prints how far it got."""

from __future__ import annotations

import os
import sys
import time


def forks() -> None:
    count = 0
    try:
        while count < 100_000:
            pid = os.fork()
            if pid == 0:
                time.sleep(120)
                os._exit(0)
            count += 1
    except OSError as exc:
        print(f"fork refused after {count}: {exc.strerror}", flush=True)
        return
    print(f"forked {count}", flush=True)


def memory() -> None:
    held = []
    try:
        for mib in range(16, 2048 + 1, 16):
            block = bytearray(16 * 1024 * 1024)
            block[::4096] = b"x" * len(block[::4096])
            held.append(block)
            print(f"holding {mib} MiB", flush=True)
    except MemoryError:
        print("memory refused", flush=True)


def big_file(mib: int) -> None:
    with open("big.bin", "wb") as handle:
        handle.writelines(os.urandom(1024 * 1024) for _ in range(mib))
    print(f"wrote {mib} MiB", flush=True)


def nest(depth: int) -> None:
    fd = os.open(".", os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("n", dir_fd=fd)
        inner = os.open("n", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    with open(os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as handle:
        handle.write("deep\n")
    print(f"nested {depth}", flush=True)


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "forks":
        forks()
    elif what == "memory":
        memory()
    elif what == "file":
        big_file(int(sys.argv[2]))
    else:
        nest(int(sys.argv[2]))
