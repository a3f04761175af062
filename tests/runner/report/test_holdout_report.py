"""runner report leaves holdout cases out unless given --holdout, and then shows the two sets side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from runner.cli import cli
from runner.report.report import render_html
from runner.runs.holdout import tuning_view
from runner.runs.load import load_run
from tests.testing.runbuilder import write_run

KINDS = {"cart": "blocking", "tax": "blocking", "ship": "advisory", "vault": "blocking"}
CELLS = {"cart": "ppp", "tax": "ppf", "ship": "ppp", "vault": "fff"}


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return write_run(tmp_path / "runs", "r1", CELLS, kinds=KINDS, holdout={"vault"})


def report(run_dir: Path, *extra: str) -> int:
    return run_cli(cli, "runner", ["report", str(run_dir), *extra])


def test_the_table_leaves_holdout_cases_out_of_every_figure(run_dir: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    assert report(run_dir) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "holdout: 1 holdout case held out of every figure (--holdout shows them)"
    assert "vault" not in out and "tuning set" not in out
    row = next(line.split() for line in out.splitlines() if line.strip().startswith("default "))
    assert row[:7] == ["default", "9", "8", "1", "0", "0", "89%"]  # 8 of 9 without vault's three fails


def test_holdout_shows_them_and_the_two_sets_side_by_side(run_dir: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert report(run_dir, "--holdout") == 0
    out = capsys.readouterr().out
    assert "held out" not in out and "vault [blocking, holdout]" in out
    row = next(line.split() for line in out.splitlines() if line.strip().startswith("default "))
    assert row[:7] == ["default", "12", "8", "4", "0", "0", "67%"]
    sets = next(line.split() for line in out.splitlines() if line.strip().startswith("default") and "pp" in line)
    assert sets == ["default", "3", "8/9", "89%", "1", "0/3", "0%", "-88.9", "pp"]


def test_json_and_html_hide_them_too(run_dir: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert report(run_dir, "--json") == 0
    document = json.loads(capsys.readouterr().out)
    assert document["holdout"] == {"held_out": ["vault"], "cases": [], "sets": []}
    assert {t["case_id"] for t in document["trials"]} == {"cart", "tax", "ship"}
    assert "vault" not in json.dumps(document["cells"]) + json.dumps(document["cases_meta"])
    assert report(run_dir, "--json", "--holdout") == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["holdout"]["cases"] == ["vault"] and shown["holdout"]["held_out"] == []
    assert [(s["tuning"]["passes"], s["holdout"]["fails"]) for s in shown["holdout"]["sets"]] == [(8, 3)]
    hidden = render_html(tuning_view(load_run(run_dir)), tmp_path / "r.html")
    assert "vault" not in hidden and "1 holdout case held out" in hidden
    page = render_html(load_run(run_dir), tmp_path / "r.html")
    assert "vault" in page and "Tuning set and holdout set" in page


def test_runs_made_before_runs_recorded_holdout_hold_none_out(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = write_run(tmp_path / "runs", "old", CELLS, kinds=KINDS)
    text = (run_dir / "run.json").read_text()
    manifest = json.loads(text)
    for meta in manifest["cases_meta"].values():
        del meta["holdout"]
    (run_dir / "run.json").write_text(json.dumps(manifest))
    assert report(run_dir) == 0
    out = capsys.readouterr().out
    assert "vault" in out and "held out" not in out


def test_runs_lists_the_pass_rate_of_the_tuning_set(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(cli, "runner", ["runs", str(run_dir.parent), "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert listed["pass_rate"] == {"default": pytest.approx(8 / 9)}  # 12 trials, vault's three fails held out


def test_a_holdout_trial_is_shown_only_with_holdout(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert report(run_dir, "--trial", "default/vault/1") == 3
    assert capsys.readouterr().err == ("runner: error: --trial default/vault/1: vault is a holdout case, left out "
                                       "unless --holdout\n")
    assert report(run_dir, "--trial", "default/vault/1", "--holdout") == 0
    assert capsys.readouterr().out.startswith("trial default/vault/1: fail")
