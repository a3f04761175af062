"""What a running verify shows: off a terminal a line as each attempt starts and as it ends; on a terminal the
running attempts' steps (environment, setup, baseline, oracle) and an estimate of the time left that moves."""

from __future__ import annotations

import io
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import Setup
from corpus.cli_support import run_cli
from runner.cli import cli
from runner.verify.progress import Step, Tracker, eta_text
from tests.runner.verify.builders import build


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class Clock:
    """A monotonic clock a test moves."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_estimate_moves_while_attempts_run_and_the_steps_are_counted() -> None:
    clock = Clock()
    tracker = Tracker(total=6, jobs=2, clock=clock)
    assert tracker.eta() is None and tracker.phases() == "waiting"
    tracker.on(Step("a", "baseline", 1, "environment"))
    tracker.on(Step("a", "oracle", 1, "environment"))
    clock.now += 5
    tracker.on(Step("a", "baseline", 1, "setup"))
    assert tracker.phases() == "environment 1, setup 1" and eta_text(tracker.eta()) == "ETA ?"
    clock.now += 5
    tracker.on(Step("a", "baseline", 1, "done", "fail", 10.0))
    tracker.on(Step("a", "baseline", 2, "environment"))
    # mean 10 s; oracle #1 has run 10 s (0 left), baseline #2 0 s (10 left), 3 not started (30): 40 s over 2 jobs
    assert tracker.done == 1 and tracker.eta() == pytest.approx(20.0)
    clock.now += 4
    assert tracker.eta() == pytest.approx(18.0)  # nothing ended, and still the estimate went down
    tracker.on(Step("a", "oracle", 1, "oracle"))
    assert tracker.phases() == "environment 1, oracle 1"
    assert eta_text(75.4) == "ETA 1m15s" and eta_text(9.6) == "ETA 10s"


def test_off_a_terminal_a_line_as_each_attempt_starts_and_as_it_ends(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _ = build(tmp_path, kind="cases")
    assert run_cli(cli, "runner", ["verify", "--corpus", str(corpus.root), "--jobs", "2"]) == 0
    err = capsys.readouterr().err.splitlines()
    attempts = ["calc-add: baseline #1", "calc-add: baseline #2", "calc-add: oracle #1"]
    assert sorted(line for line in err if line.endswith(": started")) == [f"{a}: started" for a in attempts]
    for attempt, outcome in zip(attempts, ("fail", "fail", "pass"), strict=True):
        assert err.index(f"{attempt}: started") < err.index(f"{attempt}: {outcome}") < err.index("calc-add: VALID")


def test_a_terminal_shows_each_step_and_the_time_left(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    corpus, case = build(tmp_path, kind="cases")
    stored = corpus.load(case.id)
    corpus.write(replace(case, setup=Setup(command="true")), stored.files, "cases")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("COLUMNS", "160")
    assert run_cli(cli, "runner", ["verify", "--corpus", str(corpus.root), "--no-env-cache"]) == 0
    shown = terminal.getvalue()
    assert "verifying 1 case(s): 3 attempts (each base runs twice when measured)" in shown
    for running in ("environment 1", "setup 1", "baseline 1", "oracle 1"):
        assert running in shown
    assert "ETA ?" in shown and "3/3" in shown and "100%" in shown and "done" in shown
    assert "calc-add: baseline #1: started" not in shown  # lines are for logs, the bar for a terminal
    assert capsys.readouterr().out.splitlines()[1].split() == ["calc-add", "VALID"]
