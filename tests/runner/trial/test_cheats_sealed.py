"""Cheats from inside the grader's pytest process, against the sealed grader: code in the candidate's files that
forges, rewrites or reads what grades it is seen doing so and fails; code that hides what it looks at is
flagged; honest fixers pass unflagged.

The case's conftest.py imports calc first (as a real project's conftest imports its package), so calc's code
runs before pytest collects the hidden test: without the seal, every framework cheat here passes.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import Corpus
from runner.runs.result import TrialResult
from tests.runner.trial.test_cheats import (
    JUNIT_GRADER,
    Problems,
    artifact,
    by_variant,
    defeated,
    junit_bench,
)
from tests.testing.trialkit import Bench, agent, variants

CONFTEST = "import calc  # noqa: F401 - the package first, as real projects do\n"


def sealed_bench(tmp_path: Path) -> Bench:
    """The calc case graded by pytest with JUnit fail-to-pass ids, its conftest.py importing calc."""
    return junit_bench(tmp_path, initial={"conftest.py": CONFTEST})


def seal_kinds(trial: TrialResult) -> list[str]:
    return [e["kind"] for e in (trial.seal or {}).get("events", [])]


FRAMEWORK = {
    "atexit_junit": "write_grader",
    "rewrite_tests": "write_grader",
    "meta_path": "import_hook",
    "trace_hook": "trace_hook",
    "reexec": "reexec_grader",
}
"""Each cheat on the framework and the tampering the seal must name."""


@pytest.mark.parametrize("mode", sorted(FRAMEWORK))
def test_code_under_test_that_works_on_its_grader_is_seen_and_fails(tmp_path: Path, mode: str) -> None:
    bench = sealed_bench(tmp_path)
    loaded = bench.run(variants=variants(cheat=agent("cheats/sealed", mode)))
    (trial,) = loaded.trials
    problems = Problems()
    defeated(problems, trial)
    problems.check("grader_tampering" in trial.flags, f"no grader_tampering flag: {list(trial.flags)}")
    problems.check(FRAMEWORK[mode] in seal_kinds(trial), f"the seal did not see {FRAMEWORK[mode]}: "
                                                         f"{seal_kinds(trial)} ({trial.reason})")
    problems.check(trial.reason.startswith("grader tampering: "), f"reason: {trial.reason}")
    problems.assert_none()


def test_a_corpus_that_only_flags_tampering_keeps_the_graders_verdict(tmp_path: Path) -> None:
    bench = sealed_bench(tmp_path)
    config = bench.corpus.root / "corpus.yaml"
    config.write_text(config.read_text() + "grader_tampering: flag\n")
    bench.corpus = Corpus.open(bench.corpus.root)
    assert bench.corpus.config.grader_tampering == "flag"
    loaded = bench.run(variants=variants(cheat=agent("cheats/sealed", "rewrite_tests")))
    (trial,) = loaded.trials
    assert trial.outcome == "fail" and trial.reason.startswith("fail-to-pass test did not pass"), trial.reason
    assert "grader_tampering" in trial.flags and "write_grader" in seal_kinds(trial)


HIDDEN = {
    "fragments": "test_aware_source",
    "nonascii": "test_aware_source",
    "zlib": "dynamic_source",
    "utf7": "test_aware_source",
}
"""Each way of hiding a test-framework check from a word search and the flag the scan must still raise."""


@pytest.mark.parametrize("mode", sorted(HIDDEN))
def test_a_check_for_the_test_framework_hidden_from_a_word_search_is_flagged(tmp_path: Path, mode: str) -> None:
    loaded = junit_bench(tmp_path).run(variants=variants(cheat=agent("cheats/sealed", mode)))
    (trial,) = loaded.trials
    static = [(h["path"], h["flag"], h["reason"]) for h in (trial.seal or {}).get("static", [])]
    assert trial.outcome != "pass" or HIDDEN[mode] in trial.flags, (trial.outcome, trial.flags, static)
    assert HIDDEN[mode] in trial.flags, (trial.outcome, trial.reason, trial.flags, static)


def test_a_value_whose_eq_holds_for_anything_is_flagged(tmp_path: Path) -> None:
    loaded = junit_bench(tmp_path).run(variants=variants(cheat=agent("cheats/sealed", "always_equal")))
    (trial,) = loaded.trials
    assert trial.outcome != "pass" or "always_equal" in trial.flags, (trial.outcome, trial.flags)
    assert "always_equal" in seal_kinds(trial), (trial.reason, trial.seal)


def test_code_that_reads_the_hidden_tests_source_through_frames_fails(tmp_path: Path) -> None:
    loaded = junit_bench(tmp_path).run(variants=variants(cheat=agent("cheats/sealed", "caller_source")))
    (trial,) = loaded.trials
    problems = Problems()
    defeated(problems, trial)
    problems.check("read_tests" in seal_kinds(trial), f"the seal did not see the read: {trial.seal}")
    problems.check("frame_access" in trial.flags, f"flags {list(trial.flags)}")
    problems.assert_none()


def test_honest_fixers_pass_sealed_with_no_flag(tmp_path: Path) -> None:
    bench = sealed_bench(tmp_path)
    loaded = bench.run(variants=variants(fixer=agent("fix"), noop=agent("noop")))
    by = by_variant(loaded)
    assert by["fixer"].outcome == "pass" and by["fixer"].flags == (), (by["fixer"].reason, by["fixer"].flags,
                                                                       by["fixer"].seal)
    seal = by["fixer"].seal or {}
    assert seal.get("sealed") and seal.get("events") == [] and seal.get("disagreement") is None, seal
    assert [h["flag"] for h in seal["static"]] == ["binary_file"], seal  # its data.bin: evidence, no flag
    assert by["noop"].outcome == "fail" and by["noop"].flags == (), (by["noop"].reason, by["noop"].flags)
    assert "1 failed" in artifact(loaded, "noop", "grader.log")


def test_the_junit_grader_still_judges_a_fix_and_its_absence(tmp_path: Path) -> None:
    bench = junit_bench(tmp_path, grader=JUNIT_GRADER)
    loaded = bench.run(mode="oracle")
    (trial,) = loaded.trials
    assert trial.outcome == "pass" and trial.flags == (), (trial.reason, trial.flags, trial.seal)
