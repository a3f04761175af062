"""`runner run --max-errors`: a run whose trials keep ending in error stops early, exits 1 and can be resumed."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from corpus import Setup
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from runner.runs.load import load_run
from runner.trial.run import stop_reason
from tests.testing.trialkit import SANDBOX_ARGS, Bench, graded_quickly

TRIALS = 7


@pytest.fixture
def broken(tmp_path: Path) -> Bench:
    """The calc case with a setup command that fails: every trial ends in error."""
    return graded_quickly(tmp_path, setup=Setup(command="exit 3"))


def call(bench: Bench, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = run_cli(cli, "runner", ["run", "--corpus", str(bench.corpus.root), "--results-dir", str(bench.results),
                                   "--all", "--mode", "oracle", *SANDBOX_ARGS, *args])
    return code, capsys.readouterr().err


def run_dir(bench: Bench) -> Path:
    (only,) = bench.results.iterdir()
    return only


def stop_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("stopped: ")]


def test_default_stops_after_five_with_one_reason_and_resumes(broken: Bench, capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    code, err = call(broken, capsys, "--trials", str(TRIALS))
    loaded = load_run(run_dir(broken))
    assert code == ExitCode.FAILED
    assert len(loaded.trials) == 5 and loaded.missing == TRIALS - 5
    reasons = {t.reason for t in loaded.trials}
    assert {t.outcome for t in loaded.trials} == {"error"} and len(reasons) == 1
    (line,) = stop_lines(err)
    stop, resume = line.split("; resume with: ")
    assert stop == f"stopped: 5 trials ended in error: {reasons.pop()}" and "setup failed (exit 3)" in stop
    words = shlex.split(resume)
    assert words[:4] == ["runner", "run", "--resume", str(run_dir(broken).absolute())]
    # The printed command works as given from any directory: the run recorded its corpus and repository.
    elsewhere = broken.corpus.root.parent / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code = run_cli(cli, "runner", [*words[1:], "--max-errors", "0"])
    err = capsys.readouterr().err
    resumed = load_run(run_dir(broken))
    assert code == ExitCode.FAILED and stop_lines(err) == []
    assert len(resumed.trials) == TRIALS and resumed.missing == 0 and len(resumed.manifest.resumed) == 1


def test_max_errors_2_stops_after_two(broken: Bench, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(broken, capsys, "--trials", str(TRIALS), "--max-errors", "2")
    loaded = load_run(run_dir(broken))
    assert code == ExitCode.FAILED and len(loaded.trials) == 2 and loaded.missing == TRIALS - 2
    assert len(stop_lines(err)) == 1 and stop_lines(err)[0].startswith("stopped: 2 trials ended in error: ")


def test_max_errors_0_runs_them_all(broken: Bench, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(broken, capsys, "--trials", str(TRIALS), "--max-errors", "0")
    loaded = load_run(run_dir(broken))
    assert code == ExitCode.FAILED and stop_lines(err) == []
    assert len(loaded.trials) == TRIALS and {t.outcome for t in loaded.trials} == {"error"}


def test_passing_trials_never_stop_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = graded_quickly(tmp_path)
    code, err = call(bench, capsys, "--trials", "6", "--max-errors", "1")
    assert code == ExitCode.OK and stop_lines(err) == [] and len(load_run(run_dir(bench)).trials) == 6


def test_negative_max_errors_is_bad_input(broken: Bench, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = call(broken, capsys, "--max-errors", "-1")
    assert code == ExitCode.BAD_INPUT and "--max-errors" in err and not broken.results.exists()


@pytest.mark.parametrize(("errors", "finished", "limit", "why"), [
    (["a"] * 5, 5, None, "5 trials ended in error: a"),
    (["a"] * 4 + ["b"], 5, None, None),
    (["a"] * 4, 5, None, None),
    (["a"] * 4, 4, None, None),
    (["a"] * 6, 6, None, None),
    (["a", "b", "b"], 9, 3, "3 trials ended in error: b"),
    (["a"], 1, 2, None),
    (["a"] * 50, 50, 0, None),
])
def test_stop_reason(errors: list[str], finished: int, limit: int | None, why: str | None) -> None:
    assert stop_reason(errors, finished, limit) == why
