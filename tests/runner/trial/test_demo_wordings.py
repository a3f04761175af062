"""Rotated wording on the demo corpus: an agent that fixes a case only when its prompt is put one way passes that
case under that wording alone, and the report (terminal, JSON, HTML) breaks the case's pass rate down by wording."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import Corpus
from corpus.model import Wording
from corpus.wordings import draw
from runner.report.report import render_html, render_table, report_document
from runner.runs.result import trial_path
from runner.settings import Settings
from runner.trial.plan import RunOptions
from runner.trial.run import run
from tests.runner.report.htmlkit import parse
from tests.testing.isolation import PROJECT_BIN
from tests.testing.trialkit import AGENTS, agent, variants

ROOT = Path(__file__).resolve().parents[3]
TUNED = "catalog-first-page-skipped"
PLAIN = "tax-rounding-truncates"
SHORT = "In short: page 1 of the catalog skips the first three products; pages count from 1.\n"


def test_an_agent_tuned_to_one_wording_passes_under_it_alone(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    app = tmp_path / "app"
    subprocess.run([sys.executable, str(ROOT / "demo" / "build_app.py"), str(app)], check=True,
                   capture_output=True)
    shutil.copytree(ROOT / "demo" / "corpus", tmp_path / "corpus")
    corpus = Corpus.open(tmp_path / "corpus")
    stored = corpus.load(TUNED)
    corpus.write(replace(stored.case, prompts=(Wording("short", SHORT),)), stored.files)
    monkeypatch.setenv("PATH", f"{PROJECT_BIN[0]}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}"
                               f"{os.environ['PATH']}")
    fixes = ROOT / "demo" / "agents" / "fixes"
    tuned = agent("wording", "{prompt_file}", shlex.quote(str(fixes)) + "/{case_id}.patch", "'In short:'")
    loaded = run(Corpus.open(tmp_path / "corpus"), RunOptions(
        case_ids=(TUNED, PLAIN), trials=4, seed=11, repo=app, results_dir=tmp_path / "results",
        scratch_root=tmp_path / "scratch", settings=Settings(jobs=2, agent_binds=(AGENTS, fixes, Path(sys.prefix))),
        variants=variants(tuned=tuned)))
    drawn = [draw(("prompt", "short"), TUNED, 11, t) for t in range(1, 5)]
    by_case = {case: [(t.wording, t.outcome) for t in loaded.trials if t.case_id == case] for case in (TUNED, PLAIN)}
    assert by_case[TUNED] == [(w, "pass" if w == "short" else "fail") for w in drawn]
    assert by_case[PLAIN] == [(None, "fail")] * 4  # one wording, and the agent is not tuned to it
    for number, wording in enumerate(drawn, 1):
        given = (trial_path(loaded.directory, "tuned", TUNED, number) / "prompt.md").read_text()
        assert given == (SHORT if wording == "short" else stored.case.prompt)

    text = render_table(loaded)
    assert "wordings: per case with several, each variant's passes under each wording (drawn per trial from seed 11)" \
        in text
    rows = [line.split() for line in text.splitlines() if line.split()[:1] in ([TUNED], ["short"])]
    assert rows[-2:] == [[TUNED, "prompt", "0/2", "0%"], ["short", "2/2", "100%"]]
    assert f"wording gap tuned::{TUNED}: 100% between its best and worst wording" in text
    assert PLAIN not in "".join(line for line in text.splitlines() if "wording gap" in line)

    document = json.loads(json.dumps(report_document(loaded)))
    assert [(w["case_id"], w["wording"], w["passes"], w["fails"], w["success_rate"]) for w in document["wordings"]] \
        == [(TUNED, "prompt", 0, 2, 0.0), (TUNED, "short", 2, 0, 1.0)]
    assert document["config"]["seed"] == 11

    page = parse(render_html(loaded, tmp_path / "report.html"))
    (table,) = page.find("table", "wordings")
    assert [cell.text.strip() for cell in page.find("th", within=table)] == ["case", "wording", "tuned"]
    assert [cell.text.strip() for cell in page.find("td", within=table)] == [TUNED, "prompt", "0/2 0%",
                                                                              TUNED, "short", "2/2 100%"]
    assert len(page.find("span", "wording")) == 4  # each trial of the tuned case names its wording in the grid
