"""The order verify's attempts start in: a free slot takes another case's attempt while one of a case's attempts
builds its environment, instead of waiting on that build."""

from __future__ import annotations

import threading
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
