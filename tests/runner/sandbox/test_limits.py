"""A command's cgroup: every process left in it is killed when the command ends, and the cgroup is removed at
once, not at a later poll."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from runner.sandbox.limits import Limits, command_cgroup, enforcement
from runner.settings import MiB


def test_a_command_s_cgroup_is_removed_with_every_process_left_in_it() -> None:
    how = enforcement()
    limits = Limits(memory=256 * MiB, processes=40, tmp_size=MiB, workspace=None, patch=MiB)
    with command_cgroup(limits, how) as words:
        if how.memory not in ("cgroup1", "cgroup2"):  # rlimits instead: nothing to join, nothing made
            assert words == []
            return
        groups = [Path(procs).parent for procs in words[4:-1]]  # the cgroup.procs files the shell joins
        assert len(groups) == len(how.cgroups) and all(g.is_dir() for g in groups)
        left = subprocess.Popen([*words, "sh", "-c", "sleep 60 & exec sleep 60"])
        deadline = time.monotonic() + 30
        while len((groups[0] / "cgroup.procs").read_text().split()) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert len((groups[0] / "cgroup.procs").read_text().split()) == 2
        started = time.monotonic()
    removed_after = time.monotonic() - started
    assert left.wait(timeout=5) == -9  # killed by the removal, not by the test
    assert not any(g.exists() for g in groups)
    assert removed_after < 1.0
