"""A frozen run: `runner export --json` writes a whole run as one file that report, compare and flakes take
wherever they take a run, audited like a run directory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from tests.testing.trialkit import SANDBOX_ARGS, Bench, agent, graded_quickly


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def made(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Bench, Path, Path]:
    bench = graded_quickly(tmp_path)
    runs = []
    for name, command in (("base", agent("stream", "claude")), ("cand", agent("noop"))):
        code, _, err = call(capsys, "run", "--corpus", str(bench.corpus.root), "--results-dir", str(bench.results),
                            "--all", "--trials", "3", "--name", name, *SANDBOX_ARGS, "--agent", f"a={command}")
        assert code == ExitCode.OK, err
        runs.append(bench.results / name)
    frozen = tmp_path / "baseline.json"
    code, _, err = call(capsys, "export", str(runs[0]), "--json", str(frozen))
    assert code == ExitCode.OK, err
    return bench, frozen, runs[1]


def test_a_frozen_run_reads_like_its_directory(made: tuple[Bench, Path, Path], capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    bench, frozen, candidate = made
    data = json.loads(frozen.read_text())
    assert data["format"] == "hindcast-frozen-run" and len(data["trials"]) == 3
    assert all(t["behaviour"] for t in data["trials"].values())
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, out, _ = call(capsys, "report", str(frozen), "--json")
    from_file = json.loads(out)
    code2, out2, _ = call(capsys, "report", str(bench.results / "base"), "--json")
    from_dir = json.loads(out2)
    assert code == code2 == ExitCode.OK
    for key in ("run_id", "variants", "cells", "trials", "behaviour", "dataset_fingerprint"):
        assert from_file[key] == from_dir[key], key
    code, out, _ = call(capsys, "compare", "--baseline", str(frozen), "--candidate", str(candidate))
    lines = out.splitlines()
    assert code == ExitCode.WARN and lines[-1] == "verdict: WARN (exit 2)"
    assert lines[0].startswith("note: every case is advisory")
    assert lines[2] == "policy and criticality: as the runs recorded them when they started"
    assert lines[4:6] == ["Regressions (1):", "  calc-add  [advisory]"]
    assert "  cost: $0.0375 -> not recorded" in lines
    code, out, _ = call(capsys, "flakes", str(frozen))
    assert code == ExitCode.OK and "STABLE_PASS" in out


def test_an_edited_frozen_run_is_refused_and_it_cannot_be_resumed(made: tuple[Bench, Path, Path],
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    bench, frozen, candidate = made
    code, _, err = call(capsys, "run", "--corpus", str(bench.corpus.root), "--resume", str(frozen), *SANDBOX_ARGS)
    assert code == ExitCode.BAD_INPUT and "a frozen run is one file of results; it cannot be resumed" in err
    data = json.loads(frozen.read_text())
    key = next(iter(data["trials"]))
    data["trials"][key]["result"] = data["trials"][key]["result"].replace('"pass"', '"fail"')
    frozen.write_text(json.dumps(data))
    code, out, err = call(capsys, "compare", "--baseline", str(frozen), "--candidate", str(candidate))
    assert code == ExitCode.BAD_INPUT and out == "" and "changed after it was recorded" in err
    frozen.write_text('{"format": "something else"}')
    code, _, err = call(capsys, "report", str(frozen))
    assert code == ExitCode.BAD_INPUT and err == f"runner: error: {frozen}: not a run directory\n"
    code, _, err = call(capsys, "export", str(candidate))
    assert code == ExitCode.BAD_INPUT and "give either --jsonl FILE or --json FILE" in err
