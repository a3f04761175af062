"""Aggregates are recomputed from the trials on every read: pass@k, pass^k, Wilson, errors apart."""

from __future__ import annotations

import json
from math import comb
from pathlib import Path

import pytest

from corpus.errors import UsageError
from runner.runs.aggregate import Aggregate, cell_aggregate
from runner.runs.load import load_run
from runner.runs.result import Durations, Excerpt, GraderTests, TrialResult, WantedTest, trial_path
from runner.runs.stats import wilson_interval
from tests.testing.runbuilder import record_digests
from tests.testing.trialkit import make_run


def unbiased(n: int, c: int, k: int) -> tuple[float, float]:
    return 1 - comb(n - c, k) / comb(n, k), comb(c, k) / comb(n, k)


def test_cell_and_variant_aggregates(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, {("a", "one"): ["pass", "pass", "fail", "error", "pass"],
                                  ("a", "two"): ["fail", "pass", "error"],
                                  ("b", "one"): ["error", "error"], ("b", "two"): []})
    loaded = load_run(run_dir)
    cells = {c.key: c for c in loaded.cells}
    one = cells["a::one"]
    assert (one.trials, one.passes, one.fails, one.errors, one.missing) == (5, 3, 1, 1, 0)
    assert one.success_rate == 0.75 and one.wilson == wilson_interval(3, 4)
    assert list(one.pass_at_k) == [1, 2, 3, 4]
    for k in range(1, 5):
        assert one.pass_at_k[k] == pytest.approx(unbiased(4, 3, k)[0])
        assert one.pass_hat_k[k] == pytest.approx(unbiased(4, 3, k)[1])
    two = cells["a::two"]
    assert (two.passes, two.fails, two.errors, two.missing) == (1, 1, 1, 2)
    total = {v.variant: v for v in loaded.variants}["a"]
    assert (total.passes, total.fails, total.errors, total.cases_scored) == (4, 2, 2, 2)
    assert total.success_rate == pytest.approx(4 / 6) and total.wilson == wilson_interval(4, 6)
    assert list(total.pass_at_k) == [1, 2]  # k up to the smallest number of scored trials
    assert total.pass_at_k[2] == pytest.approx((unbiased(4, 3, 2)[0] + unbiased(2, 1, 2)[0]) / 2)
    assert total.pass_hat_k[2] == pytest.approx((unbiased(4, 3, 2)[1] + 0.0) / 2)
    only_errors = {v.variant: v for v in loaded.variants}["b"]
    assert (only_errors.errors, only_errors.success_rate, only_errors.wilson, only_errors.pass_at_k) == (
        2, None, None, {})
    assert loaded.missing == 2 + 3 + 5


def test_aggregates_never_come_from_disk(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, {("a", "one"): ["pass", "fail"]}, trials=2)
    manifest = json.loads((run_dir / "run.json").read_text())
    manifest["aggregates"] = [{"key": "a::one", "passes": 2, "success_rate": 1.0}]  # a hand-edited figure
    (run_dir / "run.json").write_text(json.dumps(manifest))
    assert load_run(run_dir).cells[0].success_rate == 0.5
    result_file = trial_path(run_dir, "a", "one", 2) / "result.json"
    result_file.write_text(result_file.read_text().replace('"outcome": "fail"', '"outcome": "pass"'))
    with pytest.raises(UsageError, match=r"a/one/2: result.json does not match the digest"):
        load_run(run_dir)
    assert load_run(record_digests(run_dir)).cells[0].success_rate == 1.0  # as if the run had written it


@pytest.mark.parametrize(("damage", "message"), [
    (lambda p: p.write_text("{not json"), "not valid JSON"),
    (lambda p: p.write_text('{"outcome": "maybe"}'), r"not a trial result \(no case_id, variant, trial, reason, case_"),
    (lambda p: p.write_text(p.read_text().replace('"mode"', '"mood"')), r"not a trial result \(no field 'mood'\)"),
    (lambda p: p.write_text(p.read_text().replace('"durations": {', '"durations": {"lunch": 1, ')),
     "not a trial result .*unexpected keyword argument 'lunch'"),
    (lambda p: p.write_text(p.read_text().replace('"outcome": "pass"', '"outcome": "maybe"')), "outcome 'maybe'"),
    (lambda p: p.write_text(p.read_text().replace('"trial": 1', '"trial": 2')), "not its own folder"),
])
def test_a_damaged_result_is_named(tmp_path: Path, damage: object, message: str) -> None:
    run_dir = make_run(tmp_path, {("a", "one"): ["pass"]}, trials=1)
    path = trial_path(run_dir, "a", "one", 1) / "result.json"
    damage(path)  # type: ignore[operator]
    record_digests(run_dir)  # the run itself wrote the bad file
    with pytest.raises(UsageError, match=message) as info:
        load_run(run_dir)
    assert str(path) in str(info.value)


def test_a_result_read_back_equals_the_result_written(tmp_path: Path) -> None:
    """Reading builds the record without its __init__: every field, default or not, as the constructor gives it."""
    full = TrialResult("one", "a", 3, "fail", "fail-to-pass test did not pass: t", "f" * 64, "2026-01-01T00:00:00",
                       Durations(1.0, 2.0, 3.0, 6.0), changed_files=("m.py",), flags=("edited_tests",),
                       restored=({"path": "t.py", "action": "restored", "cause": "edited", "kind": "test"},),
                       cost_usd=0.25, tokens=900, excerpt=Excerpt("E assert 1 == 2", "t.py:3", "t.py::test_x"),
                       grader_tests=GraderTests(1, 1, 0, (WantedTest("t.py::test_x", "failed"),), ("t.py::y",)))
    bare = TrialResult("two", "a", 1, "pass", "graded pass", "f" * 64, "2026-01-01T00:00:00")
    for written in (full, bare):
        read = TrialResult.from_json(written.to_json(), tmp_path / "result.json")
        assert read == written and read.to_json() == written.to_json()
    sparse = json.dumps({"case_id": "two", "variant": "a", "trial": 1, "outcome": "pass", "reason": "graded pass",
                         "case_fingerprint": "f" * 64, "started": "2026-01-01T00:00:00"})
    assert TrialResult.from_json(sparse, tmp_path / "result.json") == bare  # a field left out takes its default


def test_a_cell_counts_its_outcomes_and_names_its_most_common_failure() -> None:
    def trial(number: int, outcome: str, reason: str) -> TrialResult:
        return TrialResult("one", "a", number, outcome, reason, "f" * 64, "2026-01-01T00:00:00")  # type: ignore[arg-type]

    def cell(*trials: tuple[str, str]) -> Aggregate:
        return cell_aggregate("a", "one", [trial(n, o, r) for n, (o, r) in enumerate(trials, 1)], planned=6)

    mixed = cell(("fail", "x"), ("pass", "graded pass"), ("fail", "y"), ("error", "z"), ("fail", "y"))
    assert (mixed.passes, mixed.fails, mixed.errors, mixed.missing, mixed.reason) == (1, 3, 1, 1, "y")
    assert cell(("fail", "x"), ("fail", "y"), ("fail", "y"), ("fail", "x")).reason == "x"  # a tie: the first seen
    assert cell(("pass", "graded pass"), ("error", "z"), ("error", "w"), ("fail", "")).reason == "z"  # no failure says why
    assert cell(("pass", "graded pass")).reason == ""
