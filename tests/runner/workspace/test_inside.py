"""Writes, removals and reads inside a workspace never follow a symbolic link out of it."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from corpus.errors import UsageError
from runner.workspace.inside import exists_inside, read_inside, remove_inside, write_inside


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace and, beside it, a directory the agent would like the harness to write into or delete."""
    workspace, outside = tmp_path / "ws", tmp_path / "outside"
    workspace.mkdir()
    outside.mkdir()
    (outside / "precious.txt").write_text("keep me")
    return workspace, outside


def test_a_linked_directory_is_replaced_by_a_real_one_before_writing(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    (workspace / "tests").symlink_to(outside)
    write_inside(workspace, "tests/test_x.py", b"assert True\n")
    assert not (workspace / "tests").is_symlink() and (workspace / "tests" / "test_x.py").read_bytes()
    assert sorted(p.name for p in outside.iterdir()) == ["precious.txt"]


def test_a_linked_file_is_replaced_not_written_through(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    (workspace / "conftest.py").symlink_to(outside / "precious.txt")
    write_inside(workspace, "conftest.py", b"# fix version\n")
    assert (outside / "precious.txt").read_text() == "keep me"
    assert not (workspace / "conftest.py").is_symlink()
    assert (workspace / "conftest.py").read_bytes() == b"# fix version\n"


def test_a_directory_where_a_file_goes_is_replaced(tree: tuple[Path, Path]) -> None:
    workspace, _ = tree
    (workspace / "pytest.ini" / "deep").mkdir(parents=True)
    write_inside(workspace, "pytest.ini", b"[pytest]\n")
    assert (workspace / "pytest.ini").read_bytes() == b"[pytest]\n"


def test_removal_through_a_link_removes_the_link_only(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    (workspace / "tests").symlink_to(outside)
    assert remove_inside(workspace, "tests/precious.txt") is True
    assert not os.path.lexists(workspace / "tests") and (outside / "precious.txt").read_text() == "keep me"
    (workspace / ".hindcast").symlink_to(outside)
    assert remove_inside(workspace, ".hindcast") is True
    assert (outside / "precious.txt").exists()
    assert remove_inside(workspace, "nothing/here") is False


def test_reads_see_nothing_behind_a_link_or_a_fifo(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    (workspace / "tox.ini").symlink_to(outside / "precious.txt")
    (workspace / "cfg").symlink_to(outside)
    os.mkfifo(workspace / "setup.cfg")
    (workspace / "real.ini").write_bytes(b"x")
    assert read_inside(workspace, "tox.ini") is None
    assert read_inside(workspace, "cfg/precious.txt") is None
    assert read_inside(workspace, "setup.cfg") is None  # returns at once: a fifo is not read
    assert read_inside(workspace, "real.ini") == b"x"
    assert read_inside(workspace, "missing/file") is None


@pytest.mark.parametrize("bad", ["../outside/precious.txt", "/etc/passwd", "a/./b"])
def test_paths_that_step_out_are_refused(tree: tuple[Path, Path], bad: str) -> None:
    workspace, _ = tree
    with pytest.raises(UsageError):
        write_inside(workspace, bad, b"x")


def test_existence_is_judged_without_looking_behind_a_link(tree: tuple[Path, Path]) -> None:
    workspace, outside = tree
    (workspace / "tests").symlink_to(outside)
    (workspace / "file").write_text("x")
    (workspace / "real").mkdir()
    (workspace / "real" / "conftest.py").write_text("x")
    assert exists_inside(workspace, "tests/anything.py")  # the link stands in the way, whatever lies behind it
    assert exists_inside(workspace, "real/conftest.py") and exists_inside(workspace, "tests")
    assert not exists_inside(workspace, "file/below") and not exists_inside(workspace, "real/missing.py")
