"""The git log started ahead of the scan: started only when the scan will want it, taken over or stopped."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from miner.early import SCAN_STATE, EarlyLog, start_log
from miner.scan import ScanOptions, scan
from tests.testing.gitrepo import git_init
from tests.testing.minerrepos import one_fix_repo


def start(repo: Path | None, corpus: Path, *, rev: str | None = None, since: str | None = None,
          until: str | None = None, full: bool = False) -> EarlyLog | None:
    return start_log(repo, corpus, rev=rev, since=since, until=until, full=full, merges=True)


def test_a_new_corpus_scan_takes_the_early_log_and_finds_the_same(tmp_path: Path) -> None:
    repo, _ = one_fix_repo(tmp_path / "repo")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True).stdout.strip()
    early = start_log(repo, tmp_path / "evals", rev=None, since=None, until=None, full=False, merges=True)
    assert early is not None and early.proc is not None and early.head == head
    proc = early.proc
    with_early = scan(ScanOptions(repo=repo, corpus=tmp_path / "evals"), early=early)
    assert early.proc is None and proc.returncode == 0  # taken, read to the end
    without = scan(ScanOptions(repo=repo, corpus=tmp_path / "other"))
    assert [c.case for c in with_early.candidates] == [c.case for c in without.candidates]
    assert with_early.stats.commits_scanned == 3 and with_early.stats.candidates == 1


def test_a_scan_of_another_range_stops_the_early_log(tmp_path: Path) -> None:
    repo, _ = one_fix_repo(tmp_path / "repo")
    early = start_log(repo, tmp_path / "evals", rev=None, since=None, until=None, full=False, merges=True)
    assert early is not None and early.proc is not None
    proc = early.proc
    result = scan(ScanOptions(repo=repo, corpus=tmp_path / "evals", merges=False), early=early)
    assert proc.returncode is not None and early.proc is None
    assert result.stats.candidates == 1


def test_a_failed_scan_stops_the_early_log(tmp_path: Path) -> None:
    repo, _ = one_fix_repo(tmp_path / "repo")
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "stray").write_text("not a corpus")
    early = start_log(repo, tmp_path / "evals", rev=None, since=None, until=None, full=False, merges=True)
    assert early is not None and early.proc is not None
    proc = early.proc
    with pytest.raises(Exception, match="not a corpus"):
        scan(ScanOptions(repo=repo, corpus=tmp_path / "evals"), early=early)
    assert proc.returncode is not None


def test_restricted_scans_start_nothing(tmp_path: Path) -> None:
    repo, _ = one_fix_repo(tmp_path / "repo")
    assert start(repo, tmp_path / "evals", rev="HEAD~1..HEAD") is None
    assert start(repo, tmp_path / "evals", since="2020-01-01") is None
    assert start(repo, tmp_path / "evals", until="2030-01-01") is None


def test_an_incremental_scan_starts_nothing_unless_full(tmp_path: Path) -> None:
    repo, _ = one_fix_repo(tmp_path / "repo")
    scan(ScanOptions(repo=repo, corpus=tmp_path / "evals"))
    assert (tmp_path / "evals" / SCAN_STATE).exists()
    assert start(repo, tmp_path / "evals") is None
    early = start(repo, tmp_path / "evals", full=True)
    assert early is not None
    early.close()


def test_unusual_repositories_start_nothing(tmp_path: Path) -> None:
    repo, _ = one_fix_repo(tmp_path / "repo")
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo), str(bare)], check=True)
    empty = git_init(tmp_path / "empty").path
    for path in (bare, empty, tmp_path / "missing", tmp_path):
        assert start(path, tmp_path / "evals") is None
    assert start(None, tmp_path / "evals") is None
