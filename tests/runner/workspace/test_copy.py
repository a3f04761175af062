"""copy_workspace: every workspace of a trial is a byte copy of a pristine checkout (or of the post-setup
workspace), links never followed, modes and times kept, so the copy's index needs no refresh."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import pytest

from runner.workspace.workspace import build_template, copy_workspace, pristine_workspace
from tests.testing.casefactory import build_repo

PAST_NS = 1_600_000_000_123_456_789


def entries(root: Path) -> dict[str, tuple[object, ...]]:
    """Every path under root (root included) with its kind, permission bits, mtime and content or link target."""
    found: dict[str, tuple[object, ...]] = {}
    for directory, dirs, files in os.walk(root):
        for name in ["", *dirs, *files]:
            path = Path(directory, name) if name else Path(directory)
            if not name and path != root:
                continue
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                payload: object = ("link", os.readlink(path))
            elif stat.S_ISDIR(info.st_mode):
                payload = "dir"
            else:
                payload = path.read_bytes()
            found[str(path.relative_to(root))] = (payload, stat.S_IMODE(info.st_mode), info.st_mtime_ns)
    return found


def test_a_copy_keeps_bytes_modes_times_and_links_unfollowed(tmp_path: Path) -> None:
    source, outside = tmp_path / "source", tmp_path / "outside"
    (source / "pkg" / "deep").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("not to be copied")
    (source / "pkg" / "module.py").write_text("x = 1\n")
    (source / "pkg" / "deep" / "data.bin").write_bytes(bytes(range(256)) * 4096)  # 1 MiB, several chunks
    (source / "empty").write_bytes(b"")
    (source / "run.sh").write_text("#!/bin/sh\n")
    (source / "run.sh").chmod(0o755)
    (source / "frozen.txt").write_text("read only\n")
    (source / "frozen.txt").chmod(0o444)
    (source / "link-to-module").symlink_to("pkg/module.py")
    (source / "dangling").symlink_to("no/such/file")
    (source / "escape").symlink_to(outside)
    (source / "pkg" / "deep").chmod(0o750)
    for path in [*source.rglob("*"), source]:
        os.utime(path, ns=(PAST_NS, PAST_NS + len(str(path))), follow_symlinks=False)

    copied = copy_workspace(source, tmp_path / "copy")

    assert copied == tmp_path / "copy"
    assert entries(copied) == entries(source)
    assert not (copied / "escape" / "secret.txt").is_symlink() and (copied / "escape").is_symlink()
    (copied / "pkg" / "module.py").write_text("changed\n")  # a copy, not a link to the source's file
    assert (source / "pkg" / "module.py").read_text() == "x = 1\n"


def test_a_copied_checkout_needs_no_refresh(tmp_path: Path) -> None:
    repo, base, _ = build_repo(tmp_path / "repo")
    pristine = pristine_workspace(build_template(repo.path, base, tmp_path / "template"), tmp_path / "pristine")
    index_before = (pristine / ".git" / "index").read_bytes()

    workspace = copy_workspace(pristine, tmp_path / "ws")

    diff = subprocess.run(["git", "diff-files", "--name-only"], cwd=workspace, capture_output=True, text=True,
                          check=True)
    assert diff.stdout == ""  # every entry clean on the stat data alone: no file re-read, none reported changed
    assert (workspace / ".git" / "index").read_bytes() == index_before


def test_a_special_file_or_an_existing_destination_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (source / "file").write_text("x")
    (tmp_path / "taken").mkdir()
    with pytest.raises(FileExistsError):
        copy_workspace(source, tmp_path / "taken")
    os.mkfifo(source / "pipe")
    with pytest.raises(OSError, match="pipe: not a file, link or directory"):
        copy_workspace(source, tmp_path / "copy")
