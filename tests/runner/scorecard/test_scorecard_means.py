"""A variant's scorecards summarized from result.json: each mean over the trials that know it, each finding counted."""

from __future__ import annotations

from typing import Any

from runner.runs.result import TrialResult
from runner.scorecard.means import MEANS, file_accuracy, findings, scores, variant_scores, variant_scores_json


def _trial(number: int, scorecard: dict[str, Any] | None) -> TrialResult:
    return TrialResult("fix-refund", "baseline", number, "pass", "graded", "f" * 64, "2024-01-01T00:00:00Z",
                       scorecard=scorecard)


CLEAN = {"task_success": 1, "file_accuracy": {"precision": 1.0, "recall": 0.5, "outside_allowed": []},
         "invariant_safety": 1.0, "reviewability": {"score": 0.9}}
BROKEN = {"task_success": 1, "file_accuracy": {"precision": 0.5, "recall": None, "outside_allowed": ["ci.yml"]},
          "invariant_safety": 0.0, "reviewability": {"score": 0.5}, "unsafe": True,
          "test_downgrade": {"downgraded": True}, "test_framework_tampering": {"detected": False},
          "error": "patch not analysed"}


def test_file_accuracy_is_the_f1_and_unknown_without_recall() -> None:
    assert file_accuracy(CLEAN) == round(2 * 1.0 * 0.5 / 1.5, 3)
    assert file_accuracy(BROKEN) is None
    assert file_accuracy({"file_accuracy": {"precision": 0.0, "recall": 0.0}}) == 0.0


def test_scores_and_findings_of_one_scorecard() -> None:
    assert scores(CLEAN) == {"task_success": 1.0, "file_accuracy": 0.667, "invariant_safety": 1.0,
                             "reviewability": 0.9, "file_precision": 1.0, "file_recall": 0.5}
    assert findings(BROKEN) == {"test_downgrades": True, "tampering": False, "unsafe_passes": True,
                                "out_of_bounds": True}
    assert not any(findings(CLEAN).values())


def test_variant_scores_average_what_is_known_and_skip_trials_without_a_scorecard() -> None:
    summary = variant_scores("baseline", [_trial(1, CLEAN), _trial(2, BROKEN), _trial(3, None)])
    assert summary.scored == 2 and summary.not_analysed == 1
    assert summary.means["reviewability"] == 0.7 and summary.known["reviewability"] == 2
    assert summary.means["file_accuracy"] == 0.667 and summary.known["file_accuracy"] == 1
    assert summary.counts == {"test_downgrades": 1, "tampering": 0, "unsafe_passes": 1, "out_of_bounds": 1}
    document = variant_scores_json(summary)
    assert set(document["means"]) == set(MEANS) and document["variant"] == "baseline"
