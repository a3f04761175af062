"""Holdout cases and the review sample on the demo corpus, with real runs of scripted agents in the sandbox: the
holdout share drawn by `authoring holdout`, recorded by the run, hidden by report, compare and sample unless asked,
and an agent tuned on the tuning cases caught by compare --holdout; a sampled checklist filled in and read back."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from authoring.holdout import HoldoutOptions, draw_holdout
from corpus import Corpus
from corpus.cli_support import run_cli
from runner.cli import cli
from runner.runs.load import LoadedRun
from runner.runs.manifest import Variant, read_manifest
from runner.settings import Settings
from runner.trial.plan import RunOptions
from runner.trial.run import run
from tests.testing.isolation import PROJECT_BIN

ROOT = Path(__file__).resolve().parents[3]
DEMO_AGENTS = ROOT / "demo" / "agents"
TEST_AGENTS = ROOT / "tests" / "testing" / "agents"


@dataclass(frozen=True)
class Demo:
    """A copy of the demo corpus with a holdout share, and its runs."""

    corpus: Corpus
    held: tuple[str, ...]
    tuned: LoadedRun
    fixer: LoadedRun


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Demo:
    root = tmp_path_factory.mktemp("holdout-demo")
    app = root / "app"
    subprocess.run([sys.executable, str(ROOT / "demo" / "build_app.py"), str(app)], check=True, capture_output=True)
    shutil.copytree(ROOT / "demo" / "corpus", root / "evals")
    corpus = Corpus.open(root / "evals")
    draw = draw_holdout(corpus, HoldoutOptions(0.4, 11))
    held = tuple(case for stratum in draw.strata for case in stratum.chosen)
    tuning = sorted(set(corpus.ids("cases")) - set(held))[:2]
    python = shlex.quote(sys.executable)
    path = f"{PROJECT_BIN[0]}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    previous = os.environ["PATH"]
    os.environ["PATH"] = path
    try:
        options = RunOptions(case_ids=(*held, *tuning), repo=app, results_dir=root / "results",
                             scratch_root=root / "scratch",
                             settings=Settings(jobs=2, agent_binds=(DEMO_AGENTS, TEST_AGENTS, Path(sys.prefix))))
        hidden = " ".join(shlex.quote(case) for case in held)
        tuned = run(corpus, RunOptions(**{**options.__dict__, "trials": 3, "name": "tuned", "variants": (
            Variant("noop", f"{python} {DEMO_AGENTS / 'noop.py'} {{prompt_file}}"),
            Variant("tuned", f"{python} {TEST_AGENTS / 'tuned.py'} {{case_id}} {hidden}"))}))
        fixer = run(corpus, RunOptions(**{**options.__dict__, "trials": 1, "name": "fixer", "variants": (
            Variant("fixer", f"{python} {DEMO_AGENTS / 'fixer.py'} {{case_id}}"),)}))
    finally:
        os.environ["PATH"] = previous
    return Demo(corpus, held, tuned, fixer)


def runner(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = run_cli(cli, "runner", args)
    return code, capsys.readouterr().out


def test_the_draw_is_stratified_and_the_run_records_it(demo: Demo) -> None:
    assert len(demo.held) == 2
    policies = sorted(demo.corpus.load(case).case.policy for case in demo.held)
    assert policies == ["advisory", "blocking"]
    meta = read_manifest(demo.tuned.directory).cases_meta
    assert {case for case, m in meta.items() if m.holdout} == set(demo.held)
    totals = {v.variant: (v.passes, v.fails, v.errors) for v in demo.tuned.variants}
    assert totals == {"noop": (0, 12, 0), "tuned": (6, 6, 0)}


def test_report_hides_the_holdout_cases_unless_asked(demo: Demo, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = runner(["report", str(demo.tuned.directory)], capsys)
    assert code == 0 and "holdout: 2 holdout cases held out of every figure (--holdout shows them)" in out
    assert not any(case in out for case in demo.held)
    row = next(line.split() for line in out.splitlines() if line.strip().startswith("tuned "))
    assert row[:7] == ["tuned", "6", "6", "0", "0", "0", "100%"]
    code, out = runner(["report", str(demo.tuned.directory), "--holdout"], capsys)
    assert all(case in out for case in demo.held)
    sets = next(line.split() for line in out.splitlines() if line.strip().startswith("tuned") and "pp" in line)
    assert sets == ["tuned", "2", "6/6", "100%", "2", "0/6", "0%", "-100.0", "pp"]


def test_compare_holdout_catches_the_tuned_agent(demo: Demo, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["compare", "--baseline", str(demo.tuned.directory), "--baseline-variant", "noop",
            "--candidate", str(demo.tuned.directory), "--candidate-variant", "tuned"]
    code, out = runner(args, capsys)
    assert out.splitlines()[0].startswith("holdout: 2 holdout cases held out of the decision")
    assert "holdout-gap" not in out and not any(case in out for case in demo.held)
    assert code == 0
    code, out = runner([*args, "--holdout", "--json"], capsys)
    document = json.loads(out)
    assert code == 2 and [f["rule"] for f in document["findings"]] == ["holdout-gap"]
    gap = document["holdout"]
    assert (gap["tuning"]["gain"], gap["holdout"]["gain"], gap["gap"], gap["significant"]) == (1.0, 0.0, 1.0, True)


def test_sample_draws_tuning_passes_and_report_reads_the_checklist_back(demo: Demo, tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    out_dir = tmp_path / "review"
    code, out = runner(["sample", str(demo.fixer.directory), "--passes", "5", "--seed", "3", "--out",
                        str(out_dir)], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[-3] == "drew 2 of 2 passes (2 holdout cases left out)"
    page = (out_dir / "sample.html").read_text()
    assert "the reference patch" in page and not any(case in page for case in demo.held)
    oracle = demo.corpus.load(next(c for c in demo.fixer.manifest.config.cases if c not in demo.held)).files
    first_added = next(line for line in oracle.oracle_patch.decode().splitlines() if line.startswith("+ "))
    assert first_added.replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;") in page \
        or first_added in page
    checklist = out_dir / "checklist.yaml"
    text = checklist.read_text()
    trials = [line.split('"')[1] for line in text.splitlines() if line.strip().startswith("- trial:")]
    assert len(trials) == 2 and "verdict: \n" in text
    code, out = runner(["report", str(demo.fixer.directory), "--review", str(checklist)], capsys)
    assert code == 0 and f"review: none of the 2 sampled passes judged yet ({checklist})" in out
    filled = text.replace("verdict: \n", 'verdict: "wrong fix"\n', 1).replace('note: ""', 'note: "edits the caller"', 1)
    checklist.write_text(filled)
    code, out = runner(["report", str(demo.fixer.directory), "--review", str(checklist)], capsys)
    assert code == 0
    assert (f"review: 1 of 1 judged passes judged wrong (0 looks right, 1 wrong fix, 0 gamed the test); 1 of 2 "
            f"sampled not yet judged ({checklist})") in out
    assert f"  wrong fix: {trials[0]}: edits the caller" in out
    code, out = runner(["sample", str(demo.fixer.directory), "--passes", "5", "--seed", "3", "--holdout"], capsys)
    assert code == 0 and "drew 4 of 4 passes" in out
    default = demo.fixer.directory / "review" / "checklist.yaml"
    assert default.is_file()
    code, out = runner(["report", str(demo.fixer.directory), "--json"], capsys)
    review = json.loads(out)["review"]
    assert review["path"] == str(default) and review["sampled"] == 2  # the holdout cases' entries stay hidden
