"""The process groups of the commands this process started and has not yet reaped, so an interrupt stops every
one of them (the sandboxed commands of `runner.process` and the environment builds of `runner.envs` alike); and
the `runner` process's Ctrl-C, which stops a command once."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

_RUNNING: set[int] = set()
_LOCK = threading.Lock()


def started(pgid: int) -> None:
    """A command's process group is running (the leader's pid, made with start_new_session)."""
    with _LOCK:
        _RUNNING.add(pgid)


def ended(pgid: int) -> None:
    """A command's process group is reaped."""
    with _LOCK:
        _RUNNING.discard(pgid)


def kill_group(pgid: int) -> None:
    """SIGKILL every process in the group; a group that is already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def first_interrupt_only() -> None:
    """From now on a Ctrl-C after the first is ignored by this process: the first stops the command (its
    KeyboardInterrupt) and the stop it starts (killing, recording, removing its scratch, exiting) runs to the end.
    A SIGTERM (a CI job's timeout, `kill`, a container stopping) stops it the same way, with the same resume line,
    instead of ending it where it stands. Only from the main thread, and only for a signal left at its default
    (an ignored SIGINT, as a shell without job control starts background commands, stays ignored)."""
    if threading.current_thread() is not threading.main_thread():
        return
    watched = [signum for signum, default in ((signal.SIGINT, signal.default_int_handler),
                                              (signal.SIGTERM, signal.SIG_DFL))
               if signal.getsignal(signum) is default]

    def first(signum: int, frame: object) -> None:
        for each in watched:
            signal.signal(each, signal.SIG_IGN)
        raise KeyboardInterrupt

    for signum in watched:
        signal.signal(signum, first)


def kill_running() -> None:
    """SIGKILL the process group of every command still running (an interrupted command stops them all)."""
    with _LOCK:
        groups = list(_RUNNING)
    for pgid in groups:
        kill_group(pgid)


def run_child(argv: Sequence[str], *, env: dict[str, str], cwd: Path,
              timeout: float | None = None) -> subprocess.CompletedProcess[bytes]:
    """`subprocess.run(argv, capture_output=True)` in a session of its own that kill_running stops (a killed
    child exits negative, like any other failure); at the timeout its group is killed and TimeoutExpired raised."""
    proc = subprocess.Popen(list(argv), env=env, cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    started(proc.pid)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc.pid)
        proc.communicate()
        raise
    finally:
        kill_group(proc.pid)
        proc.wait()
        ended(proc.pid)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
