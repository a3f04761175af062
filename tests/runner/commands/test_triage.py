"""`runner triage`: the regressions of a comparison rerun with the candidate's configuration, labelled, and the
labels shown by `runner compare`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from runner.runs.manifest import read_manifest
from tests.testing.runbuilder import write_run
from tests.testing.trialkit import SANDBOX_ARGS, Bench, agent, graded_quickly

FIX, NOOP = agent("fix"), agent("noop")
LATE = f"test {{trial}} -gt 3 && {FIX} || true"
"""Fixes the case from its fourth trial on: three failing trials, then a rerun that passes."""


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", list(args))
    out, err = capsys.readouterr()
    return code, out, err


def make(bench: Bench, capsys: pytest.CaptureFixture[str], name: str, *extra: str, **agents: str) -> Path:
    code, _, err = call(capsys, "run", "--corpus", str(bench.corpus.root), "--results-dir", str(bench.results),
                        "--all", "--trials", "3", "--name", name, *SANDBOX_ARGS, *extra,
                        *(arg for variant, command in agents.items() for arg in ("--agent", f"{variant}={command}")))
    assert code == ExitCode.OK, err
    (made,) = [p for p in bench.results.iterdir() if read_manifest(p).name == name]
    return made


def test_triage_labels_reproduced_and_flaky_and_compare_shows_them(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    bench = graded_quickly(tmp_path)
    baseline = make(bench, capsys, "base", noop=FIX, late=FIX)
    candidate = make(bench, capsys, "cand", "--seed", "5", noop=NOOP, late=LATE)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the runs recorded their corpus and repository
    code, out, err = call(capsys, "triage", "--baseline", str(baseline), "--candidate", str(candidate),
                          "--reruns", "4", "--no-env-cache")
    assert code == ExitCode.OK, err
    lines = out.splitlines()
    assert lines[:2] == ["late::calc-add  flaky (1 of 4 reruns passed)", "noop::calc-add  reproduced (0 of 4 reruns passed)"]
    triage_dir = Path(lines[2].removeprefix("triage run: "))
    assert triage_dir.parent == bench.results
    manifest = read_manifest(triage_dir)
    assert manifest.triage is not None and manifest.triage["candidate"]["run_id"] == candidate.name
    assert (manifest.config.trials, manifest.config.cases, manifest.config.seed) == (4, ("calc-add",), 5)
    assert {v.name: v.command for v in manifest.config.variants} == {"noop": NOOP, "late": LATE}
    code, out, _ = call(capsys, "runs", str(bench.results))
    assert [line.split()[:2] for line in out.splitlines()[1:]] == [[triage_dir.name, "(triage)"],
                                                                   [candidate.name, "cand"], [baseline.name, "base"]]
    assert manifest.runtime["sandbox"]["binds"] == [str(p) for p in bench.options().settings.agent_binds]
    # compare finds the triage beside the candidate; latest is still the candidate, not the triage run
    code, out, _ = call(capsys, "compare", "--baseline", str(bench.results / "base"), "--candidate",
                        str(bench.results / "latest"))
    lines = out.splitlines()
    assert code == ExitCode.WARN
    assert lines[0].startswith("note: every case is advisory")  # the bench's case is advisory
    assert lines[3] == f"triage: run {manifest.run_id} ({triage_dir})"
    late = lines.index("  late::calc-add  [advisory]")
    assert lines[late + 3] == "    triage:    flaky (1 of 4 reruns passed)"
    code, out, _ = call(capsys, "compare", "--baseline", str(baseline), "--candidate", str(candidate), "--json")
    data = json.loads(out)
    assert {r["key"]: r["triage"]["label"] for r in data["regressions"]} == {"late::calc-add": "flaky",
                                                                              "noop::calc-add": "reproduced"}
    # nothing regressed: nothing to rerun
    code, _, err = call(capsys, "triage", "--baseline", str(baseline), "--candidate", str(baseline))
    assert code == ExitCode.BAD_INPUT and err == "runner: error: no regression to triage\n"


def test_not_reproduced_and_an_unreadable_triage_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "results"
    kinds = {"cart": "blocking", "docs": "blocking"}
    write_run(runs, "base", {"cart": "ppp", "docs": "ppp"}, kinds=kinds)
    write_run(runs, "cand", {"cart": "fff", "docs": "fff"}, kinds=kinds)
    triage = write_run(runs, "tri", {"cart": "ppp", "docs": "eee"}, kinds=kinds,
                       created="2024-06-02T00:00:00+00:00")
    data = json.loads((triage / "run.json").read_text())
    data["triage"] = {"candidate": {"run_id": "cand", "directory": str(runs / "cand"), "variant": None},
                      "baseline": {"run_id": "base", "directory": str(runs / "base"), "variant": None}}
    (triage / "run.json").write_text(json.dumps(data))
    code, out, _ = call(capsys, "compare", "--baseline", str(runs / "base"), "--candidate", str(runs / "cand"))
    lines = out.splitlines()
    assert lines[lines.index("  cart  [blocking]") + 3] == "    triage:    not reproduced (3 of 3 reruns passed)"
    assert lines[lines.index("  docs  [blocking]") + 3] == "    triage:    unknown (0 of 0 reruns passed, 3 in error)"
    (triage / "default" / "cart" / "1" / "result.json").write_text("{}")
    code, out, err = call(capsys, "compare", "--baseline", str(runs / "base"), "--candidate", str(runs / "cand"))
    assert code == ExitCode.BAD_INPUT and out == "" and err.startswith(f"runner: error: triage run {triage}: ")
