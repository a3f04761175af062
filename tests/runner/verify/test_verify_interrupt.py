"""Ctrl-C on `runner verify`: every attempt stops at once (environment builds included), the verdicts reached
are recorded, nothing else is written, exit 130 saying so."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

from corpus import Setup
from corpus.fsutil import hindcast_temp
from runner.envs.cache import EnvCache
from runner.envs.manage import list_entries
from tests.runner.verify.builders import build
from tests.testing.trialkit import RUNNER_FOR_CTRL_C, hang_token, processes_with

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"


def _wait_for(token: str, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 180
    while not processes_with(token):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.05)


def test_ctrl_c_twice_while_environments_build_stops_verify_at_once(tmp_path: Path) -> None:
    token = hang_token()
    corpus, case = build(tmp_path, kind="cases")
    stored = corpus.load(case.id)
    # Four attempts share one environment: one builds it (its setup hangs), three wait for that build.
    corpus.write(replace(case, setup=Setup(command=f"sleep {token}", python=PYTHON)), stored.files, "cases")
    argv = [*RUNNER_FOR_CTRL_C, "verify", "--corpus", str(corpus.root), "--repeats", "2", "--jobs", "4",
            "--env-cache", str(tmp_path / "envs")]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(token, proc)
    proc.send_signal(signal.SIGINT)
    interrupted = time.monotonic()
    time.sleep(0.3)
    if proc.poll() is None:  # a second Ctrl-C while stopping must not leave the attempts running
        proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    took = time.monotonic() - interrupted
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == ("runner: interrupted: every attempt stopped; 0 of 1 case(s) verified, "
                                            "nothing half-written")
    assert took < 5, f"verify took {took:.1f}s to stop"
    assert out == "" and processes_with(token) == []
    assert not (corpus.root / "verification.json").exists() and not (corpus.root / ".hindcast").exists()
    assert not list(hindcast_temp().glob("hindcast-verify-*"))
    # The half-built environment left the entries in one rename, before its lock was let go; its removal is left
    # to whoever opens the cache next, so the command did not wait for it.
    assert not list((tmp_path / "envs" / "entries").iterdir())
    [trashed] = (tmp_path / "envs" / "trash").iterdir()
    assert (trashed / "env" / "pyvenv.cfg").is_file() and not (trashed / "complete").exists()
    cache = EnvCache(tmp_path / "envs")
    cache.trash.wait(120)
    assert not list((tmp_path / "envs" / "trash").iterdir()) and list_entries(tmp_path / "envs") == []
    cache.close()


def test_ctrl_c_keeps_the_verdicts_reached_and_records_no_other(tmp_path: Path) -> None:
    token = hang_token()
    corpus, case = build(tmp_path, kind="cases", case_id="a-add")
    stored = corpus.load(case.id)
    corpus.write(replace(case, id="b-hang", grader=replace(case.grader, command=f"sleep {token}")), stored.files,
                 "cases")
    argv = [*RUNNER_FOR_CTRL_C, "verify", "--corpus", str(corpus.root), "--jobs", "6"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    seen = []
    while not (seen and seen[-1].startswith("a-add: VALID")):  # its verdict is reached, b-hang's graders hang
        line = proc.stderr.readline()
        assert line, "".join(seen)
        seen.append(line)
    _wait_for(token, proc)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == ("runner: interrupted: every attempt stopped; 1 of 2 case(s) verified and "
                                            "recorded, nothing half-written")
    assert "\na-add  VALID" in out and "b-hang" not in out
    recorded = json.loads((corpus.root / "verification.json").read_text())["cases"]
    assert list(recorded) == ["a-add"] and recorded["a-add"]["verdict"] == "VALID"
    assert processes_with(token) == []
