"""`runner env list` and `runner env prune`, and --env-cache / --no-env-cache on verify and run."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from corpus import Setup
from corpus.cli_support import run_cli
from corpus.errors import ExitCode, UsageError
from runner.cli import cli
from runner.envs.cache import EnvCache, default_cache_dir, lock_entry
from runner.envs.manage import list_entries, prune_entries
from tests.runner.envs.test_cache import SETUP, Bases, prep
from tests.testing.casefactory import build_corpus


def two_entries(tmp_path: Path) -> tuple[Bases, EnvCache]:
    bases = Bases(tmp_path / "repo")
    cache = EnvCache(tmp_path / "envs")
    prep(tmp_path, bases, bases.b1, cache, "one")
    prep(tmp_path, bases, bases.b3, cache, "three")
    return bases, cache


def test_list_shows_each_entry_and_json_has_its_metadata(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, cache = two_entries(tmp_path)
    cache.close()
    assert run_cli(cli, "runner", ["env", "list", "--env-cache", str(cache.root)]) == ExitCode.OK
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:4] == ["KEY", "PYTHON", "SIZE", "LAST"] and len(lines) == 3
    assert {line.split()[0] for line in lines[1:]} == {e.key for e in list_entries(cache.root)}
    assert any("  one  " in line and line.endswith(SETUP) for line in lines[1:])
    assert run_cli(cli, "runner", ["env", "list", "--env-cache", str(cache.root), "--json"]) == ExitCode.OK
    data = json.loads(capsys.readouterr().out)
    assert sorted(tuple(d["cases"]) for d in data) == [("one",), ("three",)]
    assert all(d["parts"]["command"] == SETUP and d["size"] > 0 and d["created"] for d in data)
    assert run_cli(cli, "runner", ["env", "list", "--env-cache", str(tmp_path / "none")]) == ExitCode.OK
    assert "no cached environments in" in capsys.readouterr().out and not (tmp_path / "none").exists()


def test_prune_keeps_entries_in_use_and_removes_the_rest(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bases, cache = two_entries(tmp_path)
    later = datetime.now(UTC) + timedelta(days=10)
    assert prune_entries(cache.root, older_than=30, now=later).removed == ()
    held = prune_entries(cache.root, older_than=5, now=later)  # due, but this cache object still holds both
    assert held.removed == () and len(held.in_use) == 2 and len(list_entries(cache.root)) == 2
    cache.close()
    user = EnvCache(tmp_path / "envs")
    prep(tmp_path, bases, bases.b1, user, "one", name="again")  # a run using one entry right now
    argv = ["env", "prune", "--env-cache", str(cache.root), "--all"]
    assert run_cli(cli, "runner", argv) == ExitCode.OK
    captured = capsys.readouterr()
    assert "removed 1 environment(s)" in captured.out and captured.err.count("in use, kept") == 1
    [kept] = list_entries(cache.root)
    assert kept.cases == ("one",)
    user.close()
    assert run_cli(cli, "runner", argv) == ExitCode.OK
    assert list_entries(cache.root) == [] and not any((cache.root / "locks").iterdir())
    rebuilt = prep(tmp_path, bases, bases.b1, EnvCache(cache.root), "one", name="after-prune")
    assert rebuilt.env_cache == "miss"


def test_prune_removes_half_built_leftovers_but_not_a_build_in_progress(tmp_path: Path) -> None:
    root = EnvCache(tmp_path / "envs").root
    (root / "entries" / "a").mkdir()
    (root / "entries" / "b").mkdir()
    fd = lock_entry(root, "b", blocking=True)  # a build holding its lock
    result = prune_entries(root, older_than=1)
    assert fd is not None
    os.close(fd)
    assert result.removed == ("a",) and result.in_use == ("b",) and (root / "entries" / "b").is_dir()


def test_prune_needs_a_criterion(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(cli, "runner", ["env", "prune", "--env-cache", str(tmp_path)]) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err == "runner: error: runner env prune: give --older-than DAYS or --all\n"
    with pytest.raises(UsageError, match="must not be negative"):
        prune_entries(tmp_path, older_than=-1)


def test_bad_env_cache_is_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_corpus(tmp_path, setup=Setup(command="true"))
    (tmp_path / "file").write_text("x\n")
    corpus = str(tmp_path / "evals")
    for command in (["verify", "--corpus", corpus], ["run", "--corpus", corpus, "--all", "--agent-command", "true",
                                                     "--results-dir", str(tmp_path / "results")]):
        for bad, reason in ((tmp_path / "file", "not a directory"),
                            (Path("/proc/self/envs"), "not a writable directory")):
            assert run_cli(cli, "runner", [*command, "--env-cache", str(bad)]) == ExitCode.BAD_INPUT
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and f"--env-cache {bad}: {reason}" in err
        both = [*command, "--env-cache", str(tmp_path / "envs"), "--no-env-cache"]
        assert run_cli(cli, "runner", both) == ExitCode.BAD_INPUT
        assert "either --env-cache DIR or --no-env-cache" in capsys.readouterr().err
    assert not (tmp_path / "results").exists()
    assert run_cli(cli, "runner", ["env", "list", "--env-cache", str(tmp_path / "file")]) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err.count("\n") == 1


def test_verify_uses_the_default_cache_unless_told_not_to(tmp_path: Path) -> None:
    build_corpus(tmp_path, setup=Setup(command="echo x > made.txt"))
    corpus = str(tmp_path / "evals")
    assert run_cli(cli, "runner", ["verify", "--corpus", corpus, "--no-env-cache"]) == ExitCode.OK
    assert not default_cache_dir().exists()
    assert run_cli(cli, "runner", ["verify", "--corpus", corpus]) == ExitCode.OK
    assert str(default_cache_dir()).startswith(str(Path.home()))  # tests/conftest.py isolates XDG_CACHE_HOME
    [entry] = list_entries(default_cache_dir())
    assert entry.cases == ("calc-add",) and entry.command == "echo x > made.txt"
