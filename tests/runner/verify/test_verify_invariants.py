"""`runner verify` runs a case's invariants on the oracle side: an invariant the fix itself breaks makes the case
INVALID (a correct fix could never keep it), one that cannot run makes it an ERROR."""

from __future__ import annotations

from pathlib import Path

from corpus.model import Invariant
from runner.verify.verify import VerifyOptions, verify
from tests.testing.casefactory import build_corpus

ADDS = "python3 -c 'import sys; from calc import add; sys.exit(0 if add(2, 2) == 4 else 1)'"


def test_invariants_the_oracle_keeps_leave_the_case_valid(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path, invariants=(Invariant("adds", ADDS), Invariant("true", "true")))
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert (verdict.verdict, verdict.reason) == ("VALID", "")
    oracle = next(a for a in verdict.attempts if a.side == "oracle")
    baseline = next(a for a in verdict.attempts if a.side == "baseline")
    assert oracle.invariants == (("adds", "pass", 0), ("true", "pass", 0)) and baseline.invariants == ()


def test_an_invariant_the_oracle_breaks_makes_the_case_invalid_and_keeps_its_log(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path, invariants=(Invariant("adds", ADDS), Invariant("subtracts", ADDS.replace(
        "add(2, 2) == 4", "add(2, 2) == 0"))))
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "INVALID"
    assert verdict.reason == "oracle breaks invariant subtracts (exit 1): a correct fix could never keep it"
    assert verdict.logs is not None and (Path(verdict.logs) / "oracle-1" / "invariants.log").is_file()


def test_an_invariant_that_cannot_run_is_an_error(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path, invariants=(Invariant("missing", "no-such-program-here"),))
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "ERROR"
    assert verdict.reason == "oracle: invariant missing could not run (exit 127: not runnable)"
