"""Runs as self-contained artifacts: a run records its corpus, repository, name and each case's governance, and
compare, flakes, report and --resume work from the run directories alone, from any directory."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from runner.runs.find import resolve_run
from runner.runs.manifest import read_manifest
from tests.testing.runbuilder import write_corpus, write_run
from tests.testing.trialkit import SANDBOX_ARGS, agent, graded_quickly, variants

KINDS = {"cart": "critical", "login": "blocking", "docs": "advisory"}
BASE = {"cart": "ppp", "login": "ppp", "docs": "ppp"}
CAND = {"cart": "fff", "login": "ppp", "docs": "ppp"}


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working directory with no corpus in it."""
    where = tmp_path / "elsewhere"
    where.mkdir()
    monkeypatch.chdir(where)
    return where


def test_a_run_records_its_origin_name_and_cases(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    bench = graded_quickly(tmp_path)
    args = ["run", "--corpus", str(bench.corpus.root), "--results-dir", str(bench.results), "--all",
            "--mode", "oracle", *SANDBOX_ARGS]
    code, _, err = call(capsys, *args, "--name", "latest")
    assert code == ExitCode.BAD_INPUT and "--name 'latest'" in err and not bench.results.exists()
    code, out, _ = call(capsys, *args, "--name", "nightly")
    assert code == ExitCode.OK
    (run_dir,) = bench.results.iterdir()
    manifest = read_manifest(run_dir)
    (case,) = bench.corpus.load_all()
    assert manifest.name == "nightly"
    assert manifest.origin is not None and Path(manifest.origin.corpus) == bench.corpus.root.resolve()
    assert Path(manifest.origin.repo) == bench.corpus.repo_path().resolve()
    meta = manifest.cases_meta[case.case.id]
    assert (meta.title, meta.policy, meta.critical, meta.status) == (case.case.title, case.case.policy,
                                                                     case.case.critical, "active")
    assert f"run {manifest.run_id} [nightly]  mode oracle" in out
    assert "mode oracle: the known fix was applied, so a fail means the case is broken" in out
    # The report from another directory, by name and as latest, with the results directory in front.
    monkeypatch.chdir(tmp_path.parent)
    for word in ("nightly", "latest"):
        code, out, _ = call(capsys, "report", str(bench.results / word), "--json")
        assert code == ExitCode.OK and json.loads(out)["run_id"] == manifest.run_id
    # --resume by name, from elsewhere: the run's own corpus and repository; nothing is left to run
    code, out, err = call(capsys, "run", "--resume", str(bench.results / "nightly"), *SANDBOX_ARGS)
    assert code == ExitCode.OK and f"run {run_dir}: every trial is recorded, nothing left to run" in err
    assert len(read_manifest(run_dir).resumed) == 1
    code, _, err = call(capsys, *args, "--resume", str(run_dir), "--name", "weekly")
    assert code == ExitCode.BAD_INPUT and "a resumed run keeps its name (nightly)" in err


def test_compare_and_flakes_need_only_the_run_directories(tmp_path: Path, elsewhere: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "results"
    write_run(runs, "base", BASE, kinds=KINDS)
    write_run(runs, "cand", CAND, kinds=KINDS)
    code, out, err = call(capsys, "compare", "--baseline", str(runs / "base"), "--candidate", str(runs / "cand"))
    lines = out.splitlines()
    assert code == ExitCode.BLOCK, err
    assert lines[1] == "policy and criticality: as the runs recorded them when they started"
    assert lines[3:5] == ["Regressions (1):", "  cart  [blocking, critical]"]
    code, out, _ = call(capsys, "flakes", str(runs / "cand"))
    assert code == ExitCode.OK and out.splitlines()[0] == (
        "run cand; criticality: as the runs recorded them when they started")


def test_corpus_applies_todays_policy_and_says_so(tmp_path: Path, elsewhere: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "results"
    write_run(runs, "base", BASE, kinds=KINDS)
    write_run(runs, "cand", CAND, kinds=KINDS)
    write_corpus(tmp_path / "evals", {**KINDS, "cart": "advisory"})  # cart became advisory since the runs
    code, out, _ = call(capsys, "compare", "--baseline", str(runs / "base"), "--candidate", str(runs / "cand"),
                        "--corpus", str(tmp_path / "evals"))
    assert code == ExitCode.WARN
    assert out.splitlines()[1] == f"policy and criticality: the corpus {tmp_path / 'evals'} as it is today (--corpus)"
    assert "  cart  [advisory]" in out.splitlines()


def test_the_candidates_record_wins_and_an_older_run_without_one_needs_corpus(
        tmp_path: Path, elsewhere: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "results"
    write_run(runs, "base", BASE, kinds={**KINDS, "cart": "advisory"})
    write_run(runs, "cand", CAND, kinds=KINDS)
    code, out, _ = call(capsys, "compare", "--baseline", str(runs / "base"), "--candidate", str(runs / "cand"))
    assert code == ExitCode.BLOCK and "  cart  [blocking, critical]" in out.splitlines()
    write_run(runs, "old", BASE)
    code, out, err = call(capsys, "compare", "--baseline", str(runs / "old"), "--candidate", str(runs / "cand"))
    assert code == ExitCode.BAD_INPUT and out == ""
    assert err == ("runner: error: run old does not record its cases' policy (made by an older Hindcast); pass "
                   "--corpus to apply the corpus's\n")


def test_two_variants_of_one_matrix_run_compare_by_case(tmp_path: Path, elsewhere: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "results"
    cells = {**{f"fixer::{c}": "ppp" for c in KINDS}, **{f"noop::{c}": "fff" for c in KINDS}}
    write_run(runs, "matrix", cells, kinds=KINDS)
    matrix = str(runs / "matrix")
    code, out, _ = call(capsys, "compare", "--baseline", matrix, "--candidate", matrix)
    assert code == ExitCode.WARN and "Regressions (0):" in out  # whole matrix against itself: nothing to see
    assert "rule same-run" in out
    code, out, _ = call(capsys, "compare", "--baseline", matrix, "--baseline-variant", "fixer",
                        "--candidate", matrix, "--candidate-variant", "noop")
    lines = out.splitlines()
    assert code == ExitCode.BLOCK and "rule same-run" not in out
    assert lines[0] == "baseline matrix:fixer (fixer) vs candidate matrix:noop (noop), compared by case"
    assert "Regressions (3):" in lines
    code, out, _ = call(capsys, "compare", "--baseline", matrix, "--baseline-variant", "noop",
                        "--candidate", matrix, "--candidate-variant", "noop")
    assert code == ExitCode.WARN and "same run matrix:noop" in out
    code, _, err = call(capsys, "compare", "--baseline", matrix, "--baseline-variant", "gpt",
                        "--candidate", matrix)
    assert code == ExitCode.BAD_INPUT
    assert err == "runner: error: --baseline-variant gpt: run matrix has no variant 'gpt' (it has fixer, noop)\n"


def test_latest_and_names_stand_for_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    runs = tmp_path / "evals" / "results"
    write_run(runs, "r1", BASE, kinds=KINDS, name="nightly", created="2026-11-01T00:00:00+00:00")
    write_run(runs, "r2", BASE, kinds=KINDS, name="nightly", created="2026-11-02T00:00:00+00:00")
    write_run(runs, "r3", CAND, kinds=KINDS, name="pr-17", created="2026-11-03T00:00:00+00:00")
    monkeypatch.chdir(tmp_path)  # a bare latest or name is a run of ./evals/results
    code, out, _ = call(capsys, "compare", "--baseline", "nightly", "--candidate", "latest", "--json")
    data = json.loads(out)
    assert code == ExitCode.BLOCK and (data["baseline"]["run_id"], data["candidate"]["run_id"]) == ("r2", "r3")
    assert data["candidate"]["name"] == "pr-17"
    code, out, _ = call(capsys, "compare", "--baseline", str(runs / "r1"), "--candidate", str(runs / "nightly"),
                        "--json")
    assert json.loads(out)["candidate"]["run_id"] == "r2"
    code, _, err = call(capsys, "report", "weekly")
    assert code == ExitCode.BAD_INPUT and err == (
        "runner: error: weekly: not a run directory (nor the --name of a run in evals/results)\n")
    code, out, _ = call(capsys, "report", "latest", "--corpus", str(tmp_path / "evals"), "--json")
    assert json.loads(out)["run_id"] == "r3"
    monkeypatch.chdir(tmp_path.parent)
    code, _, err = call(capsys, "report", "latest")
    assert code == ExitCode.BAD_INPUT and err == (
        "runner: error: latest: no results directory evals/results to find the latest run in\n")


def test_runs_made_within_one_second_are_ordered_by_when_they_were_made(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Scripted runs start seconds apart or less: `latest` and `runner runs` follow the order they were made in,
    whatever their ids (a random suffix after the second) say; a run recorded to the second sorts before the
    runs of its second recorded more finely."""
    runs = tmp_path / "results"
    write_run(runs, "20261103T000000Z-ffff", BASE, kinds=KINDS, created="2026-11-03T00:00:00.100000+00:00")
    write_run(runs, "20261103T000000Z-0000", CAND, kinds=KINDS, created="2026-11-03T00:00:00.900000+00:00")
    write_run(runs, "20261103T000000Z-aaaa", BASE, kinds=KINDS, created="2026-11-03T00:00:00+00:00")
    code, out, _ = call(capsys, "runs", str(runs), "--json")
    assert [r["run_id"] for r in json.loads(out)] == ["20261103T000000Z-0000", "20261103T000000Z-ffff",
                                                      "20261103T000000Z-aaaa"]
    code, out, _ = call(capsys, "report", str(runs / "latest"), "--json")
    assert code == ExitCode.OK and json.loads(out)["run_id"] == "20261103T000000Z-0000"


def test_a_run_records_when_it_was_made_to_the_microsecond(tmp_path: Path) -> None:
    bench = graded_quickly(tmp_path)
    first = bench.run(variants=variants(noop=agent("noop")), trials=1)
    second = bench.run(variants=variants(noop=agent("noop")), trials=1)
    created = [read_manifest(r.directory).created for r in (first, second)]
    assert all(len(c) == len("2026-11-03T00:00:00.123456+00:00") for c in created), created
    assert datetime.fromisoformat(created[0]) < datetime.fromisoformat(created[1])
    assert resolve_run(Path("latest"), bench.results) == second.directory


def test_runs_lists_newest_first_and_names_a_broken_run(tmp_path: Path, elsewhere: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "results"
    write_run(runs, "r1", BASE, kinds=KINDS, name="nightly", created="2026-11-01T00:00:00+00:00")
    write_run(runs, "r2", {"fixer::cart": "ppp", "noop::cart": "fp."}, kinds=KINDS,
              created="2026-11-02T00:00:00+00:00")
    write_run(runs, "r3", BASE, kinds=KINDS, created="2026-11-03T00:00:00+00:00")
    (runs / "r3" / "default" / "cart" / "1" / "result.json").write_text("{}")
    (runs / "notes").mkdir()
    code, out, _ = call(capsys, "runs", str(runs))
    lines = out.splitlines()
    assert code == ExitCode.OK
    assert lines[0].split() == ["RUN", "NAME", "CREATED", "MODE", "VARIANTS", "CASES", "TRIALS", "PASS", "RATE",
                                "DATASET"]
    assert [line.split()[0] for line in lines[1:]] == ["r3", "r2", "r1"]
    assert lines[3].split()[:9] == ["r1", "nightly", "2026-11-01", "00:00", "agent", "default", "3", "9/9",
                                    "default"]
    assert "fixer 100% noop 50%" in lines[2] and "5/6" in lines[2]
    assert "unreadable: " in lines[1] and "changed after it was recorded" in lines[1]
    code, out, _ = call(capsys, "runs", str(runs), "--json")
    listed = json.loads(out)
    assert [r["run_id"] for r in listed] == ["r3", "r2", "r1"] and listed[1]["pass_rate"] == {"fixer": 1.0,
                                                                                             "noop": 0.5}
    shutil.rmtree(runs)
    code, _, err = call(capsys, "runs", str(runs))
    assert code == ExitCode.BAD_INPUT and err == f"runner: error: {runs}: no such results directory\n"


def test_report_says_incomplete_and_what_a_baseline_pass_means(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "results"
    write_run(runs, "partial", {"cart": "pp.", "docs": "p.."}, kinds=KINDS, mode="baseline")
    code, out, _ = call(capsys, "report", str(runs / "partial"))
    lines = out.splitlines()
    assert code == ExitCode.OK
    assert lines[0] == (f"INCOMPLETE: 3 of 6 planned trials missing; complete the run with `runner run --resume "
                        f"{runs / 'partial'}`")
    assert lines[1].startswith("mode baseline: no agent ran and the grader judged the broken base as it is, so a "
                               "pass means the case is broken")
    code, out, _ = call(capsys, "report", str(runs / "partial"), "--json")
    assert json.loads(out)["notes"][0].startswith("INCOMPLETE: 3 of 6")
