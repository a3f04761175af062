"""The environment cache's trash: a failed or interrupted build leaves the entries in one rename, before its lock is
let go; the trash is emptied in the background by the next opening (of any number of cache objects at once) and
at once by prune, and nothing in it is ever taken for an entry."""

from __future__ import annotations

import os
import shutil
import threading
from pathlib import Path

import pytest

from corpus.errors import WorkspaceError
from corpus.fsutil import tree_bytes
from runner.envs.cache import Built, EnvCache, lock_entry
from runner.envs.key import EnvKey
from runner.envs.manage import list_entries, prune_entries
from runner.envs.overlay import Overlay
from runner.envs.trash import TRASH_DIR, empty
from tests.runner.envs.test_cache import Bases, builds, prep

KEY = EnvKey(python=None, interpreter=None, command="make-env", dependencies="none", dependency_files=(),
             base_tree="tree")


def half_built(directory: Path, files: int = 50) -> None:
    """What a build killed half-way leaves: an environment's files, no `complete` marker."""
    lib = directory / "env" / "lib" / "site-packages" / "pkg"
    lib.mkdir(parents=True)
    for n in range(files):
        (lib / f"mod{n}.py").write_text("x = 1\n" * n)
    (directory / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")


def trash_items(root: Path) -> list[Path]:
    return sorted((root / TRASH_DIR).iterdir())


def test_an_interrupted_build_is_in_the_trash_its_lock_free_and_the_next_opening_empties_it(tmp_path: Path) -> None:
    cache = EnvCache(tmp_path / "envs")
    cancel = threading.Event()

    def interrupted(directory: Path) -> Built:
        half_built(directory)
        cancel.set()  # Ctrl-C: the command is stopping, its setup killed
        raise WorkspaceError("setup failed (exit -9)")

    with pytest.raises(WorkspaceError):
        cache.acquire(KEY, "one", interrupted, cancel)
    assert not any((cache.root / "entries").iterdir())  # nothing half-built at the entry's path
    [item] = trash_items(cache.root)
    assert item.name.startswith(f"{KEY.digest}.{os.getpid()}.") and (item / "env" / "pyvenv.cfg").is_file()
    cache.trash.wait(60)
    assert trash_items(cache.root) == [item]  # a stopping command leaves it to the next opening
    fd = lock_entry(cache.root, KEY.digest, blocking=False)  # let go: another process can build at once
    assert fd is not None
    os.close(fd)
    cache.close()
    later = EnvCache(tmp_path / "envs")
    later.trash.wait(60)
    assert trash_items(later.root) == [] and list_entries(later.root) == []


def test_a_failed_build_goes_to_the_trash_and_this_cache_empties_it_while_it_runs(tmp_path: Path) -> None:
    cache = EnvCache(tmp_path / "envs")

    def failing(directory: Path) -> Built:
        half_built(directory)
        raise WorkspaceError("setup failed (exit 3): no such package")

    with pytest.raises(WorkspaceError, match="no such package"):
        cache.acquire(KEY, "one", failing)
    cache.trash.wait(60)
    assert trash_items(cache.root) == [] and not any((cache.root / "entries").iterdir())

    def working(directory: Path) -> Built:
        (directory / "overlay").mkdir()
        return Built(Overlay((), (), ()), None)

    entry, hit = cache.acquire(KEY, "one", working)  # the next use retries
    assert not hit and (entry.directory / "complete").is_file()


def test_a_build_that_failed_before_making_anything_leaves_no_trash(tmp_path: Path) -> None:
    cache = EnvCache(tmp_path / "envs")

    def refused(directory: Path) -> Built:
        raise WorkspaceError("interrupted before setup")

    with pytest.raises(WorkspaceError):
        cache.acquire(KEY, "one", refused, threading.Event())
    assert trash_items(cache.root) == [] and not any((cache.root / "entries").iterdir())


def test_what_a_crash_left_in_the_trash_is_never_an_entry_and_the_next_opening_removes_it(tmp_path: Path) -> None:
    """A process that died between the rename and the removal leaves a whole entry in the trash, `complete` marker
    and all: it is never listed nor used, and whoever opens the cache next removes it."""
    bases = Bases(tmp_path / "repo")
    first = EnvCache(tmp_path / "envs")
    prep(tmp_path, bases, bases.b1, first, "one")
    first.close()
    [entry] = (tmp_path / "envs" / "entries").iterdir()
    os.rename(entry, tmp_path / "envs" / TRASH_DIR / f"{entry.name}.1.deadbeef")
    assert list_entries(tmp_path / "envs") == []
    cache = EnvCache(tmp_path / "envs")
    again = prep(tmp_path, bases, bases.b1, cache, "one", name="again")
    assert again.env_cache == "miss" and builds(cache) == 2
    cache.trash.wait(60)
    assert trash_items(cache.root) == [] and [e.key for e in list_entries(cache.root)] == [entry.name]


def test_a_crashed_builds_leftovers_go_to_the_trash_when_the_key_is_built_again(tmp_path: Path) -> None:
    bases = Bases(tmp_path / "repo")
    prep(tmp_path, bases, bases.b1, EnvCache(tmp_path / "envs"), "one")
    [directory] = (tmp_path / "envs" / "entries").iterdir()
    (directory / "complete").unlink()  # as a build killed before its last write leaves it
    (directory / "overlay" / "junk").write_text("left by the crash\n")
    cache = EnvCache(tmp_path / "envs")
    assert prep(tmp_path, bases, bases.b1, cache, "one", name="rebuilt").env_cache == "miss"
    assert not (directory / "overlay" / "junk").exists() and (directory / "complete").is_file()
    cache.trash.wait(60)
    assert trash_items(cache.root) == []


def test_cache_objects_opened_together_empty_one_trash_together(tmp_path: Path) -> None:
    """Two processes (here two cache objects, each with its own emptying thread) opening one cache at once each
    remove what they find, skipping what the other removed first."""
    root = EnvCache(tmp_path / "envs").root
    for n in range(12):
        half_built(root / TRASH_DIR / f"entry{n}.1.{n:08x}", files=200)
    caches = [EnvCache(root) for _ in range(2)]
    for cache in caches:
        cache.trash.wait(120)
    assert trash_items(root) == []


def test_a_stopped_emptying_leaves_the_rest_for_later(tmp_path: Path) -> None:
    trash = tmp_path / "trash"
    for n in range(3):
        half_built(trash / f"entry{n}")
    stop = threading.Event()
    stop.set()
    assert empty(trash, stop) == 0 and len(list(trash.iterdir())) == 3
    freed = empty(trash)
    assert list(trash.iterdir()) == [] and freed == 3 * (sum(len("x = 1\n" * n) for n in range(50)) + 16)


def test_prune_goes_through_the_trash_and_empties_it(tmp_path: Path) -> None:
    bases = Bases(tmp_path / "repo")
    cache = EnvCache(tmp_path / "envs")
    prep(tmp_path, bases, bases.b1, cache, "one")
    cache.close()
    [entry] = list_entries(cache.root)
    leftover = cache.root / TRASH_DIR / "old.1.00000000"
    half_built(leftover, files=3)
    on_disk = tree_bytes(cache.root / "entries" / entry.key) + tree_bytes(leftover)
    result = prune_entries(cache.root, everything=True)
    assert result.removed == (entry.key,) and result.freed == on_disk
    assert trash_items(cache.root) == [] and not any((cache.root / "entries").iterdir())


def test_a_cache_from_before_the_trash_gets_one(tmp_path: Path) -> None:
    root = EnvCache(tmp_path / "envs").root
    shutil.rmtree(root / TRASH_DIR)
    (root / "entries" / "half").mkdir()
    assert prune_entries(root, older_than=1).removed == ("half",) and trash_items(root) == []
    assert EnvCache(root).trash.directory.is_dir()
