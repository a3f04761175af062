"""The seccomp filter every sandboxed command runs under: the kernel keyring calls fail with ENOSYS.

The keyrings are kernel state that outlives a process: a key a trial adds to its user or session keyring is
there for the next trial of the same uid (a user namespace of its own gives each sandbox its own user keyring,
but a session keyring the harness inherited is shared through it). No command of a trial needs a keyring, so
`add_key`, `request_key` and `keyctl` are refused outright, for every architecture's numbers the filter knows
(x86-64 with its x32 numbers, i386, aarch64); other system calls are allowed. bubblewrap loads the compiled
program (`--seccomp FD`) just before it starts the command.
"""

from __future__ import annotations

import errno
import os
import struct

# BPF opcodes (linux/filter.h, linux/bpf_common.h) and seccomp return values (linux/seccomp.h).
_LD_W_ABS = 0x20
_JEQ_K = 0x15
_RET_K = 0x06
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_NR, _ARCH = 0, 4
"""Offsets of the call's number and architecture in struct seccomp_data."""
_X32 = 0x40000000
KEYRING_CALLS: dict[int, tuple[int, ...]] = {
    0xC000003E: (248, 249, 250, _X32 | 248, _X32 | 249, _X32 | 250),  # AUDIT_ARCH_X86_64 (and x32)
    0x40000003: (286, 287, 288),  # AUDIT_ARCH_I386
    0xC00000B7: (217, 218, 219),  # AUDIT_ARCH_AARCH64
}
"""add_key, request_key and keyctl by audit architecture."""


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def keyring_filter() -> bytes:
    """The compiled filter (struct sock_filter records, native byte order)."""
    program = [_op(_LD_W_ABS, _ARCH)]
    for arch, calls in KEYRING_CALLS.items():
        # arch matches: load the number, compare with each call (a match jumps to ENOSYS), else allow.
        block = [_op(_LD_W_ABS, _NR)]
        for i, call in enumerate(calls):
            block.append(_op(_JEQ_K, call, jt=len(calls) - i, jf=0))
        block += [_op(_RET_K, _RET_ALLOW), _op(_RET_K, _RET_ERRNO | errno.ENOSYS)]
        program.append(_op(_JEQ_K, arch, jt=0, jf=len(block)))
        program += block
    program.append(_op(_RET_K, _RET_ALLOW))
    return b"".join(program)


def filter_fd() -> int:
    """A descriptor to read the filter from (bubblewrap's --seccomp); the caller passes it on and closes it."""
    read, write = os.pipe()
    try:
        os.write(write, keyring_filter())
    finally:
        os.close(write)
    return read
