"""The gate's rules, verdicts and exit codes on runs built on disk."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from scipy import stats as sps

from corpus import Corpus, CorpusError
from runner.gate.gate import CompareOptions, CompareReport, evaluate
from runner.gate.pairing import UsageError, case_index, load_trials
from runner.gate.quarantine import Quarantine, QuarantineEntry, load_quarantine
from runner.gate.summary import ErrorRate
from tests.testing.runbuilder import write_corpus, write_run

TODAY = date(2024, 6, 15)
ALL_PASS = "ppppp"


def gate(tmp_path: Path, base: dict[str, str], cand: dict[str, str], kinds: dict[str, str],
         quarantine: Quarantine | None = None, **options: object) -> CompareReport:
    """Write both runs and a corpus, then evaluate through the library with a fixed today."""
    corpus = write_corpus(tmp_path / "evals", kinds)
    base_dir = write_run(tmp_path / "runs", "base", base)
    cand_dir = write_run(tmp_path / "runs", "cand", cand)
    opts = CompareOptions(today=TODAY, **options)  # type: ignore[arg-type]
    return evaluate(load_trials(base_dir), load_trials(cand_dir), case_index(corpus),
                    quarantine or Quarantine(), opts)


def rules(report: CompareReport) -> list[tuple[str, str]]:
    return [(f.level, f.rule) for f in report.findings]


def blocking(n: int) -> dict[str, str]:
    return {f"case-{i:02d}": "blocking" for i in range(n)}


def test_no_change_passes(tmp_path: Path) -> None:
    cells = {case: ALL_PASS for case in blocking(6)}
    report = gate(tmp_path, cells, cells, blocking(6))
    assert (report.decision, report.exit_code, rules(report)) == ("PASS", 0, [])
    assert report.regressions() == [] and report.summary.blocking.points == 0.0


def test_significant_drop_blocks_with_known_mcnemar_p(tmp_path: Path) -> None:
    kinds = blocking(10)
    base = {case: ALL_PASS for case in kinds}
    cand = {case: ("ppppf" if i < 6 else ALL_PASS) for i, case in enumerate(kinds)}
    report = gate(tmp_path, base, cand, kinds)
    # b = 6 regressions, c = 0 fixes: p = P(X >= 6), X ~ Binomial(6, 1/2) = 1/64.
    assert report.test.mcnemar.p_value == pytest.approx(1 / 64, abs=1e-15)
    assert report.test.mcnemar_blocks and report.decision == "BLOCK" and report.exit_code == 4
    assert rules(report)[0] == ("BLOCK", "significant-drop")
    assert [r.key for r in report.regressions()] == [f"case-0{i}" for i in range(6)]


def test_paired_interval_matches_ttest_rel(tmp_path: Path) -> None:
    kinds = blocking(8)
    # Flaky cases getting flakier: no case flips under the "all trials" rule, so McNemar sees nothing.
    base_cells = ["ppppf", "pppff", "ppppf", "pppff", "ppfff", "ppppf", "pppff", "ppfff"]
    cand_cells = ["ppfff", "ppfff", "pppff", "pffff", "pffff", "ppfff", "pppff", "pppff"]
    base = dict(zip(kinds, base_cells, strict=True))
    cand = dict(zip(kinds, cand_cells, strict=True))
    report = gate(tmp_path, base, cand, kinds)
    rates_b = [c.count("p") / 5 for c in base_cells]
    rates_c = [c.count("p") / 5 for c in cand_cells]
    expected = sps.ttest_rel(rates_c, rates_b).confidence_interval(0.95)
    assert report.test.paired.ci_low == pytest.approx(expected.low, rel=1e-12)
    assert report.test.paired.ci_high == pytest.approx(expected.high, rel=1e-12)
    assert report.test.paired.ci_high < 0 and report.test.t_blocks
    assert report.test.mcnemar.regressions == 0 and not report.test.mcnemar_blocks
    assert rules(report) == [("BLOCK", "significant-drop")] and report.regressions() == []
    assert [r.key for r in report.declined()] == ["case-00", "case-01", "case-02", "case-03", "case-04",
                                                  "case-05"]


def test_critical_regression_blocks_even_when_not_significant(tmp_path: Path) -> None:
    kinds = {**blocking(5), "checkout": "critical"}
    base = {case: ALL_PASS for case in kinds}
    cand = {**base, "checkout": "pppfp"}
    report = gate(tmp_path, base, cand, kinds, tolerance_points=50.0)
    assert not report.test.blocked
    assert rules(report) == [("BLOCK", "critical-regression")]
    assert report.findings[0].message == (
        "critical case checkout passed all 5 baseline trials and failed 1 of 5 candidate trials: "
        "grader: 1 test failed")


def test_critical_rule_needs_a_clean_baseline(tmp_path: Path) -> None:
    kinds = {**blocking(5), "checkout": "critical"}
    base = {**{case: ALL_PASS for case in kinds}, "checkout": "pppfp"}
    cand = {**base, "checkout": "ppffp"}
    report = gate(tmp_path, base, cand, kinds, tolerance_points=50.0)
    assert ("BLOCK", "critical-regression") not in rules(report)


def test_missing_blocking_case_blocks_and_missing_advisory_does_not(tmp_path: Path) -> None:
    kinds = {**blocking(3), "docs": "advisory"}
    base = {case: ALL_PASS for case in kinds}
    cand = {case: ALL_PASS for case in list(kinds)[1:3]}
    report = gate(tmp_path, base, cand, kinds)
    assert [r.key for r in report.missing()] == ["case-00", "docs"]
    assert rules(report) == [("BLOCK", "missing-case")]
    assert report.findings[0].message == "1 blocking case of the baseline missing from the candidate: case-00"


def test_advisory_cases_never_block(tmp_path: Path) -> None:
    kinds = {**blocking(2), **{f"adv-{i}": "advisory" for i in range(8)}}
    base = {case: ALL_PASS for case in kinds}
    cand = {case: ("fffff" if case.startswith("adv") else ALL_PASS) for case in kinds}
    report = gate(tmp_path, base, cand, kinds)
    assert report.decision == "WARN" and len(report.regressions()) == 8
    assert rules(report) == [("WARN", "advisory-drop"), ("WARN", "advisory-regression")]
    assert report.advisory_test.blocked and not report.test.blocked
    assert report.summary.advisory.points == -100.0 and report.summary.blocking.cases == 2


def test_case_no_longer_in_corpus_is_advisory(tmp_path: Path) -> None:
    kinds = blocking(3)
    base = {**{case: ALL_PASS for case in kinds}, "gone": ALL_PASS, "old": ALL_PASS}
    cand = {**{case: ALL_PASS for case in kinds}, "gone": "fffff"}
    report = gate(tmp_path, base, cand, {**kinds, "old": "deprecated"})
    labels = {r.key: r.info.label() for r in report.rows}
    assert labels["gone"] == "advisory: not in corpus" and labels["old"] == "advisory: deprecated"
    assert report.decision == "WARN" and report.test.paired.n == 3
    assert rules(report) == [("WARN", "advisory-tolerance"), ("WARN", "advisory-regression")]


def test_underpowered_drop_warns(tmp_path: Path) -> None:
    kinds = blocking(4)
    base = {case: ALL_PASS for case in kinds}
    cand = {**base, "case-00": "pppff"}
    report = gate(tmp_path, base, cand, kinds)
    assert (report.decision, report.exit_code, rules(report)) == ("WARN", 2, [("WARN", "underpowered-drop")])
    assert report.findings[0].message == (
        "blocking cases fell 10.0 pp (tolerance 2 pp), not significant with 4 cases; a person should decide")
    assert report.power.target_is_observed and report.power.cases_needed is not None
    assert report.power.cases_needed > 4
    quiet = gate(tmp_path / "again", base, cand, kinds, tolerance_points=10.0)
    assert quiet.decision == "PASS"


def test_cost_rise_warns_above_the_limit(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "evals", blocking(3))
    cells = {case: ALL_PASS for case in blocking(3)}
    base = load_trials(write_run(tmp_path / "runs", "base", cells, cost_usd=0.10, tokens=1000))
    cand = load_trials(write_run(tmp_path / "runs", "cand", cells, cost_usd=0.13, tokens=1500))
    report = evaluate(base, cand, case_index(corpus), Quarantine(), CompareOptions(today=TODAY))
    assert rules(report) == [("WARN", "cost")]
    assert report.summary.cost_change_pct == pytest.approx(30.0)
    assert report.summary.tokens[1] is not None and report.summary.tokens[1].total == 15 * 1500
    relaxed = evaluate(base, cand, case_index(corpus), Quarantine(),
                       CompareOptions(today=TODAY, max_cost_increase_pct=50.0))
    assert relaxed.decision == "PASS"


def test_failures_turned_errors_warn_though_every_rate_rose(tmp_path: Path) -> None:
    kinds = blocking(4)
    base = {case: ("ppppf" if i < 2 else ALL_PASS) for i, case in enumerate(kinds)}
    cand = {case: ("ppppe" if i < 2 else ALL_PASS) for i, case in enumerate(kinds)}
    report = gate(tmp_path, base, cand, kinds)
    assert report.summary.blocking.points == pytest.approx(10.0) and len(report.fixes()) == 2  # looks better
    assert (report.decision, report.exit_code, rules(report)) == ("WARN", 2, [("WARN", "error-rate")])
    assert report.findings[0].message == (
        "error rate of default rose from 0.0% (0 of 20 trials) to 10.0% (2 of 20): errored trials leave the pass "
        "rates, so failures turned errors look like passes; resume the candidate run to run them again")
    (rate,) = report.summary.errors
    assert (rate.baseline_errors, rate.baseline_trials, rate.candidate_errors, rate.candidate_trials) == (0, 20, 2, 20)


def test_equal_or_lower_error_rates_do_not_warn(tmp_path: Path) -> None:
    kinds = blocking(4)
    base = {case: ("ppppe" if i == 0 else ALL_PASS) for i, case in enumerate(kinds)}
    cand = {case: ("ppppe" if i == 1 else ALL_PASS) for i, case in enumerate(kinds)}
    report = gate(tmp_path, base, cand, kinds)
    assert (report.decision, rules(report)) == ("PASS", [])
    assert not report.summary.errors[0].rose
    fewer = gate(tmp_path / "fewer", cand, {case: ALL_PASS for case in kinds}, kinds)
    assert (fewer.decision, rules(fewer)) == ("PASS", [])


def test_the_error_rate_warning_is_per_variant_and_never_hides_a_block(tmp_path: Path) -> None:
    kinds = blocking(3)
    base = {f"{v}::{case}": ("pppe" if v == "v2" else "pppp") for v in ("v1", "v2") for case in kinds}
    cand = {f"{v}::{case}": ("pppe" if v == "v1" else "pppp") for v in ("v1", "v2") for case in kinds}
    report = gate(tmp_path, base, cand, kinds)
    assert [(r.label, r.baseline_errors, r.candidate_errors, r.rose) for r in report.summary.errors] == [
        ("v1", 0, 3, True), ("v2", 3, 0, False)]
    assert rules(report) == [("WARN", "error-rate")] and "error rate of v1 rose" in report.findings[0].message
    gone = {key: letters for key, letters in cand.items() if key != "v2::case-00"}
    blocked = gate(tmp_path / "blocked", base, gone, kinds)
    assert (blocked.decision, blocked.exit_code) == ("BLOCK", 4)
    assert rules(blocked) == [("BLOCK", "missing-case"), ("WARN", "error-rate")]


@pytest.mark.parametrize(("base", "cand", "rose"), [
    ((0, 10), (1, 10), True),
    ((1, 10), (1, 10), False),
    ((2, 10), (1, 10), False),
    ((1, 10), (1, 5), False),    # a higher share, but no more errored trials
    ((1, 10), (2, 20), False),   # more errored trials, the same share
    ((1, 10), (3, 20), True),
])
def test_an_error_rate_rises_with_more_errored_trials_and_a_higher_share(
        base: tuple[int, int], cand: tuple[int, int], rose: bool) -> None:
    assert ErrorRate("a", "b", *base, *cand).rose is rose


def test_refuses_with_fewer_than_three_non_error_trials(tmp_path: Path) -> None:
    kinds = blocking(3)
    base = {case: ALL_PASS for case in kinds}
    cand = {**base, "case-01": "ppeee", "case-02": "pp"}
    report = gate(tmp_path, base, cand, kinds)
    assert report.refused and report.exit_code == 4
    assert [f.message for f in report.findings] == [  # the refusal leads, and hides nothing else
        "refused: the candidate run has fewer than 3 non-error trials for case-01 (2), case-02 (2)",
        ("error rate of default rose from 0.0% (0 of 15 trials) to 25.0% (3 of 12): errored trials leave the pass "
        "rates, so failures turned errors look like passes; resume the candidate run to run them again")]


@pytest.mark.parametrize("kind", ["blocking", "advisory"])
def test_the_power_line_counts_the_trials_the_runs_have(tmp_path: Path, kind: str) -> None:
    kinds = {case: kind for case in blocking(4)}
    report = gate(tmp_path, {case: "pppp" for case in kinds}, {case: "ppppp" for case in kinds}, kinds)
    cases = 4 if kind == "blocking" else 0
    assert (report.power.cases, report.power.trials) == (cases, 4)
    assert report.power.text().startswith(f"{cases} blocking cases x 4 trials, ")
    short = gate(tmp_path / "short", {case: "pp" for case in kinds}, {case: "pp" for case in kinds}, kinds)
    assert short.refused and short.power.text().startswith(f"{cases} blocking cases x 2 trials, ")


def test_refuses_on_dataset_change_unless_allowed(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "evals", blocking(3))
    cells = {case: ALL_PASS for case in blocking(3)}
    base = load_trials(write_run(tmp_path / "runs", "base", cells, fingerprint="1" * 64))
    cand = load_trials(write_run(tmp_path / "runs", "cand", cells, fingerprint="2" * 64))
    refused = evaluate(base, cand, case_index(corpus), Quarantine(), CompareOptions(today=TODAY))
    assert refused.refused and refused.decision == "BLOCK"
    assert refused.findings[0].message.startswith("refused: the runs were made on different datasets")
    allowed = evaluate(base, cand, case_index(corpus), Quarantine(),
                       CompareOptions(today=TODAY, allow_dataset_change=True))
    assert (allowed.refused, allowed.decision) == (False, "PASS")


def entry(case: str, owner: str | None = "ada", expiry: date | None = date(2024, 7, 1)) -> QuarantineEntry:
    return QuarantineEntry(case=case, reason="times out on CI", owner=owner, expiry=expiry)


def test_valid_quarantine_excludes_a_case(tmp_path: Path) -> None:
    kinds = blocking(4)
    base = {case: ALL_PASS for case in kinds}
    cand = {**base, "case-00": "fffff"}
    report = gate(tmp_path, base, cand, kinds, Quarantine((entry("case-00"),)))
    assert (report.decision, report.regressions()) == ("PASS", [])
    assert [r.key for r in report.quarantined()] == ["case-00"] and report.test.paired.n == 3


def test_expired_quarantine_counts_again(tmp_path: Path) -> None:
    kinds = blocking(4)
    base = {case: ALL_PASS for case in kinds}
    cand = {**base, "case-00": "fffff"}
    expired = Quarantine((entry("case-00", expiry=date(2024, 6, 14)),))
    report = gate(tmp_path, base, cand, kinds, expired)
    assert report.quarantined() == [] and [r.key for r in report.regressions()] == ["case-00"]
    assert report.decision == "WARN" and report.test.paired.n == 4
    last_day = gate(tmp_path / "b", base, cand, kinds, Quarantine((entry("case-00", expiry=TODAY),)))
    assert last_day.decision == "PASS"


@pytest.mark.parametrize(("bad", "problem"), [
    (entry("case-00", owner=None), "no owner"),
    (entry("case-00", expiry=None), "no expiry"),
    (entry("checkout"), "critical cases cannot be quarantined"),
    (entry("checkout", expiry=date(2020, 1, 1)), "critical cases cannot be quarantined"),
])
def test_invalid_quarantine_entry_blocks(tmp_path: Path, bad: QuarantineEntry, problem: str) -> None:
    kinds = {**blocking(3), "checkout": "critical"}
    cells = {case: ALL_PASS for case in kinds}
    report = gate(tmp_path, cells, {**cells, "case-00": "fffff"}, kinds, Quarantine((bad,)))
    assert ("BLOCK", "quarantine") in rules(report)
    assert any(f.message.endswith(problem) for f in report.findings)
    assert [r.key for r in report.regressions()] == ["case-00"]


def test_quarantine_never_excludes_a_critical_case(tmp_path: Path) -> None:
    kinds = {**blocking(3), "checkout": "critical"}
    cells = {case: ALL_PASS for case in kinds}
    report = gate(tmp_path, cells, {**cells, "checkout": "ppppf"}, kinds, Quarantine((entry("checkout"),)))
    assert report.quarantined() == []
    assert {("BLOCK", "critical-regression"), ("BLOCK", "quarantine")} <= set(rules(report))


def test_quarantine_file_round_trip_and_errors(tmp_path: Path) -> None:
    good = tmp_path / "q.yaml"
    good.write_text("quarantine:\n  - case: v2::case-00\n    reason: slow\n    owner: ada\n    expiry: 2024-07-01\n"
                    "  - case: case-01\n    owner:\n    expiry: '2024-08-01'\n")
    q = load_quarantine(good)
    assert [(e.case, e.case_id, e.owner, e.expiry, e.line) for e in q.entries] == [
        ("v2::case-00", "case-00", "ada", date(2024, 7, 1), 2), ("case-01", "case-01", None, date(2024, 8, 1), 6)]
    for text, message in [
        ("quarantine:\n  - case: a\n    expiry: soon\n",
         ":3: quarantine[0].expiry: not an ISO date (YYYY-MM-DD): 'soon'"),
        ("quarantine:\n  - reason: x\n", ":2: quarantine[0].case: every entry needs a case (id or variant::case)"),
        ("quarantine:\n  - case: a\n    ownr: b\n", ":3: quarantine[0].ownr: unknown key"),
        ("entries: []\n", ":1: entries: unknown key"),
    ]:
        bad = tmp_path / "bad.yaml"
        bad.write_text(text)
        with pytest.raises(CorpusError) as info:
            load_quarantine(bad)
        assert str(info.value) == f"{bad}{message}"


def test_options_reject_bad_values() -> None:
    with pytest.raises(UsageError, match="--alpha"):
        CompareOptions(alpha=1.5)
    with pytest.raises(UsageError, match="--tolerance"):
        CompareOptions(tolerance_points=-1)
    with pytest.raises(UsageError, match="--max-cost-increase"):
        CompareOptions(max_cost_increase_pct=-5)


def test_matrix_runs_pair_by_variant_and_case(tmp_path: Path) -> None:
    kinds = blocking(3)
    base = {f"{v}::{case}": ALL_PASS for v in ("v1", "v2") for case in kinds}
    cand = {**base, "v2::case-00": "ppfff"}
    report = gate(tmp_path, base, cand, kinds, tolerance_points=100.0)
    assert report.keyed_by == "variant::case" and len(report.rows) == 6
    assert [r.key for r in report.regressions()] == ["v2::case-00"]
    scoped = gate(tmp_path / "q", base, cand, kinds, Quarantine((entry("v2::case-00"),)))
    assert [r.key for r in scoped.quarantined()] == ["v2::case-00"] and scoped.decision == "PASS"
    other = gate(tmp_path / "o", base, cand, kinds, Quarantine((entry("v1::case-00"),)),
                 tolerance_points=100.0)
    assert [r.key for r in other.quarantined()] == ["v1::case-00"]
    assert [r.key for r in other.regressions()] == ["v2::case-00"]


def test_matrix_and_single_variant_without_a_shared_variant_is_bad_input(tmp_path: Path) -> None:
    kinds = blocking(3)
    base = {f"old::{case}": ALL_PASS for case in kinds}
    cand = {f"{v}::{case}": ALL_PASS for v in ("v1", "v2") for case in kinds}
    with pytest.raises(UsageError, match="cannot pair variants old with v1, v2"):
        gate(tmp_path, base, cand, kinds)


def test_single_variant_runs_pair_by_case_across_variant_names(tmp_path: Path) -> None:
    kinds = blocking(3)
    base = {f"old-prompt::{case}": ALL_PASS for case in kinds}
    cand = {f"new-prompt::{case}": ALL_PASS for case in kinds}
    report = gate(tmp_path, base, cand, kinds)
    assert report.keyed_by == "case" and [r.key for r in report.rows] == list(kinds)
    assert report.decision == "PASS"


def test_power_note_uses_the_gate_sd_and_functions(tmp_path: Path) -> None:
    from runner.gate.power import cases_needed, estimate_sd_of_differences, min_detectable_drop

    kinds = blocking(6)
    base = {case: ALL_PASS for case in kinds}
    cand = {**base, "case-00": "ppppf", "case-01": "ppfff"}
    report = gate(tmp_path, base, cand, kinds)
    diffs = [-0.2, -0.6, 0.0, 0.0, 0.0, 0.0]
    sd = estimate_sd_of_differences(diffs, 5).value
    assert report.power.sd == pytest.approx(sd)
    assert report.power.min_detectable_drop == pytest.approx(min_detectable_drop(6, sd, 0.05, 0.8))
    assert report.power.cases_needed == cases_needed(0.8 / 6, sd, 0.05, 0.8)
    assert report.power.text().startswith("6 blocking cases x 5 trials, sd of per-case differences ")


def test_corpus_without_cases_treats_everything_as_advisory(tmp_path: Path) -> None:
    Corpus.init(tmp_path / "evals", "empty")
    base = write_run(tmp_path / "runs", "base", {"a": ALL_PASS})
    cand = write_run(tmp_path / "runs", "cand", {"a": "fffff"})
    report = evaluate(load_trials(base), load_trials(cand), case_index(Corpus.open(tmp_path / "evals")),
                      Quarantine(), CompareOptions(today=TODAY))
    assert report.decision == "WARN" and report.power.cases == 0
    assert ("WARN", "advisory-regression") in rules(report) and report.test.paired.n == 0
    assert "no drop can be detected (the test needs at least 2 cases)" in report.power.text()
