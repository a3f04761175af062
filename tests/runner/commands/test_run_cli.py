"""The run and report commands: one-line errors with exit 2 and no half-written run; exit codes; output."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from tests.testing.trialkit import SANDBOX_ARGS, Bench, agent, make_run


def call(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("args", "message"), [
    ([], "choose the cases: --case ID (repeatable) or --all"),
    (["--all", "--case", "calc-add"], "--case and --all exclude each other"),
    (["--case", "nope"], "--case nope: no such case"),
    (["--case", "../etc"], "--case ../etc: no such case"),
    (["--all"], "--mode agent needs --agent-command CMD or --agent NAME=CMD"),
    (["--all", "--agent-command", "true", "--agent", "x=true"], "use either --agent-command or --agent"),
    (["--all", "--agent", "no-command"], "expected NAME=COMMAND"),
    (["--all", "--agent", "a/b=true"], "variant name 'a/b'"),
    (["--all", "--agent", "x=true", "--agent", "x=false"], "variant 'x' is given twice"),
    (["--all", "--mode", "baseline", "--agent-command", "true"], "--mode baseline runs no agent"),
    (["--all", "--mode", "regrade"], "--mode regrade needs --patch-from RUN_DIR"),
    (["--all", "--mode", "oracle", "--patch-from", "x"], "--patch-from is only for --mode regrade"),
    (["--all", "--mode", "sideways"], "Invalid value for '--mode'"),
    (["--all", "--trials", "0", "--agent-command", "true"], "Invalid value for '--trials'"),
    (["--resume", "/nonexistent/run", "--all"], "not a run directory"),
])
def test_bad_input_is_one_line_and_writes_nothing(calc_fast: Bench, capsys: pytest.CaptureFixture[str],
                                                   args: list[str], message: str) -> None:
    code, out, err = call(["run", "--corpus", str(calc_fast.corpus.root), "--results-dir",
                           str(calc_fast.results), *args], capsys)
    assert code == ExitCode.BAD_INPUT and out == "" and err.count("\n") == 1 and err.startswith("runner: error: ")
    assert message in err and "Traceback" not in err
    assert not calc_fast.results.exists()


def test_run_prints_the_report_and_exits_1_when_a_trial_errored(calc_fast: Bench,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    base = ["run", "--corpus", str(calc_fast.corpus.root), "--results-dir", str(calc_fast.results), "--all",
            *SANDBOX_ARGS]
    code, out, err = call([*base, "--agent", f"fixer={agent('fix')}", "--trials", "2", "--jobs", "2"], capsys)
    assert code == 0 and "2/2 passed" in out and "run directory: " in out
    assert "[2/2] fixer::calc-add" in err
    code, out, _ = call([*base, "--agent-command", agent("crash")], capsys)
    assert code == 1 and "error default::calc-add #1: agent exited 1" in out


def test_resuming_a_complete_run_says_nothing_is_left(calc_fast: Bench, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["run", "--corpus", str(calc_fast.corpus.root), "--results-dir", str(calc_fast.results), *SANDBOX_ARGS]
    code, _, err = call([*base, "--all", "--agent", f"fixer={agent('fix')}"], capsys)
    assert code == ExitCode.OK, err
    [run_dir] = [p for p in calc_fast.results.iterdir() if p.is_dir() and not p.is_symlink()]
    code, out, err = call([*base, "--resume", str(run_dir)], capsys)
    assert code == ExitCode.OK and "1/1 passed" in out
    assert f"run {run_dir}: every trial is recorded, nothing left to run\n" in err
    assert "0 trial(s)" not in err


def test_report_json_html_and_a_missing_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = make_run(tmp_path / "run", {("a", "one"): ["pass", "fail"]}, trials=2)
    code, out, _ = call(["report", str(run_dir), "--json"], capsys)
    assert code == 0 and json.loads(out)["cells"][0]["success_rate"] == 0.5
    code, out, _ = call(["report", str(run_dir), "--html", str(tmp_path / "r.html")], capsys)
    assert code == 0 and "1/2 passed" in out and (tmp_path / "r.html").read_text().startswith("<!doctype html>")
    code, out, err = call(["report", str(tmp_path / "nope")], capsys)
    assert code == ExitCode.BAD_INPUT and err == (
        f"runner: error: {tmp_path / 'nope'}: not a run directory (nor the --name of a run in {tmp_path})\n")
