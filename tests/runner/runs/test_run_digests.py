"""run.json records the digest of every trial's result.json; every command that judges a run refuses one whose
trials no longer match it, and the run records digests in batches that are always written in the end."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

import runner.runs.digests
from corpus.cli_support import run_cli
from corpus.errors import UsageError
from runner.cli import cli
from runner.runs.digests import DigestLedger, audit_run
from runner.runs.load import load_run
from runner.runs.manifest import read_manifest, write_manifest
from runner.runs.result import TrialResult, trial_path
from runner.trial.run import run
from tests.testing.runbuilder import write_corpus, write_run
from tests.testing.trialkit import Bench, agent, variants

CELLS = {"cart": "ppfpp", "tax": "pppp."}


def tamper(run_dir: Path) -> str:
    """A failed trial turned into a pass by editing its result.json."""
    path = trial_path(run_dir, "default", "cart", 3) / "result.json"
    path.write_text(path.read_text().replace('"outcome": "fail"', '"outcome": "pass"'))
    return ("trial default/cart/3: result.json does not match the digest run.json recorded for it, so it "
            "changed after it was recorded; the run cannot be trusted: make a new run")


def add_unrecorded(run_dir: Path) -> str:
    """A trial folder run.json never recorded (what a kill between publishing and recording leaves)."""
    source = trial_path(run_dir, "default", "tax", 4)
    target = trial_path(run_dir, "default", "tax", 5)
    target.mkdir()
    (target / "result.json").write_text((source / "result.json").read_text().replace('"trial": 4', '"trial": 5'))
    return (f"trial default/tax/5: on disk but not recorded in run.json (the run is still going, or stopped "
            f"before recording it); resume it: runner run --resume {run_dir}")


def delete_recorded(run_dir: Path) -> str:
    """A recorded failure removed."""
    shutil.rmtree(trial_path(run_dir, "default", "cart", 3))
    return "trial default/cart/3: recorded in run.json, but its result.json is gone; the run cannot be trusted: " \
           "make a new run"


DAMAGE = [tamper, add_unrecorded, delete_recorded]


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    write_corpus(tmp_path / "evals", {"cart": "blocking", "tax": "blocking"})
    write_run(tmp_path / "runs", "base", CELLS)
    write_run(tmp_path / "runs", "cand", CELLS)
    return tmp_path


def test_undamaged_runs_are_judged(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base, cand = runs / "runs" / "base", runs / "runs" / "cand"
    assert run_cli(cli, "runner", ["report", str(cand)]) == 0
    assert run_cli(cli, "runner", ["compare", "--baseline", str(base), "--candidate", str(cand),
                                   "--corpus", str(runs / "evals")]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("damage", DAMAGE)
@pytest.mark.parametrize("argv", [
    ["report", "{cand}"],
    ["report", "{cand}", "--json"],
    ["report", "{cand}", "--html", "{root}/page.html"],
    ["flakes", "{cand}", "--corpus", "{root}/evals"],
    ["compare", "--baseline", "{base}", "--candidate", "{cand}", "--corpus", "{root}/evals"],
    ["compare", "--baseline", "{cand}", "--candidate", "{base}", "--corpus", "{root}/evals", "--json"],
], ids=["report", "report-json", "report-html", "flakes", "compare-candidate", "compare-baseline"])
def test_a_run_that_no_longer_matches_run_json_is_refused(runs: Path, capsys: pytest.CaptureFixture[str],
                                                          damage: Callable[[Path], str], argv: list[str]) -> None:
    base, cand = runs / "runs" / "base", runs / "runs" / "cand"
    problem = damage(cand)
    args = [a.format(root=runs, base=base, cand=cand) for a in argv]
    assert run_cli(cli, "runner", args) == 3
    captured = capsys.readouterr()
    assert captured.err == f"runner: error: {cand}: {problem}\n" and captured.out == ""
    assert not (runs / "page.html").exists()


def test_the_first_of_several_mismatches_is_named_with_a_count(runs: Path) -> None:
    cand = runs / "runs" / "cand"
    first = tamper(cand)
    add_unrecorded(cand)
    with pytest.raises(UsageError) as info:
        load_run(cand)
    assert info.value.message == f"{cand}: {first} (and 1 more)"


def test_a_digest_for_a_trial_the_run_does_not_plan_is_refused(runs: Path) -> None:
    cand = runs / "runs" / "cand"
    manifest = read_manifest(cand)
    write_manifest(cand, replace(manifest, digests={**manifest.digests, "default/cart/9": "0" * 64}))
    with pytest.raises(UsageError, match=r"run.json records a digest for default/cart/9, which is not a trial"):
        load_run(cand)


def test_run_json_of_format_1_is_refused(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cand = runs / "runs" / "cand"
    data = json.loads((cand / "run.json").read_text())
    del data["digests"]
    (cand / "run.json").write_text(json.dumps({**data, "format": 1}))
    assert run_cli(cli, "runner", ["report", str(cand)]) == 3
    assert capsys.readouterr().err == (
        f"runner: error: {cand / 'run.json'}: format 1, made before run.json recorded its trials' digests, so "
        "its outcomes cannot be checked; make a new run\n")


@pytest.mark.parametrize(("digests", "message"), [
    (None, "KeyError: 'digests'"),
    ({"default/cart/1": "not-hex"}, "ValueError: digests: 'default/cart/1' is not a sha256 hex digest"),
])
def test_malformed_digests_are_bad_input(runs: Path, digests: object, message: str) -> None:
    cand = runs / "runs" / "cand"
    data = json.loads((cand / "run.json").read_text())
    if digests is None:
        del data["digests"]
    else:
        data["digests"] = digests
    (cand / "run.json").write_text(json.dumps(data))
    with pytest.raises(UsageError, match=re.escape(f"{cand / 'run.json'}: not a run manifest ({message})")):
        load_run(cand)


def on_disk(run_dir: Path) -> set[str]:
    return set(read_manifest(run_dir).digests)


def test_the_ledger_writes_at_most_every_interval_and_on_flush(runs: Path) -> None:
    cand = runs / "runs" / "cand"
    write_manifest(cand, replace(read_manifest(cand), digests={}))
    now = [100.0]
    ledger = DigestLedger(cand, interval=0.5, clock=lambda: now[0])
    results = [TrialResult("cart", "default", t, "pass", "", "", "") for t in (1, 2, 3)]
    ledger.record(results[0])
    now[0] += 0.4
    ledger.record(results[1])
    assert on_disk(cand) == set()  # not yet: less than 0.5 s since the last write
    now[0] += 0.1
    ledger.record(results[2])
    assert on_disk(cand) == {"default/cart/1", "default/cart/2", "default/cart/3"}
    ledger.record(results[2])  # recording twice changes nothing
    ledger.flush()
    path = trial_path(cand, "default", "cart", 3) / "result.json"
    assert read_manifest(cand).digests["default/cart/3"] == hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_finished_run_has_every_digest_written_whatever_the_interval(
        calc_fast: Bench, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner.runs.digests, "WRITE_INTERVAL", 3600.0)
    loaded = calc_fast.run(trials=3, variants=variants(noop=agent("noop")))
    assert set(loaded.manifest.digests) == {f"noop/calc-add/{t}" for t in (1, 2, 3)}
    assert [a.state for a in audit_run(loaded.directory, read_manifest(loaded.directory)).trials] == ["recorded"] * 3


def test_ctrl_c_writes_the_digests_of_every_published_trial(calc_fast: Bench,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner.runs.digests, "WRITE_INTERVAL", 3600.0)

    def interrupt(done: int, total: int, result: TrialResult) -> None:
        if done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(calc_fast.corpus, calc_fast.options(trials=4, variants=variants(noop=agent("noop"))), interrupt)
    (run_dir,) = [p for p in calc_fast.results.iterdir() if not p.name.startswith(".")]
    states = [a.state for a in audit_run(run_dir, read_manifest(run_dir)).trials]
    assert states[:2] == ["recorded", "recorded"] and "unrecorded" not in states
    loaded = load_run(run_dir)
    assert len(loaded.trials) >= 2 and loaded.missing == 4 - len(loaded.trials)


def test_a_regrade_refuses_a_source_run_that_no_longer_matches(calc_fast: Bench) -> None:
    source = calc_fast.run(trials=1, variants=variants(slow=agent("noop"))).directory
    path = trial_path(source, "slow", "calc-add", 1) / "result.json"
    path.write_text(path.read_text().replace('"agent_exit_code": 0', '"agent_exit_code": 1'))
    with pytest.raises(UsageError, match=f"^{source}: trial slow/calc-add/1: result.json does not match"):
        calc_fast.run(mode="regrade", patch_from=source)
    assert [p for p in calc_fast.results.iterdir() if not p.name.startswith(".")] == [source]
