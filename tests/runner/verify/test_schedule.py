"""The order verify's attempts start in: a free slot takes another case's attempt while one of a case's attempts
builds its environment, instead of waiting on that build."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from corpus import Setup
from runner.settings import Settings
from runner.verify.progress import Step
from runner.verify.schedule import BuildersFirst
from runner.verify.verify import VerifyOptions, verify
from tests.testing.trialkit import two_cases


def test_a_building_group_waits_while_another_group_can_start() -> None:
    order = BuildersFirst([("a", "a1"), ("a", "a2"), ("a", "a3"), ("b", "b1"), ("b", "b2")])
    assert [next(order), next(order)] == ["a1", "b1"]  # a1 builds a's entry: b1 goes before a2
    order.ready("b1")  # b1 is grading: b's entry is there
    assert next(order) == "b2"
    assert next(order) == "a2"  # every waiting job's group is building: it starts anyway, and waits
    order.ended("a1")
    assert next(order) == "a3"
    assert next(order, None) is None


def test_a_ready_group_keeps_the_given_order() -> None:
    order = BuildersFirst([("a", 1), ("a", 2), ("b", 3)])
    assert next(order) == 1
    order.ready(1)
    assert list(order) == [2, 3]


def test_a_builder_that_ended_without_its_environment_lets_the_next_one_build() -> None:
    order = BuildersFirst([("a", 1), ("a", 2), ("a", 3), ("b", 4)])
    assert [next(order), next(order)] == [1, 4]
    order.ended(1)  # its environment failed: the group is not building any more
    assert [next(order), next(order)] == [2, 3]


def test_verify_builds_two_cases_at_once_before_either_case_s_other_attempts(tmp_path: Path) -> None:
    """Two cases, two jobs, a cold cache whose builds take a second: the two attempts that start first are the
    two cases' first ones, where case by case the second slot would have waited on the first case's build."""
    bench = two_cases(tmp_path, setup=Setup(command="sleep 1"))
    started: list[str] = []
    lock = threading.Lock()

    def on_step(step: Step) -> None:
        if step.step == "environment":
            with lock:
                started.append(f"{step.case_id} {step.side} #{step.repeat}")

    options = VerifyOptions(all_cases=True, scratch_root=tmp_path / "scratch",
                            settings=Settings(jobs=2, env_cache=tmp_path / "envs"))
    report = verify(bench.corpus, options, on_step=on_step)
    assert [(v.verdict, v.reason) for v in report.verdicts] == [("VALID", "")] * 2
    assert sorted(started[:2]) == ["calc-add baseline #1", "calc-add-again baseline #1"]
    assert len(started) == 4


def test_a_group_claimed_from_outside_is_building_until_released() -> None:
    order = BuildersFirst([("a", "a1"), ("a", "a2"), ("b", "b1")])
    assert order.claim("b") and not order.claim("b")  # the ahead builder takes b's build
    assert next(order) == "a1"
    assert not order.claim("a")  # a's attempt started: it builds its own
    assert next(order) == "a2"  # every waiting group is building: the first starts anyway, and waits
    order.release("b")
    assert next(order) == "b1"
    assert not order.claim("b")  # built, by whoever


def test_the_next_case_s_environment_is_built_ahead_while_one_job_grades(tmp_path: Path) -> None:
    """One job, two cases with environments of their own: while the job sets up and grades the first case, the
    other's entry is built beside it, so of the two cases' first attempts only one builds in its slot."""
    bench = two_cases(tmp_path, setup=Setup(command="sleep 1"))
    stored = bench.corpus.load("calc-add-again")
    bench.corpus.write(replace(stored.case, setup=Setup(command="sleep 1 && echo other")), stored.files)
    options = VerifyOptions(all_cases=True, scratch_root=tmp_path / "scratch",
                            settings=Settings(jobs=1, env_cache=tmp_path / "envs"))
    report = verify(bench.corpus, options)
    assert [(v.verdict, v.reason) for v in report.verdicts] == [("VALID", "")] * 2
    caches = [a.env_cache for v in report.verdicts for a in v.attempts]
    assert sorted(caches) == ["hit", "hit", "hit", "miss"], caches
    assert len(list((tmp_path / "envs" / "entries").iterdir())) == 2
