"""Modes (baseline, oracle, regrade), matrices, and results that do not depend on --jobs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from corpus import Grader
from runner.runs.result import trial_path
from tests.testing.trialkit import Bench, agent, variants


def test_baseline_fails_and_oracle_passes(calc_fast: Bench) -> None:
    baseline = calc_fast.run(mode="baseline", trials=2)
    oracle = calc_fast.run(mode="oracle")
    assert [(t.variant, t.outcome) for t in baseline.trials] == [("baseline", "fail")] * 2
    assert [(t.variant, t.outcome, t.changed_files) for t in oracle.trials] == [("oracle", "pass", ("calc.py",))]
    assert baseline.manifest.config.variants[0].command is None


def test_matrix_results_do_not_depend_on_jobs(calc_fast: Bench) -> None:
    matrix = variants(fixer=agent("fix"), noop=agent("noop"), crash=agent("crash"))
    one = calc_fast.run(trials=3, jobs=1, variants=matrix)
    many = calc_fast.run(trials=3, jobs=6, variants=matrix)

    def facts(run_dir: Path, loaded: object) -> list[tuple[str, str, int, str, tuple[str, ...], bytes]]:
        return [(t.variant, t.case_id, t.trial, t.outcome, t.changed_files,
                 (trial_path(run_dir, t.variant, t.case_id, t.trial) / "candidate.patch").read_bytes())
                for t in loaded.trials]  # type: ignore[attr-defined]

    assert facts(one.directory, one) == facts(many.directory, many)
    assert len(one.trials) == 9 and one.cells == many.cells and one.variants == many.variants
    assert [c.key for c in one.cells] == ["fixer::calc-add", "noop::calc-add", "crash::calc-add"]


def test_regrade_applies_saved_patches_with_todays_grader(calc_fast: Bench) -> None:
    source = calc_fast.run(trials=2, variants=variants(fixer=agent("fix"), noop=agent("noop"),
                                                       crash=agent("crash")))
    again = calc_fast.run(mode="regrade", patch_from=source.directory)
    assert [(t.variant, t.trial, t.outcome) for t in again.trials] == [
        (t.variant, t.trial, t.outcome) for t in source.trials]
    crash = next(t for t in again.trials if t.variant == "crash")
    assert crash.reason.startswith("source trial was an error: agent exited 1")
    fixer = next(t for t in again.trials if t.variant == "fixer")
    assert fixer.regraded_from == {"run_id": source.manifest.run_id, "outcome": "pass", "reason": "grader exited 0"}
    assert fixer.changed_files == ("README.md", "calc.py", "data.bin") and fixer.agent_exit_code == 0
    folder = trial_path(again.directory, "fixer", "calc-add", 1)
    assert (folder / "transcript.log").read_text() == "fixed add()\n"

    # Today's grader is stricter: the same patches are graded again, without an agent.
    stored = calc_fast.corpus.load("calc-add")
    strict = replace(stored.case, grader=Grader(command="exit 1", timeout=60))
    calc_fast.corpus.write(strict, stored.files)
    stricter = calc_fast.run(mode="regrade", patch_from=source.directory, case_ids=("calc-add",), all_cases=False)
    assert {t.outcome for t in stricter.trials if t.variant != "crash"} == {"fail"}
    assert stricter.manifest.config.patch_from == str(source.directory.resolve())
