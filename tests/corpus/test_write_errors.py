"""A failed write is one WriteError naming the path, and leaves nothing half-written; the CLI edge shows any
OSError as one line."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

import click
import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode, HindcastError, WriteError
from corpus.fsutil import atomic_write_text, hindcast_temp, publish_directory, undo_new
from tests.testing.fulldisk import FILLER, contents, full_disk


def test_atomic_write_on_a_full_disk_keeps_the_old_file(tmp_path: Path) -> None:
    with full_disk(tmp_path / "disk", free_pages=1) as disk:
        target = disk / "state.yaml"
        atomic_write_text(target, "old\n")
        with pytest.raises(WriteError) as caught:
            atomic_write_text(target, "new\n")
        assert str(caught.value) == f"cannot write {target}: No space left on device"
        assert caught.value.errno == errno.ENOSPC and isinstance(caught.value, OSError | HindcastError)
        assert target.read_text() == "old\n" and contents(disk) == [FILLER, "state.yaml"]


def test_publish_directory_leaves_nothing_when_filling_fails(tmp_path: Path) -> None:
    with full_disk(tmp_path / "disk") as disk:
        with pytest.raises(WriteError, match=f"^cannot write {disk}/new/run: No space left on device$"):
            publish_directory(disk / "new", "run", lambda staged: atomic_write_text(staged / "run.json", "{}"))
        assert contents(disk) == [FILLER]


def test_undo_new_removes_only_what_was_made(tmp_path: Path) -> None:
    fresh, empty, full = tmp_path / "fresh", tmp_path / "empty", tmp_path / "full"
    empty.mkdir()
    full.mkdir()
    (full / "kept").write_text("x")
    undos = [undo_new(fresh), undo_new(empty), undo_new(full)]
    for path in (fresh, empty, full):
        (path / "made").mkdir(parents=True)
        (path / "made" / "file").write_text("y")
    for undo in undos:
        undo()
    assert not fresh.exists() and list(empty.iterdir()) == []
    assert sorted(p.name for p in full.iterdir()) == ["kept", "made"]


def test_an_unmapped_os_error_is_one_line_at_the_cli_edge(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    @click.group()
    def group() -> None:
        """A tool."""

    @group.command()
    def read() -> None:
        """Reads a directory as a file."""
        Path(tmp_path).read_text()

    assert run_cli(group, "tool", ["read"]) == ExitCode.FAILED
    assert capsys.readouterr().err == f"tool: error: {tmp_path}: Is a directory\n"


def test_the_private_temp_dir_is_the_users_own_and_a_planted_link_is_refused(tmp_path: Path) -> None:
    made = hindcast_temp()
    assert made.parent == Path(tempfile.gettempdir()) and stat.S_IMODE(made.stat().st_mode) == 0o700
    made.chmod(0o755)
    assert hindcast_temp() == made and stat.S_IMODE(made.stat().st_mode) == 0o700
    made.rmdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", made)
    with pytest.raises(WriteError, match=rf"cannot write {made}: exists and is not a directory of this user's own"):
        hindcast_temp()
