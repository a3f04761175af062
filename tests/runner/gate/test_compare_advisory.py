"""Advisory cases never block, but an advisory regression never reads as a clean PASS; nor does a self-comparison."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from runner.cli import cli
from runner.gate.gate import CompareOptions, CompareReport, evaluate
from runner.gate.pairing import case_index, load_trials
from runner.gate.quarantine import Quarantine
from runner.gate.render import render_compare
from tests.testing.runbuilder import write_corpus, write_run

TODAY = date(2024, 6, 15)
ADVISORY = {f"adv-{i:02d}": "advisory" for i in range(16)}


def gate(tmp_path: Path, base: dict[str, str], cand: dict[str, str], kinds: dict[str, str],
         **options: object) -> CompareReport:
    corpus = write_corpus(tmp_path / "evals", kinds)
    base_dir = write_run(tmp_path / "runs", "base", base)
    cand_dir = write_run(tmp_path / "runs", "cand", cand)
    return evaluate(load_trials(base_dir), load_trials(cand_dir), case_index(corpus), Quarantine(),
                    CompareOptions(today=TODAY, **options))  # type: ignore[arg-type]


def rules(report: CompareReport) -> list[tuple[str, str]]:
    return [(f.level, f.rule) for f in report.findings]


def test_eight_of_sixteen_advisory_cases_failing_warn_and_lead_the_report(tmp_path: Path) -> None:
    base = {case: "ppp" for case in ADVISORY}
    cand = {case: ("fff" if i % 2 else "ppp") for i, case in enumerate(ADVISORY)}
    report = gate(tmp_path, base, cand, ADVISORY)
    dropped = [case for i, case in enumerate(ADVISORY) if i % 2]
    assert report.advisory_test.mcnemar.p_value == pytest.approx(1 / 256)
    assert (report.decision, report.exit_code) == ("WARN", 2)
    assert rules(report) == [("WARN", "advisory-drop"), ("WARN", "advisory-regression")]
    assert report.findings[0].message == (
        "significant drop over 16 advisory cases (50.0 pp; interval [-77.5, -22.5] pp below 0; exact McNemar "
        "p = 0.003906 < 0.025): adv-01, adv-03, adv-05, adv-07, adv-09 and 3 more; advisory cases never block "
        "(rule advisory-drop)")
    assert report.findings[1].message == (
        "8 advisory cases passed every baseline trial and not every candidate trial: adv-01, adv-03, adv-05, "
        "adv-07, adv-09 and 3 more (rule advisory-regression)")
    lines = render_compare(report)
    assert lines[0].startswith("note: every case is advisory, so this gate can warn but never block")
    assert lines[4] == "Regressions (8):"
    assert [line.split()[0] for line in lines[5:5 + 8 * 3:3]] == dropped
    assert lines[-3:] == [f"WARN: {f.message}" for f in report.findings] + ["verdict: WARN (exit 2)"]


def test_one_advisory_case_declining_is_listed_and_warns_over_the_tolerance(tmp_path: Path) -> None:
    base = {**{case: "ppp" for case in ADVISORY}, "adv-07": "pff"}
    cand = {**base, "adv-07": "fff"}
    report = gate(tmp_path, base, cand, ADVISORY)
    assert not report.advisory_test.blocked
    # 1/3 -> 0/3 never passed every trial, so it is a lower pass rate rather than a flip.
    assert report.regressions() == [] and [r.key for r in report.declined()] == ["adv-07"]
    assert rules(report) == [("WARN", "advisory-tolerance")] and report.exit_code == 2
    assert report.findings[0].message == (
        "advisory cases fell 2.1 pp (tolerance 2 pp), not significant with 16 cases: adv-07 "
        "(rule advisory-tolerance)")
    lines = render_compare(report)
    assert lines[4:8] == ["Regressions (0):", "Lower pass rate (1):", "  adv-07  [advisory]",
                          "    baseline:  fail (1/3 passed): grader: 1 test failed"]
    relaxed = gate(tmp_path / "relaxed", base, cand, ADVISORY, tolerance_points=5.0)
    assert (relaxed.decision, rules(relaxed)) == ("PASS", [])


def test_one_advisory_flip_warns_even_within_the_tolerance(tmp_path: Path) -> None:
    base = {case: "ppp" for case in ADVISORY}
    cand = {**base, "adv-03": "ppf"}
    report = gate(tmp_path, base, cand, ADVISORY, tolerance_points=50.0)
    assert not report.advisory_test.blocked and [r.key for r in report.regressions()] == ["adv-03"]
    assert (report.decision, rules(report)) == ("WARN", [("WARN", "advisory-regression")])
    assert report.findings[0].message == (
        "1 advisory case passed every baseline trial and not every candidate trial: adv-03 "
        "(rule advisory-regression)")


def test_advisory_warnings_never_hide_a_block(tmp_path: Path) -> None:
    kinds = {**ADVISORY, "checkout": "critical"}
    base = {case: "ppp" for case in kinds}
    cand = {**base, "checkout": "ppf", "adv-00": "fff"}
    report = gate(tmp_path, base, cand, kinds)
    assert (report.decision, report.exit_code) == ("BLOCK", 4)
    assert rules(report)[0] == ("BLOCK", "critical-regression")
    assert ("WARN", "advisory-regression") in rules(report)


def test_unchanged_advisory_comparison_passes(tmp_path: Path) -> None:
    cells = {case: ("pfp" if i == 0 else "ppp") for i, case in enumerate(ADVISORY)}
    report = gate(tmp_path, cells, cells, ADVISORY)
    assert (report.decision, report.exit_code, rules(report)) == ("PASS", 0, [])


def test_comparing_a_run_with_itself_warns_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_corpus(tmp_path / "evals", ADVISORY)
    cells = {case: "ppp" for case in ADVISORY}
    run = write_run(tmp_path / "runs", "base", cells)
    copy = write_run(tmp_path / "copies", "base", cells)  # the same run id in another directory

    def compare(candidate: Path, *extra: str) -> int:
        return run_cli(cli, "runner", ["compare", "--baseline", str(run), "--candidate", str(candidate),
                                       "--corpus", str(tmp_path / "evals"), *extra])

    message = "baseline and candidate are the same run base: the comparison shows nothing (rule same-run)"
    for candidate in (run, copy):
        assert compare(candidate) == 2
        out = capsys.readouterr().out.splitlines()
        assert out[-2:] == [f"WARN: {message}", "verdict: WARN (exit 2)"]
        assert sum("same run" in line for line in out) == 1
    assert compare(run, "--json") == 2
    data = json.loads(capsys.readouterr().out)
    assert data["findings"] == [{"level": "WARN", "rule": "same-run", "message": message}]
    other = write_run(tmp_path / "runs", "again", cells)
    assert compare(other) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "verdict: PASS (exit 0)"
