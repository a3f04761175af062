"""`runner run` and `runner report --html` on a full disk: one error naming the path, nothing half-written;
and output paths of the wrong kind refused before any work."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from runner.runs.load import load_run
from runner.runs.manifest import RUN_FILE
from tests.testing.fulldisk import FILLER, contents, full_disk
from tests.testing.trialkit import Bench, agent, make_run

NO_SPACE = "No space left on device"


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    with full_disk(tmp_path / "disk") as path:
        yield path


def call(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", argv)
    out, err = capsys.readouterr()
    return code, out, err


def run_args(bench: Bench, results: Path) -> list[str]:
    return ["run", "--corpus", str(bench.corpus.root), "--results-dir", str(results), "--all", "--mode", "oracle",
            "--sandbox", "none"]


def test_run_with_the_results_dir_on_a_full_disk(calc_fast: Bench, disk: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    results = disk / "results"
    code, out, err = call(run_args(calc_fast, results), capsys)
    assert (code, out) == (ExitCode.FAILED, "")
    assert err.startswith(f"runner: error: cannot write {results}/") and err.endswith(f": {NO_SPACE}\n")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert contents(disk) == [FILLER]  # no run directory, no staging folder, no results dir


def test_run_whose_disk_fills_once_the_run_exists(calc_fast: Bench, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Room for run.json only: the first trial cannot be recorded, the run stops with one error and stays a
    complete, resumable run of no trials."""
    with full_disk(tmp_path / "disk", free_pages=1) as disk:
        code, _, err = call(run_args(calc_fast, disk / "results"), capsys)
        (run_dir,) = (disk / "results").iterdir()
        assert code == ExitCode.FAILED and "Traceback" not in err
        assert err.splitlines()[-1] == f"runner: error: cannot write {run_dir}/oracle/calc-add/1: {NO_SPACE}"
        assert [p for p in contents(run_dir) if (run_dir / p).is_file()] == [RUN_FILE]
        assert not any(part.startswith(".") for p in contents(run_dir) for part in Path(p).parts)
        assert load_run(run_dir).trials == ()


def test_report_html_on_a_full_disk(tmp_path: Path, disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = make_run(tmp_path / "run", {("a", "one"): ["pass", "fail"]}, trials=2)
    page = disk / "report.html"
    code, _, err = call(["report", str(run_dir), "--html", str(page)], capsys)
    assert code == ExitCode.FAILED
    assert err == f"runner: error: cannot write {page}: {NO_SPACE}\n"
    assert contents(disk) == [FILLER]


def test_results_dir_that_is_a_file_is_refused_before_any_work(calc_fast: Bench, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    taken = tmp_path / "results.txt"
    taken.write_text("mine\n")
    code, out, err = call(run_args(calc_fast, taken), capsys)
    assert (code, out) == (ExitCode.BAD_INPUT, "")
    assert err == f"runner: error: Invalid value for '--results-dir': Directory '{taken}' is a file.\n"
    assert taken.read_text() == "mine\n" and not (calc_fast.corpus.root / "results").exists()


def test_html_that_is_a_directory_is_refused_before_any_work(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = make_run(tmp_path / "run", {("a", "one"): ["pass"]}, trials=1)
    folder = tmp_path / "pages"
    folder.mkdir()
    code, out, err = call(["report", str(run_dir), "--html", str(folder)], capsys)
    assert (code, out) == (ExitCode.BAD_INPUT, "")
    assert err == f"runner: error: Invalid value for '--html': File '{folder}' is a directory.\n"
    assert list(folder.iterdir()) == []


def test_a_disk_that_fills_while_the_agent_writes_stops_the_run_at_once(calc_fast: Bench, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The agent's transcript fills the disk: the run stops with one error line, promptly, with no thread's
    traceback before it."""
    with full_disk(tmp_path / "disk", free_pages=8) as disk:
        argv = ["run", "--corpus", str(calc_fast.corpus.root), "--results-dir", str(disk / "results"), "--all",
                "--sandbox", "none", "--agent-timeout", "120", "--agent-command", f"{agent('flood')}; sleep 120"]
        started = time.monotonic()
        code, _, err = call(argv, capsys)
        assert time.monotonic() - started < 60
        (run_dir,) = (disk / "results").iterdir()
        assert code == ExitCode.FAILED and "Traceback" not in err and "Exception in thread" not in err
        assert err.splitlines()[-1].startswith(f"runner: error: cannot write {run_dir}/default/calc-add/")
        assert err.splitlines()[-1].endswith(NO_SPACE)
