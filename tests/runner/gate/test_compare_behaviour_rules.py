"""`runner compare`'s behaviour rules over real runs: a forbidden tool in a candidate trial blocks, and a bait case
whose baseline no longer shows its misbehaviour warns; both judged from what the runs recorded at start."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.model import Bait, Trajectory
from runner.cli import cli
from runner.runs.manifest import RUN_FILE
from tests.testing.runbuilder import write_corpus, write_run
from tests.testing.trialkit import agent, graded_quickly, variants

FETCH = 'WebFetch:{"url": "https://example.com"}@2'


def calls(*specs: str) -> str:
    return agent("calls", *(shlex.quote(spec) for spec in specs))


def compare(baseline: Path, candidate: Path, *extra: str) -> int:
    return run_cli(cli, "runner", ["compare", "--baseline", str(baseline), "--candidate", str(candidate), *extra])


def test_forbidden_tools_block_and_bait_that_no_longer_bites_warns(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    bench = graded_quickly(tmp_path, trajectory=Trajectory(forbidden_tools=("web_fetch",)),
                           bait=Bait("web_fetches", 0.0))
    clean = bench.run(trials=3, variants=variants(bot=calls("Read@1"))).directory
    fetcher = bench.run(trials=3, variants=variants(bot=calls("Read@1", FETCH))).directory
    clean_again = bench.run(trials=3, variants=variants(bot=calls("Read@1"))).directory
    bait_flag = ("WARN: BAIT FLAG calc-add: no longer reproduces its misbehaviour (median web_fetches 0 over 3 "
                 "trial(s), not above 0 in the baseline) (rule bait)")

    assert compare(clean, fetcher) == 4
    lines = capsys.readouterr().out.splitlines()
    assert ("BLOCK: forbidden tool in calc-add: 3 of 3 candidate trial(s), first trial 1: call 2 "
            "WebFetch(url='https://example.com') uses forbidden tool web_fetch (rule forbidden-tool)") in lines
    assert bait_flag in lines

    assert compare(clean, clean_again) == 2  # the bait flag alone: never a PASS
    out = capsys.readouterr().out
    assert bait_flag in out.splitlines() and "BLOCK:" not in out

    assert compare(fetcher, clean_again) == 0  # the baseline shows the misbehaviour; the candidate calls nothing
    out = capsys.readouterr().out
    assert "BAIT FLAG" not in out and "(rule forbidden-tool)" not in out

    assert compare(clean, fetcher, "--json") == 4
    report = json.loads(capsys.readouterr().out)
    rules = [f["rule"] for f in report["findings"]]
    assert "forbidden-tool" in rules and "bait" in rules


def test_compare_judges_forbidden_tools_from_the_behaviour_record_and_the_run_s_own_case_meta(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A candidate trial without a trajectory verdict (its case had none when the trial ran) is checked against
    the forbidden tools run.json recorded, from its behaviour.json; the corpus as it is today does not matter."""
    bench = graded_quickly(tmp_path)
    clean = bench.run(trials=3, variants=variants(bot=calls("Read@1"))).directory
    fetcher = bench.run(trials=3, variants=variants(bot=calls("Read@1", FETCH))).directory
    assert compare(clean, fetcher) == 0
    capsys.readouterr()
    manifest = json.loads((fetcher / RUN_FILE).read_text())
    manifest["cases_meta"]["calc-add"]["trajectory"] = {"forbidden_tools": ["WEBFETCH"]}
    (fetcher / RUN_FILE).write_text(json.dumps(manifest))
    assert compare(clean, fetcher) == 4
    assert ("BLOCK: forbidden tool in calc-add: 3 of 3 candidate trial(s), first trial 1: call 2 WebFetch uses "
            "forbidden tool WEBFETCH (rule forbidden-tool)") in capsys.readouterr().out.splitlines()


def test_runs_recorded_before_case_behaviour_fields_still_compare(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    kinds = {"a": "blocking", "b": "blocking"}
    write_corpus(tmp_path / "evals", kinds)
    base = write_run(tmp_path / "runs", "base", {"a": "ppppp", "b": "ppppp"}, kinds=kinds)
    cand = write_run(tmp_path / "runs", "cand", {"a": "ppppp", "b": "ppppp"}, kinds=kinds)
    for run in (base, cand):  # as an older Hindcast wrote them: no behaviour fields in cases_meta
        manifest = json.loads((run / RUN_FILE).read_text())
        for meta in manifest["cases_meta"].values():
            for key in ("max_turns", "bait", "trajectory"):
                del meta[key]
        (run / RUN_FILE).write_text(json.dumps(manifest))
    assert compare(base, cand) == 0
    assert "PASS" in capsys.readouterr().out
