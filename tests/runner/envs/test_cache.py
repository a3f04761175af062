"""The environment cache: one build per key shared across cases and cache objects, a new key for new dependency
files, failed and half-built entries rebuilt, concurrent builds of one key waiting for one another."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from corpus import CaseFiles, Corpus, Grader, Setup
from corpus.errors import UsageError, WorkspaceError
from runner.envs import overlay
from runner.envs.cache import EnvCache
from runner.envs.manage import list_entries
from runner.sandbox.confine import Confinement
from runner.workspace.prepare import Prepared, prepare
from tests.testing.casefactory import CALC_BUGGY, CALC_FIXED, TEST_V1, TEST_V2, make_case, oracle_patch
from tests.testing.gitrepo import GitRepo, git_init
from tests.testing.trialkit import FAST_GRADER

COUNT = 'echo built >> "$UV_CACHE_DIR/builds"'
"""Counts builds in the download cache (writable to setup, outside the workspace)."""
SETUP = f"{COUNT} && mkdir -p gen && echo made > gen/out.txt && echo changed >> README.md && rm -f notes.txt"
CONF = Confinement()


class Bases:
    """A repository with three bases: b1 and b2 differ in source only, b3 changes uv.lock; then the fix."""

    def __init__(self, path: Path) -> None:
        self.repo: GitRepo = git_init(path)
        files = {"calc.py": CALC_BUGGY, "test_calc.py": TEST_V1, "README.md": "calc\n", "notes.txt": "n\n",
                 "uv.lock": "version = 1\n"}
        self.b1 = self.repo.commit(files, "Base one")
        self.b2 = self.repo.commit({"calc.py": CALC_BUGGY + "# a comment\n"}, "Base two: source only")
        self.b3 = self.repo.commit({"uv.lock": "version = 2\n"}, "Base three: the lockfile changes")
        self.fix = self.repo.commit({"calc.py": CALC_FIXED, "test_calc.py": TEST_V2}, "Fix add")


def builds(cache: EnvCache) -> int:
    path = cache.root / "downloads" / "uv" / "builds"
    return len(path.read_text().splitlines()) if path.exists() else 0


def prep(tmp_path: Path, bases: Bases, base: str, cache: EnvCache, case_id: str, command: str = SETUP,
         name: str | None = None) -> Prepared:
    scratch = tmp_path / "scratch" / (name or case_id)
    scratch.mkdir(parents=True)
    case = make_case(base, bases.fix, id=case_id, setup=Setup(command=command))
    return prepare(case, bases.repo.path, scratch, confinement=CONF, env_cache=cache)


def test_a_second_case_with_the_same_key_reuses_the_build_and_gets_the_overlay(tmp_path: Path) -> None:
    bases = Bases(tmp_path / "repo")
    first = prep(tmp_path, bases, bases.b1, EnvCache(tmp_path / "envs"), "one")
    assert first.env_cache == "miss" and first.setup is not None and first.setup_duration is not None
    later = EnvCache(tmp_path / "envs")  # another run: a new cache object over the same directory
    second = prep(tmp_path, bases, bases.b2, later, "two")
    assert second.env_cache == "hit" and second.setup is None and builds(later) == 1
    workspace = second.workspace
    assert (workspace / "gen" / "out.txt").read_text() == "made\n"
    assert (workspace / "README.md").read_text() == "calc\nchanged\n" and not (workspace / "notes.txt").exists()
    assert (workspace / "calc.py").read_text() == CALC_BUGGY + "# a comment\n"  # its own base, not the first's
    (workspace / "gen" / "out.txt").write_text("tampered\n")  # a copy, never the stored file
    third = prep(tmp_path, bases, bases.b1, later, "one", name="one-again")
    assert (third.workspace / "gen" / "out.txt").read_text() == "made\n"
    [entry] = list_entries(later.root)
    assert entry.cases == ("one", "two") and entry.command == SETUP and entry.size > 0
    assert entry.meta["parts"]["dependency_files"] == ["uv.lock"] and entry.meta["parts"]["python"] is None


def test_a_changed_lockfile_builds_a_new_entry(tmp_path: Path) -> None:
    bases = Bases(tmp_path / "repo")
    cache = EnvCache(tmp_path / "envs")
    assert prep(tmp_path, bases, bases.b1, cache, "one").env_cache == "miss"
    assert prep(tmp_path, bases, bases.b3, cache, "three").env_cache == "miss"
    assert prep(tmp_path, bases, bases.b2, cache, "two").env_cache == "hit"
    assert builds(cache) == 2
    entries = list_entries(cache.root)
    assert sorted(e.cases for e in entries) == [("one", "two"), ("three",)]
    assert all(e.meta["parts"]["dependency_files"] == ["uv.lock"] for e in entries)


def test_a_failed_build_is_not_cached_and_the_next_use_retries(tmp_path: Path) -> None:
    bases = Bases(tmp_path / "repo")
    cache = EnvCache(tmp_path / "envs")
    flaky = (f'{COUNT}; if [ -f "$UV_CACHE_DIR/tried" ]; then echo ok > made.txt; '
             'else touch "$UV_CACHE_DIR/tried"; echo first try fails; exit 3; fi')
    with pytest.raises(WorkspaceError, match=r"setup failed \(exit 3\): first try fails"):
        prep(tmp_path, bases, bases.b1, cache, "one", command=flaky)
    assert list_entries(cache.root) == [] and not any((cache.root / "entries").iterdir())
    again = prep(tmp_path, bases, bases.b1, cache, "one", command=flaky, name="retry")
    assert again.env_cache == "miss" and (again.workspace / "made.txt").read_text() == "ok\n"
    assert builds(cache) == 2 and len(list_entries(cache.root)) == 1


def test_a_half_built_entry_is_removed_and_rebuilt(tmp_path: Path) -> None:
    bases = Bases(tmp_path / "repo")
    prep(tmp_path, bases, bases.b1, EnvCache(tmp_path / "envs"), "one")
    [directory] = (tmp_path / "envs" / "entries").iterdir()
    (directory / "complete").unlink()  # as a build killed before its last write leaves it
    (directory / "overlay" / "junk").write_text("left by the crash\n")
    assert list_entries(tmp_path / "envs") == []
    cache = EnvCache(tmp_path / "envs")
    rebuilt = prep(tmp_path, bases, bases.b1, cache, "one", name="rebuilt")
    assert rebuilt.env_cache == "miss" and builds(cache) == 2
    assert not (directory / "overlay" / "junk").exists() and (directory / "complete").is_file()


def test_threads_building_one_key_wait_for_one_build(tmp_path: Path) -> None:
    bases = Bases(tmp_path / "repo")
    cache = EnvCache(tmp_path / "envs")
    results: list[Prepared] = []
    slow = f"sleep 1 && {SETUP}"
    threads = [threading.Thread(target=lambda n=n: results.append(
        prep(tmp_path, bases, bases.b1, cache, "one", command=slow, name=f"t{n}"))) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.env_cache for r in results) == ["hit", "hit", "miss"] and builds(cache) == 1
    assert all((r.workspace / "gen" / "out.txt").read_text() == "made\n" for r in results)


def test_two_verify_processes_build_one_key_once(tmp_path: Path) -> None:
    bases = Bases(tmp_path / "repo")
    corpus = Corpus.init(tmp_path / "evals", "calc", repo="../repo")
    case = make_case(bases.b1, bases.fix, setup=Setup(command=f"sleep 2 && {SETUP}"),
                     grader=Grader(command=FAST_GRADER, timeout=60))
    corpus.write(case, CaseFiles.of(oracle_patch(bases.repo, bases.b1, bases.fix, "calc.py"),
                                    {"test_calc.py": TEST_V2.encode()}))
    code = "import sys; from runner.cli import main; sys.argv[0] = 'runner'; main()"
    argv = [sys.executable, "-c", code, "verify", "--corpus", str(corpus.root), "--env-cache", str(tmp_path / "envs"),
            "--json"]
    procs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outputs = [p.communicate(timeout=300) for p in procs]
    for proc, (out, err) in zip(procs, outputs, strict=False):
        assert proc.returncode == 0, err.decode()
        assert json.loads(out)["verdicts"][0]["verdict"] == "VALID"
    counter = tmp_path / "envs" / "downloads" / "uv" / "builds"
    assert counter.read_text() == "built\n"
    [entry] = list_entries(tmp_path / "envs")
    assert entry.cases == ("calc-add",)


def test_without_a_sandbox_the_cache_is_refused(tmp_path: Path) -> None:
    """Unsandboxed, each workspace has a path of its own, which a cached environment would not point at."""
    bases = Bases(tmp_path / "repo")
    cache = EnvCache(tmp_path / "envs")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    case = make_case(bases.b1, bases.fix, setup=Setup(command=SETUP.replace('"$UV_CACHE_DIR/builds"',
                                                                             shlex.quote(str(tmp_path / "n")))))
    with pytest.raises(UsageError, match=r"^--env-cache with --sandbox none: .*; drop one of them$"):
        prepare(case, bases.repo.path, scratch, confinement=Confinement("none"), env_cache=cache)
    assert list_entries(cache.root) == [] and not (tmp_path / "n").exists()  # setup never ran
    prepared = prepare(case, bases.repo.path, scratch, confinement=Confinement("none"))
    assert prepared.env_cache == "off" and (prepared.workspace / "gen" / "out.txt").is_file()


def test_a_cache_directory_that_cannot_be_used_is_refused(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x\n")
    with pytest.raises(UsageError, match=r"^--env-cache .*file: not a directory$"):
        EnvCache(tmp_path / "file")
    with pytest.raises(UsageError, match=r"^--env-cache .*file/sub: not a writable directory \(.+\)$"):
        EnvCache(tmp_path / "file" / "sub")
    with pytest.raises(UsageError, match=r"^--env-cache /proc/self/envs: not a writable directory"):
        EnvCache(Path("/proc/self/envs"))


def test_an_entry_holding_compiled_files_serves_only_its_own_base_tree_and_another_base_gets_its_own(tmp_path: Path) -> None:
    bases = Bases(tmp_path / "repo")
    cache = EnvCache(tmp_path / "envs")
    compiled = '[ -z "$UV_CACHE_DIR" ] || echo built >> "$UV_CACHE_DIR/builds"; echo "$(cat calc.py)" > _calc.so'
    first = prep(tmp_path, bases, bases.b1, cache, "one", command=compiled)
    [entry] = list_entries(cache.root)
    assert first.env_cache == "miss" and entry.meta["tree"] is not None
    other = prep(tmp_path, bases, bases.b2, cache, "two", command=compiled)  # same key, another source
    assert other.env_cache == "miss" and (other.workspace / "_calc.so").read_text() == CALC_BUGGY + "# a comment\n"
    again = prep(tmp_path, bases, bases.b2, cache, "two", command=compiled, name="two-again")  # its own entry
    assert again.env_cache == "hit" and (again.workspace / "_calc.so").read_text() == CALC_BUGGY + "# a comment\n"
    same = prep(tmp_path, bases, bases.b1, cache, "one", command=compiled, name="one-again")
    assert same.env_cache == "hit" and (same.workspace / "_calc.so").read_text() == CALC_BUGGY
    assert builds(cache) == 2
    assert sorted(e.cases for e in list_entries(cache.root)) == [("one",), ("two",)]


def test_the_overlay_carries_links_removals_and_replaced_paths(tmp_path: Path) -> None:
    def tree(root: Path) -> None:
        (root / "pkg" / "old").mkdir(parents=True)
        (root / "pkg" / "old" / "f.txt").write_text("old\n")
        (root / "pkg" / "keep.txt").write_text("keep\n")
        (root / "became_dir").write_text("a file\n")
        (root / "gone.txt").write_text("gone\n")

    built, fresh = tmp_path / "built", tmp_path / "fresh"
    for root in (built, fresh):
        tree(root)
    before = overlay.scan(built)
    shutil.rmtree(built / "pkg" / "old")
    (built / "gone.txt").unlink()
    (built / "became_dir").unlink()
    (built / "became_dir" / "inner").mkdir(parents=True)
    (built / "pkg" / "keep.txt").write_text("rewritten\n")
    (built / "pkg" / "new.egg-info").mkdir()
    (built / "pkg" / "new.egg-info" / "PKG-INFO").write_text("Name: pkg\n")
    (built / "link").symlink_to("pkg/keep.txt")
    stored = overlay.capture(built, before, tmp_path / "stored")
    assert stored.removed == ("gone.txt", "pkg/old")
    overlay.apply(stored, tmp_path / "stored", fresh)
    assert overlay.scan(fresh).keys() == overlay.scan(built).keys()
    assert (fresh / "pkg" / "keep.txt").read_text() == "rewritten\n" and os.readlink(fresh / "link") == "pkg/keep.txt"
    assert (fresh / "became_dir" / "inner").is_dir() and not (fresh / "pkg" / "old").exists()
    assert (fresh / "pkg" / "new.egg-info" / "PKG-INFO").stat().st_ino != (tmp_path / "stored" / "pkg" /
                                                                            "new.egg-info" / "PKG-INFO").stat().st_ino


def test_an_entry_another_process_holds_is_used_at_once(tmp_path: Path) -> None:
    """Two cache objects on one directory (two runs on one machine, two Ray workers of one node) use a complete
    entry at the same time: the second neither builds it again nor waits for the first to let go of it."""
    bases = Bases(tmp_path / "repo")
    first = EnvCache(tmp_path / "envs")
    prep(tmp_path, bases, bases.b1, first, "one")
    second = EnvCache(tmp_path / "envs")
    done: list[Prepared] = []
    user = threading.Thread(target=lambda: done.append(prep(tmp_path, bases, bases.b2, second, "two")), daemon=True)
    user.start()
    user.join(60)
    while_held = list(done)
    first.close()  # a second still waiting goes on now, so a failure does not hang the suite
    user.join(60)
    assert [p.env_cache for p in while_held] == ["hit"] and builds(second) == 1
    second.close()


def test_cache_objects_building_one_key_wait_for_one_build(tmp_path: Path) -> None:
    """Three cache objects ask for a missing key at once: one builds, the others wait for that build and use it,
    although the builder keeps holding the entry (shared) afterwards."""
    bases = Bases(tmp_path / "repo")
    caches = [EnvCache(tmp_path / "envs") for _ in range(3)]
    results: list[Prepared] = []
    slow = f"sleep 1 && {SETUP}"
    threads = [threading.Thread(target=lambda n=n: results.append(
        prep(tmp_path, bases, bases.b1, caches[n], "one", command=slow, name=f"c{n}")), daemon=True)
        for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    finished = sorted(r.env_cache for r in results)
    for cache in caches:
        cache.close()
    for thread in threads:
        thread.join(60)
    assert finished == ["hit", "hit", "miss"] and builds(caches[0]) == 1
