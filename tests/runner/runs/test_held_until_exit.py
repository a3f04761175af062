"""held_until_exit: the collector paused while a command's runs are read, the records frozen after, and the
collector's state given back even when the read fails."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus.errors import UsageError
from runner.runs.load import held_until_exit, load_run
from tests.testing.trialkit import make_run


@pytest.fixture(autouse=True)
def _collector_restored() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    gc.unfreeze()
    if enabled:
        gc.enable()


def test_the_records_read_are_frozen_and_the_collector_runs_again(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path, {("a", "one"): ["pass", "fail"]}, trials=2)
    gc.unfreeze()
    with held_until_exit():
        assert not gc.isenabled()
        loaded = load_run(run_dir)
    assert gc.isenabled() and gc.get_freeze_count() > 0
    assert not any(loaded.trials[0] is tracked for tracked in gc.get_objects())  # frozen: no pass visits it
    assert loaded.cells[0].passes == 1


def test_a_failed_read_gives_the_collector_back(tmp_path: Path) -> None:
    with pytest.raises(UsageError), held_until_exit():
        load_run(tmp_path / "nowhere")
    assert gc.isenabled()
    gc.disable()
    with held_until_exit():
        pass
    assert not gc.isenabled()  # paused before: still paused
