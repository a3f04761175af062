"""A command whose log cannot be written (a full disk) is stopped at once and its caller gets one WriteError
naming the log, never a thread's traceback."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import pytest

from corpus.errors import WriteError
from runner.process import run_command
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
