"""run_command: a command whose log cannot be written (a full disk) is stopped at once and its caller gets one
WriteError naming the log, never a thread's traceback; the wait for a command ends when it does, or at its
timeout."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from corpus.errors import WriteError
from runner.process import run_command, wait_for_exit
from runner.sandbox.bwrap import SandboxSpec
from runner.sandbox.limits import Limits
from runner.sandbox.loopback import Loopback
from runner.settings import Settings
from tests.testing.fulldisk import full_disk
from tests.testing.trialkit import AGENTS


def test_a_full_disk_under_the_log_stops_the_command_and_reaches_the_caller(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    raised: list[threading.ExceptHookArgs] = []
    monkeypatch.setattr(threading, "excepthook", raised.append)
    with full_disk(tmp_path / "disk", free_pages=4) as disk:
        log = disk / "transcript.log"
        started = time.monotonic()
        with pytest.raises(WriteError) as caught:
            run_command(f"{sys.executable} {AGENTS / 'flood.py'}; sleep 60", tmp_path, {"PATH": "/usr/bin:/bin"},
                        120, log)
        assert str(caught.value) == f"cannot write {log}: No space left on device"
        assert time.monotonic() - started < 30  # not at the command's end, nor at its timeout
    assert raised == []


@pytest.mark.parametrize("pidfds", [True, False], ids=["pidfd", "without-pidfd"])
def test_waiting_ends_with_the_command_or_at_the_timeout_and_leaves_it_unreaped(
        pidfds: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    if not pidfds:  # a kernel or Python without pidfd_open: Popen's own wait
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    quick = subprocess.Popen(["sh", "-c", "exit 7"])
    assert wait_for_exit(quick, 30)
    assert quick.wait(timeout=5) == 7  # its exit status is still there for the caller
    slow = subprocess.Popen(["sleep", "30"])
    started = time.monotonic()
    assert not wait_for_exit(slow, 0.3)
    assert 0.29 <= time.monotonic() - started < 20
    assert slow.poll() is None
    slow.kill()
    assert wait_for_exit(slow, 30)


def test_a_command_s_exit_and_its_timeout_are_reported(tmp_path: Path) -> None:
    ended = run_command("exit 3", tmp_path, {"PATH": "/usr/bin:/bin"}, 30, tmp_path / "a.log")
    assert (ended.exit_code, ended.timed_out) == (3, False)
    hung = run_command("sleep 30", tmp_path, {"PATH": "/usr/bin:/bin"}, 0.5, tmp_path / "b.log")
    assert (hung.exit_code, hung.timed_out) == (None, True)
    assert hung.duration < 20


def _children() -> list[int]:
    """This process's child processes."""
    found = []
    for entry in os.scandir("/proc"):
        try:
            with open(f"/proc/{entry.name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.name.isdigit() and int(fields[1]) == os.getpid():
            found.append(int(entry.name))
    return found


def _held_sandbox(tmp_path: Path, behind_opener: bool) -> SandboxSpec:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir()
    home.mkdir()
    loopback = Loopback((41999,), lambda sockets: [s.close() for s in sockets] and (lambda: None)) \
        if behind_opener else None
    return SandboxSpec(workspace=workspace, home=home, env={"PATH": "/usr/bin:/bin"}, network=not behind_opener,
                       loopback=loopback, limits=Limits.of(Settings()))


@pytest.mark.parametrize("behind_opener", [False, True], ids=["bwrap-holds", "opener-holds"])
def test_a_held_command_starts_once_its_workspace_is_made_and_never_when_that_fails(
        tmp_path: Path, behind_opener: bool) -> None:
    sandbox = _held_sandbox(tmp_path, behind_opener)
    seen: list[list[int]] = []

    def make() -> None:
        seen.append(_children())  # the sandbox is starting meanwhile
        time.sleep(0.3)
        (sandbox.workspace / "ready").write_text("made\n")

    ran = run_command("cat ready || echo missing; echo ran > ran", tmp_path, {}, 30, tmp_path / "a.log",
                      sandbox=sandbox, held=make)
    assert (ran.exit_code, ran.start_error) == (0, None)
    assert (tmp_path / "a.log").read_text() == "made\n" and (sandbox.workspace / "ran").is_file()
    assert seen[0] != []
    (sandbox.workspace / "ran").unlink()

    def fail() -> None:
        raise OSError("the copy failed")

    with pytest.raises(OSError, match="the copy failed"):
        run_command("echo ran > ran", tmp_path, {}, 30, tmp_path / "b.log", sandbox=sandbox, held=fail)
    time.sleep(0.3)  # a command let through would have written by now
    assert not (sandbox.workspace / "ran").exists() and _children() == []
