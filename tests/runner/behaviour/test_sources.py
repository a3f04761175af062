"""A trajectory file the agent leaves is copied into the trial folder as trajectory.json, never through a link out of
the workspace, never a fifo or a directory, never beyond the size limit; the behaviour is read from it first."""

from __future__ import annotations

import json
import os
from pathlib import Path

from runner.behaviour.parse import parse
from runner.behaviour.sources import TRAJECTORY_FILE, copy_trajectory, read_trajectory, source_text
from tests.runner.behaviour.test_trajectories import ATIF


def setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    workspace, folder, outside = tmp_path / "workspace", tmp_path / "trial", tmp_path / "secret"
    for d in (workspace, folder, outside):
        d.mkdir()
    (outside / "key.json").write_text('{"token": "s3cr3t"}')
    return workspace, folder, outside


def test_the_file_is_copied_and_read_before_the_stdout_transcript(tmp_path: Path) -> None:
    workspace, folder, _ = setup(tmp_path)
    (workspace / "out").mkdir()
    (workspace / "out" / "trajectory.json").write_text(json.dumps(ATIF))
    (folder / "transcript.log").write_text("plain text from stdout\n")
    assert copy_trajectory(workspace, "out/trajectory.json", folder) is None
    assert (folder / TRAJECTORY_FILE).read_text() == json.dumps(ATIF)
    record = parse(source_text(folder))
    assert (record.format, record.status, len(record.tool_calls)) == ("atif", "parsed", 4)


def test_without_a_trajectory_the_stdout_transcript_is_read(tmp_path: Path) -> None:
    _, folder, _ = setup(tmp_path)
    assert source_text(folder) == ""
    (folder / "transcript.log").write_text("hello\n")
    assert source_text(folder) == "hello\n"


def test_links_out_of_the_workspace_are_never_followed(tmp_path: Path) -> None:
    workspace, folder, outside = setup(tmp_path)
    (workspace / "t.json").symlink_to(outside / "key.json")
    (workspace / "d").symlink_to(outside)
    assert copy_trajectory(workspace, "t.json", folder) == (
        "t.json: reached through a symbolic link or a file (not followed)")
    assert copy_trajectory(workspace, "d/key.json", folder) == (
        "d/key.json: reached through a symbolic link or a file (not followed)")
    assert not (folder / TRAJECTORY_FILE).exists()


def test_what_is_not_a_small_regular_file_is_refused(tmp_path: Path) -> None:
    workspace, folder, _ = setup(tmp_path)
    os.mkfifo(workspace / "fifo")
    (workspace / "dir").mkdir()
    (workspace / "big.json").write_bytes(b"x" * 101)
    (workspace / "ok.json").write_bytes(b"x" * 100)
    assert read_trajectory(workspace, "fifo") == (None, "fifo: not a regular file")  # and it did not block
    assert read_trajectory(workspace, "dir") == (None, "dir: not a regular file")
    assert read_trajectory(workspace, "missing.json") == (None, "missing.json: the agent left no such file")
    assert read_trajectory(workspace, "big.json", limit=100) == (None, "big.json: larger than 100 bytes")
    assert read_trajectory(workspace, "ok.json", limit=100) == (b"x" * 100, "")
    assert read_trajectory(workspace, "../secret/key.json") == (
        None, "../secret/key.json: the path must stay inside the workspace (no '..', '.' or empty part)")
    assert copy_trajectory(workspace, "big.json", folder, limit=100) == "big.json: larger than 100 bytes"
    assert not (folder / TRAJECTORY_FILE).exists()
