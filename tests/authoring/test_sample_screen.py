"""The review screen opens a run's sample: each drawn pass's patch beside the case's reference patch, and the
verdict keys write the checklist that `runner report` reads back."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from rich.syntax import Syntax
from textual.widgets import DataTable, Static

from authoring.app import make_sample_app
from authoring.cli import cli
from authoring.sampling import SampleSession
from authoring.widgets.code_view import CodeView
from corpus import CaseFiles
from corpus.cli_support import run_cli
from corpus.errors import UsageError
from runner.report.review import read_review
from runner.report.sample import SampleOptions, sample_passes
from runner.runs.load import load_run
from runner.runs.manifest import Origin, read_manifest, write_manifest
from tests.testing.pilothelpers import settle, sync
from tests.testing.runbuilder import write_corpus, write_run

ORACLE = "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
CANDIDATE = "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 3\n"


def sampled_run(tmp_path: Path) -> Path:
    corpus = write_corpus(tmp_path / "evals", {"cart": "blocking"})
    stored = corpus.load("cart")
    corpus.write(stored.case, CaseFiles.of(ORACLE.encode(), {}))
    run_dir = write_run(tmp_path / "runs", "r1", {"cart": "ppf"})
    for folder in run_dir.glob("default/cart/*"):
        (folder / "candidate.patch").write_text(CANDIDATE.replace("x = 3", f"x = {folder.name}0"))
    write_manifest(run_dir, replace(read_manifest(run_dir), origin=Origin(str(corpus.root), str(tmp_path))))
    sample_passes(load_run(run_dir), SampleOptions(2, seed=1))
    return run_dir


def shown(code: CodeView) -> str:
    renderable = code.query_one(Static).content
    assert isinstance(renderable, Syntax)
    return renderable.code


@sync
async def test_the_verdict_keys_write_the_checklist(tmp_path: Path) -> None:
    run_dir = sampled_run(tmp_path)
    checklist = run_dir / "review" / "checklist.yaml"
    first, second = (e.trial for e in read_review(checklist, load_run(run_dir)).entries)
    app = make_sample_app(run_dir)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert shown(screen.query_one("#reference-patch", CodeView)) == ORACLE.rstrip("\n")
        assert f"+x = {first.rsplit('/', 1)[1]}0" in shown(screen.query_one("#candidate-patch", CodeView))
        await pilot.press("2")
        await pilot.press("down")
        await settle(pilot)
        assert f"+x = {second.rsplit('/', 1)[1]}0" in shown(screen.query_one("#candidate-patch", CodeView))
        await pilot.press("1")
        await settle(pilot)
        table = screen.query_one(DataTable)
        assert [table.get_row_at(i)[:2] for i in range(2)] == [[first, "wrong fix"], [second, "looks right"]]
        verdicts = [(e.trial, e.verdict) for e in read_review(checklist, load_run(run_dir)).entries]
        assert verdicts == [(first, "wrong fix"), (second, "looks right")]
        await pilot.press("0")
        await settle(pilot)
    assert [e.verdict for e in read_review(checklist, load_run(run_dir)).entries] == ["wrong fix", None]


def test_a_run_without_a_sample_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = write_run(tmp_path / "runs", "r1", {"cart": "ppp"})
    with pytest.raises(UsageError, match="no checklist; draw one with `runner sample"):
        make_sample_app(run_dir)
    assert run_cli(cli, "authoring", ["review", "--sample", str(run_dir)]) == 3
    assert capsys.readouterr().err.startswith(f"authoring: error: {run_dir / 'review' / 'checklist.yaml'}: no")




def test_the_reference_is_the_patch_the_trial_kept_before_the_corpus(tmp_path: Path) -> None:
    run_dir = sampled_run(tmp_path)
    session = SampleSession(run_dir)
    first = session.entries[0].trial.split("/")
    kept = ORACLE.replace("+x = 2", "+x = 5")
    (run_dir / first[0] / first[1] / first[2] / "oracle.patch").write_text(kept)
    assert session.patches(0).reference == kept.rstrip("\n")
    assert session.patches(1).reference == ORACLE.rstrip("\n")  # kept no copy: the run's corpus's
