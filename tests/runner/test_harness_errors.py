"""A failure of the harness itself: its traceback kept beside the error it caused, a verify that still writes its
JSON, and the interpreter lookup that threads raced on."""

from __future__ import annotations

import json
import sysconfig
import threading
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from runner.cli import cli
from runner.envs import environment
from runner.executors.jobs import HARNESS_ERROR
from runner.runs.result import trial_path
from tests.runner.verify.builders import build
from tests.testing.trialkit import Bench, agent, variants


def broken(*_: object, **__: object) -> None:
    """A harness step that fails the way a harness bug does."""
    raise TypeError('can only concatenate str (not "NoneType") to str')


def test_a_trial_the_harness_broke_keeps_the_traceback_in_its_folder(calc_fast: Bench,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("runner.trial.grade.score_trial", broken)
    loaded = calc_fast.run(variants=variants(fixer=agent("fix")), sandbox="none")
    [trial] = loaded.trials
    reason = 'harness: TypeError: can only concatenate str (not "NoneType") to str'
    assert (trial.outcome, trial.reason) == ("error", reason)
    text = (trial_path(loaded.directory, "fixer", "calc-add", 1) / HARNESS_ERROR).read_text()
    assert text.startswith("Traceback (most recent call last):") and "in broken" in text
    assert text.rstrip().endswith('TypeError: can only concatenate str (not "NoneType") to str')


def test_a_verify_that_meets_a_harness_error_reports_it_per_case_and_writes_its_json(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, case = build(tmp_path)
    monkeypatch.setattr("runner.verify.attempt.prepare", broken)
    code = run_cli(cli, "runner", ["verify", "--corpus", str(corpus.root), "--candidates", "--all", "--jobs", "2",
                                   "--sandbox", "none", "--json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 1
    [verdict] = document["verdicts"]
    assert verdict["case_id"] == case.id and verdict["verdict"] == "ERROR"
    assert verdict["reason"].startswith("baseline: harness: TypeError: can only concatenate str")
    kept = corpus.root / ".hindcast" / "verify" / case.id
    assert sorted(p.name for p in kept.iterdir()) == ["baseline-1", "baseline-2", "oracle-1"]
    assert "in broken" in (kept / "baseline-1" / HARNESS_ERROR).read_text()


def test_threads_find_uv_while_the_interpreter_tables_fill(monkeypatch: pytest.MonkeyPatch) -> None:
    # Python 3.11 fills sysconfig's table lazily and not thread-safely: uv's lookup in eight threads at once
    # saw a half-filled table ("uv" + None) until the lookup was made once, under a lock.
    errors: list[BaseException] = []
    found: list[Path] = []
    for _ in range(20):
        monkeypatch.setattr(sysconfig, "_CONFIG_VARS", None)
        monkeypatch.setattr(sysconfig, "_CONFIG_VARS_INITIALIZED", False, raising=False)
        monkeypatch.setattr(environment, "_UV", [])
        barrier = threading.Barrier(8)

        def look(barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                found.append(environment.uv_binary())
            except Exception as exc:  # noqa: BLE001 - the race's TypeError is what the test looks for
                errors.append(exc)

        threads = [threading.Thread(target=look) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert errors == [] and len(found) == 160 and len(set(found)) == 1 and found[0].name == "uv"
