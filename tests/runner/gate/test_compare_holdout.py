"""runner compare leaves holdout cases out unless given --holdout; with it the verdict covers them and the
candidate's gain on the tuning set is set against its gain on the holdout set."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import t as t_dist

from corpus.cli_support import run_cli
from runner.cli import cli
from runner.gate.gate import CompareOptions, evaluate
from runner.gate.pairing import load_trials, policy_for
from runner.gate.quarantine import Quarantine
from runner.report.compare_html import write_compare_html
from tests.testing.runbuilder import write_run

TUNING = {"t1": ("ffppp", "ppppp"), "t2": ("ffppp", "ppppp"), "t3": ("fffpp", "ppppp"),
          "t4": ("fpppp", "ppppp"), "t5": ("ffppp", "ppppp"), "t6": ("ffppp", "ppppp")}
HOLDOUT = {"hx1": ("ffppp", "ffppp"), "hx2": ("ffppp", "fffpp"), "hx3": ("ffppp", "fpppp")}
KINDS = {case: "blocking" for case in (*TUNING, *HOLDOUT)}


def write_pair(root: Path, tuning: dict[str, tuple[str, str]], holdout: dict[str, tuple[str, str]],
               kinds: dict[str, str]) -> tuple[Path, Path]:
    cells = {**tuning, **holdout}
    return (write_run(root, "base", {c: b for c, (b, _) in cells.items()}, kinds=kinds, holdout=set(holdout)),
            write_run(root, "cand", {c: a for c, (_, a) in cells.items()}, kinds=kinds, holdout=set(holdout)))


def compare(base: Path, cand: Path, *extra: str) -> int:
    return run_cli(cli, "runner", ["compare", "--baseline", str(base), "--candidate", str(cand), *extra])


def test_without_holdout_the_gate_sees_only_the_tuning_set(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    base, cand = write_pair(tmp_path, TUNING, HOLDOUT, KINDS)
    assert compare(base, cand) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == ("holdout: 3 holdout cases held out of the decision and every figure "
                                   "(compare --holdout includes them)")
    assert not any(h in out for h in HOLDOUT) and "Tuning set and holdout set" not in out
    assert "paired t over 6 blocking cases" in out
    assert compare(base, cand, "--json") == 0
    document = json.loads(capsys.readouterr().out)
    assert document["held_out"] == ["hx1", "hx2", "hx3"] and document["holdout"] is None
    assert document["test"]["cases"] == 6


def test_with_holdout_a_gain_the_holdout_set_does_not_share_warns(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    base, cand = write_pair(tmp_path, TUNING, HOLDOUT, KINDS)
    assert compare(base, cand, "--holdout") == 2
    out = capsys.readouterr().out
    assert "held out" not in out and "paired t over 9 blocking cases" in out
    # the intervals as scipy.stats.t gives them for gains [.4 .4 .6 .2 .4 .4] and [0 -.2 .2]
    assert "  tuning (6 cases): 60.0% -> 100.0% (gain +40.0 pp, 95% interval [+26.7, +53.3] pp)" in out
    assert "  holdout (3 cases): 60.0% -> 60.0% (gain +0.0 pp, 95% interval [-49.7, +49.7] pp)" in out
    assert "  gap (tuning gain - holdout gain): +40.0 pp, 95% interval [-14.4, +94.4] pp, not significant" in out
    assert "  power: gaps of 71.8 pp or more are seen with at least 80% power" in out
    warning = next(line for line in out.splitlines() if "rule holdout-gap" in line)
    assert warning.startswith("WARN: the candidate gained +40.0 pp on 6 tuning cases and +0.0 pp on 3 holdout "
                              "cases: a gap of 40.0 pp, not significant (gaps of 71.8 pp or more")
    assert compare(base, cand, "--holdout", "--json") == 2
    document = json.loads(capsys.readouterr().out)
    gap = document["holdout"]
    assert document["held_out"] == [] and gap["significant"] is False
    assert (gap["tuning"]["cases"], gap["holdout"]["cases"]) == (6, 3)
    assert 0.0 < gap["min_detectable_gap"] < 1.0 and gap["power"].endswith("with at least 80% power")


def test_the_gap_is_the_two_sets_difference_with_the_fewer_cases_degrees_of_freedom(tmp_path: Path) -> None:
    base, cand = write_pair(tmp_path, TUNING, HOLDOUT, KINDS)
    b, c = load_trials(base), load_trials(cand)
    cases, _ = policy_for(None, c, b)
    gap = evaluate(b, c, cases, Quarantine(), CompareOptions(holdout=True)).holdout_gap
    assert gap is not None
    tuning = [0.4, 0.4, 0.6, 0.2, 0.4, 0.4]
    holdout = [0.0, -0.2, 0.2]

    def var(xs: list[float]) -> float:
        m = sum(xs) / len(xs)
        return sum((x - m) ** 2 for x in xs) / (len(xs) - 1)

    se = math.sqrt(var(tuning) / 6 + var(holdout) / 3)
    expected = sum(tuning) / 6 - sum(holdout) / 3
    assert gap.gap == pytest.approx(expected)
    assert gap.ci_low == pytest.approx(expected - float(t_dist.ppf(0.975, 2)) * se)


def test_a_holdout_set_that_gains_alike_does_not_warn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    holdout = {"hx1": ("ffppp", "ppppp"), "hx2": ("fffpp", "ppppp"), "hx3": ("ffppp", "fpppp")}
    base, cand = write_pair(tmp_path, TUNING, holdout, KINDS)
    assert compare(base, cand, "--holdout") == 0
    out = capsys.readouterr().out
    assert "holdout-gap" not in out and "not significant" in out


def test_only_the_holdout_gate_blocks_a_holdout_regression(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kinds = {**KINDS, "hx1": "critical"}
    holdout = {**HOLDOUT, "hx1": ("ppppp", "ppfpp")}
    base, cand = write_pair(tmp_path, TUNING, holdout, kinds)
    assert compare(base, cand) == 0
    capsys.readouterr()
    assert compare(base, cand, "--holdout", "--html", str(tmp_path / "c.html")) == 4
    assert "BLOCK: critical case hx1 passed all 5 baseline trials" in capsys.readouterr().out
    html = (tmp_path / "c.html").read_text()
    assert 'id="holdout"' in html and "gap (tuning gain - holdout gain)" in html and "hx1" in html


def test_the_compare_page_without_holdout_shows_none_of_their_trials(tmp_path: Path) -> None:
    base, cand = write_pair(tmp_path, TUNING, HOLDOUT, KINDS)
    b, c = load_trials(base), load_trials(cand)
    cases, _ = policy_for(None, c, b)
    report = evaluate(b, c, cases, Quarantine(), CompareOptions())
    write_compare_html(report, tmp_path / "c.html", None)
    html = (tmp_path / "c.html").read_text()
    assert "3 holdout cases held out of the decision" in html and not any(h in html for h in HOLDOUT)


def test_a_gap_beyond_chance_is_called_significant(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    holdout = {f"hx{i}": ("ffppp", after) for i, after in enumerate(("ffppp", "fffpp", "fpppp", "ffppp", "ffppp",
                                                                   "fffpp"))}
    base, cand = write_pair(tmp_path, TUNING, holdout, {case: "blocking" for case in (*TUNING, *holdout)})
    assert compare(base, cand, "--holdout") == 2
    out = capsys.readouterr().out
    assert "gap (tuning gain - holdout gain): +43.3 pp" in out and ", significant" in out
    assert "a gap of 43.3 pp, significant;" in out
