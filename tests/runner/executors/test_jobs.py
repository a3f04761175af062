"""The executor floor without Ray: jobs run in threads on one node, each folder published whole or not at all,
no job started once the command says stop, and Ctrl-C cancelling what runs while keeping what was published."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from runner.executors.jobs import Node, publish, run_jobs
from runner.executors.local import LocalExecutor
from runner.grading.assets import AssetCache
from runner.sandbox.confine import Confinement


@dataclass(frozen=True, eq=False)
class Note:
    """A job that writes a note into its folder and returns it; with wait, it first waits for the node to be
    cancelled (and is then cancelled itself); with broken, it raises."""

    name: str
    target: Path
    wait: bool = False
    broken: bool = False
    what: str = "note"
    commits: tuple[str, str] = ("a" * 40, "b" * 40)

    def run(self, node: Node, out: Path) -> str | None:
        (out / "note.txt").write_text(self.name)
        if self.broken:
            raise OSError("the disk went away")
        if self.wait:
            node.cancel.wait(30)
            return None
        return self.name

    def failed(self, reason: str, seconds: float, out: Path) -> str:
        (out / "note.txt").write_text(reason)
        return f"error: {reason}"


def node(tmp_path: Path) -> Node:
    return Node(tmp_path, AssetCache(tmp_path, tmp_path / "assets"), Confinement("none"))


def leftovers(root: Path) -> list[str]:
    return sorted(p.name for p in root.iterdir() if p.name.startswith("."))


def test_every_job_publishes_its_folder_whole(tmp_path: Path) -> None:
    jobs = [Note(f"n{i}", tmp_path / "out" / f"n{i}") for i in range(5)]
    ended: list[tuple[str, str | None]] = []
    executor: LocalExecutor[str] = LocalExecutor(node(tmp_path), 2)

    def done(job: Note, value: str | None) -> bool:
        ended.append((job.name, value))
        return True

    run_jobs(executor, jobs, 2, done)
    executor.close()
    assert sorted(ended) == [(f"n{i}", f"n{i}") for i in range(5)]
    assert [(tmp_path / "out" / f"n{i}" / "note.txt").read_text() for i in range(5)] == [f"n{i}" for i in range(5)]
    assert leftovers(tmp_path / "out") == []


def test_a_folder_without_a_value_or_whose_job_broke_is_not_published(tmp_path: Path) -> None:
    target = tmp_path / "out" / "one"
    assert publish(target, lambda out: None) is None
    with pytest.raises(OSError, match="the disk went away"):
        publish(target, lambda out: Note("one", target, broken=True).run(node(tmp_path), out))
    assert not target.exists() and leftovers(tmp_path / "out") == []
    assert publish(target, lambda out: Note("one", target).failed("lost", 1.0, out)) == "error: lost"
    assert (target / "note.txt").read_text() == "lost"


def test_no_job_starts_once_the_command_says_stop(tmp_path: Path) -> None:
    jobs = [Note(f"n{i}", tmp_path / "out" / f"n{i}") for i in range(5)]
    ended: list[str] = []
    executor: LocalExecutor[str] = LocalExecutor(node(tmp_path), 1)

    def done(job: Note, value: str | None) -> bool:
        ended.append(job.name)
        return False  # stop: no job starts any more

    run_jobs(executor, jobs, 1, done)
    executor.close()
    assert ended == ["n0"] and sorted(p.name for p in (tmp_path / "out").iterdir()) == ["n0"]


def test_an_interruption_cancels_the_running_jobs_and_keeps_what_was_published(tmp_path: Path) -> None:
    here = node(tmp_path)
    jobs = [Note("quick", tmp_path / "out" / "quick"), Note("slow", tmp_path / "out" / "slow", wait=True)]
    rescued: list[str] = []
    started = threading.Event()

    def done(job: Note, value: str | None) -> bool:
        started.set()
        raise KeyboardInterrupt

    executor: LocalExecutor[str] = LocalExecutor(here, 2)
    with pytest.raises(KeyboardInterrupt):
        run_jobs(executor, jobs, 2, done, rescued=rescued.append)
    executor.close()
    assert started.is_set() and here.cancel.is_set()
    assert rescued == ["quick"]  # the slow one was cancelled: nothing of it is published
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["quick"]
