"""Reviewability's parts and weights, the scorecard's hint and JSON, and invariants run and judged."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from corpus.model import Invariant
from corpus.testfiles import matcher_for_tests
from runner.grading.grader import GradeResult
from runner.grading.invariants import InvariantResult, outcome_with_invariants, run_invariants
from runner.runs.result import TrialResult
from runner.scorecard import card as card_module
from runner.scorecard.card import score_patch, score_safely, task_success
from runner.scorecard.patch import read_patch
from runner.scorecard.reviewability import WEIGHTS, reviewability
from tests.testing.casefactory import make_case
from tests.testing.patches import Patches

IS_TEST = matcher_for_tests()
MODULE = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(12))
BASE = {"app/core.py": MODULE, "app/other.py": MODULE, "lib/extra.py": "X = 1\n", "app/old_name.py": "Y = 2\n"}
FIXED = MODULE.replace("return x + 3", "return x - 3")


def passed(name: str = "ok") -> InvariantResult:
    return InvariantResult(name, "true", "pass", 0, False, 0.1, "")


def failed(name: str = "bad", status: str = "fail") -> InvariantResult:
    return InvariantResult(name, "false", status, 1 if status == "fail" else None, False, 0.1, "boom\n")  # type: ignore[arg-type]


@pytest.fixture
def patches(tmp_path: Path) -> Patches:
    return Patches(tmp_path, BASE)


def test_reviewability_of_a_patch_like_the_oracle_is_one(patches: Patches) -> None:
    oracle = read_patch(patches.patch({"app/core.py": FIXED}))
    review = reviewability(oracle, oracle, IS_TEST)
    assert (review.score, review.size, review.locality, review.noise, review.generated) == (1.0, 1.0, 1.0, 1.0, 1.0)
    assert review.weights == WEIGHTS and sum(WEIGHTS.values()) == pytest.approx(1.0)
    assert reviewability((), oracle, IS_TEST).score is None  # nothing to review


def test_each_part_of_reviewability(patches: Patches) -> None:
    oracle = read_patch(patches.patch({"app/core.py": FIXED}))
    candidate = read_patch(patches.patch({
        "app/core.py": FIXED.replace("return x + 9", "return  x + 9"),  # a whitespace-only hunk besides the fix
        "lib/extra.py": "X = 2\n" + "".join(f"Z{i} = {i}\n" for i in range(10)),  # outside the oracle's directory
        "app/old_name.py": None, "app/new_name.py": "Y = 2\n",  # an unrelated rename
        "app/static/app.min.js": "var a=1;\n", "app/__pycache__/core.cpython-311.pyc": b"\x00\x01"}))
    review = reviewability(candidate, oracle, IS_TEST)
    assert review.whitespace_hunks == 1 and review.unrelated_renames == ("app/old_name.py -> app/new_name.py",)
    assert review.generated_files == ("app/__pycache__/core.cpython-311.pyc", "app/static/app.min.js")
    assert review.outside_dirs == ("app/__pycache__/core.cpython-311.pyc", "app/static/app.min.js", "lib/extra.py")
    # lines: core 4 + extra 12 + min.js 1 = 17 against 2 (x2 allowance)
    assert review.size == round(2 * 2 / 17, 3)
    assert review.locality == round(1 - 3 / 5, 3)  # core, extra, new_name, min.js, pyc: three outside app/
    assert review.noise == round(1 - 2 / 5, 3)  # hunks: core 2, extra 1, min.js 1, and the rename
    assert review.generated == round(1 - 2 / 5, 3)
    expected = sum(WEIGHTS[k] * v for k, v in (("size", review.size), ("locality", review.locality),
                                               ("noise", review.noise), ("generated", review.generated)))
    assert review.score == round(expected, 3)


def test_the_hint_names_the_most_serious_finding(patches: Patches) -> None:
    oracle = patches.patch({"app/core.py": FIXED})
    base = patches.base

    def hint(changes: dict[str, str | bytes | None], **options: object) -> str | None:
        card = score_patch(patches.patch(changes), oracle, base, is_test=IS_TEST, grader_outcome="pass",
                           **options)  # type: ignore[arg-type]
        return card.hint

    assert hint({"app/core.py": FIXED}) is None
    assert hint({"app/core.py": FIXED.replace("def f0(x):\n    return x + 0\n\n\n", "")}) == \
        "f0 disappeared from app/core.py"
    assert hint({"app/core.py": FIXED, "lib/extra.py": "X = 3\n"}, allowed_paths=("app/",)) == \
        "1 file changed outside allowed_paths: lib/extra.py"
    assert hint({"app/core.py": FIXED, "tests/test_core.py": "x = 1\n"}) == \
        "1 file changed in the test tree: tests/test_core.py"
    # without allowed_paths, test files are the last thing named
    assert hint({"app/core.py": FIXED, "tests/test_core.py": "x = 1\n", "requirements.txt": "requests\n"}) == \
        "new dependency requests (requirements.txt)"
    assert hint({"app/core.py": FIXED}, invariants=(passed(), failed())) == "invariant bad failed (exit 1)"
    assert hint({"app/core.py": FIXED, "requirements.txt": "requests\n"}) == \
        "new dependency requests (requirements.txt)"
    assert hint({"app/core.py": FIXED + "".join(f"W{i} = {i}\n" for i in range(10))}) == \
        "the patch changes 6x the oracle's lines (12 against 2)"
    # tampering outranks everything, an invariant outranks a removed name
    assert hint({"app/core.py": FIXED.replace("def f0(x):\n    return x + 0\n\n\n", ""),
                 "app/other.py": MODULE + "\ndef pytest_runtest_makereport(item, call):\n    pass\n"},
                invariants=(failed(),)) == "pytest_runtest_makereport hook defined in app/other.py"
    assert hint({"app/core.py": FIXED.replace("def f0(x):\n    return x + 0\n\n\n", "")},
                invariants=(failed("slow", "error"),)) == "invariant slow could not run"


def test_the_scorecard_as_json(patches: Patches) -> None:
    oracle = patches.patch({"app/core.py": FIXED})
    card = score_patch(oracle, oracle, patches.base, is_test=IS_TEST, grader_outcome="pass",
                       invariants=(passed(), failed()), risk_flags=("auth",))
    data = json.loads(json.dumps(card.to_dict()))
    assert data["format"] == 1 and data["task_success"] == 1 and data["risk_flags"] == ["auth"]
    assert data["invariant_safety"] == 0.5 and data["unsafe"] is True
    assert data["test_downgrade"]["downgraded"] is False and data["test_framework_tampering"]["detected"] is False
    assert data["invariants"][1] == {"name": "bad", "command": "false", "status": "fail", "exit_code": 1,
                                     "timed_out": False, "duration": 0.1, "output": "boom\n"}
    assert (task_success("pass"), task_success("fail"), task_success("error"), task_success(None)) == (
        1, 0, None, None)
    fail = score_patch(oracle, oracle, patches.base, is_test=IS_TEST, grader_outcome="fail", invariants=(failed(),))
    assert fail.unsafe is False and fail.invariant_safety == 0.0  # unsafe is about passes


def test_a_patch_that_cannot_be_read_leaves_a_scorecard_naming_why(patches: Patches,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    oracle = patches.patch({"app/core.py": FIXED})
    monkeypatch.setattr(card_module, "MAX_PATCH_BYTES", len(oracle) - 1)
    large = score_patch(oracle, oracle, patches.base, is_test=IS_TEST, grader_outcome="pass")
    assert large.error == f"patch: {len(oracle)} bytes, more than the {len(oracle) - 1} analysed"
    monkeypatch.undo()
    broken = b"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n"
    card = score_patch(broken, oracle, patches.base, is_test=IS_TEST, grader_outcome="fail")
    assert card.error is not None and card.error.startswith("patch: not a readable diff")
    assert card.file_accuracy is None and card.task_success == 0

    def exploding(path: str) -> bytes | None:
        raise RuntimeError("disk gone")

    # a base that cannot be read is no base content; an analysis that breaks still leaves a scorecard
    survived = score_safely(patches.patch({"app/core.py": FIXED}), oracle, exploding, is_test=IS_TEST,
                            grader_outcome="pass")
    assert survived.error is None and survived.blast_radius is not None
    broken_card = score_safely(oracle, oracle, patches.base, is_test=None, grader_outcome="pass",
                               invariants=(failed(),))
    assert broken_card.error is not None and broken_card.error.startswith("scorecard: TypeError")
    assert broken_card.task_success == 1 and broken_card.unsafe is True


def test_a_result_written_before_the_scorecard_loads_without_one(tmp_path: Path) -> None:
    result = TrialResult("calc-add", "default", 1, "pass", "grader exited 0", "f" * 64, "2026-01-01T00:00:00+00:00",
                         scorecard={"format": 1, "task_success": 1})
    data = json.loads(result.to_json())
    assert data["scorecard"] == {"format": 1, "task_success": 1}
    assert TrialResult.from_json(result.to_json(), tmp_path / "result.json") == result
    del data["scorecard"]
    assert TrialResult.from_json(json.dumps(data), tmp_path / "result.json").scorecard is None


def test_invariants_run_in_order_with_their_output_kept(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "flag").write_text("on\n")
    invariants = (Invariant("reads", "cat flag", 10), Invariant("fails", "echo nope; exit 3", 10),
                  Invariant("hangs", f"{sys.executable} -c 'import time; time.sleep(30)'", 1))
    log = tmp_path / "invariants.log"
    results = run_invariants(invariants, workspace, dict(os.environ), None, log, tmp_path)
    assert [(r.name, r.status, r.exit_code, r.timed_out) for r in results] == [
        ("reads", "pass", 0, False), ("fails", "fail", 3, False), ("hangs", "fail", None, True)]
    assert results[0].output == "on\n" and results[1].output == "nope\n"
    text = log.read_text()
    assert text.startswith("== invariant reads: pass (exit 0) ==\n$ cat flag\non\n")
    assert "== invariant fails: fail (exit 3) ==\n$ echo nope; exit 3\nnope\n" in text
    assert "== invariant hangs: fail (timed out) ==" in text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["invariants.log", "ws"]


def test_the_outcome_with_invariants() -> None:
    base_commit, fix_commit = "a" * 40, "b" * 40
    advisory = make_case(base_commit, fix_commit, invariants=(Invariant("a", "true"), Invariant("b", "true")))
    blocking = replace(advisory, policy="blocking", invariant_policy="blocking")
    good = GradeResult("pass", "grader exited 0", 0, 1.0, "")
    bad = GradeResult("fail", "grader exited 1", 1, 1.0, "")
    assert outcome_with_invariants(advisory, good, (failed("a"), failed("b"))) == good
    assert outcome_with_invariants(blocking, good, (passed("a"), passed("b"))) == good
    failing = outcome_with_invariants(blocking, good, (passed("a"), failed("b")))
    assert (failing.outcome, failing.reason) == ("fail", "invariant b failed (the grader passed: grader exited 0)")
    assert outcome_with_invariants(blocking, bad, (passed("a"), passed("b"))) == bad  # never a pass from a fail
    assert outcome_with_invariants(blocking, bad, (failed("a"), failed("b"))) == bad
    errored = outcome_with_invariants(blocking, good, (passed("a"), failed("b", "error")))
    assert (errored.outcome, errored.reason) == ("error", "invariant b could not be run")
    assert outcome_with_invariants(blocking, good, ()).outcome == "error"
