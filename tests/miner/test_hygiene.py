"""Corpus hygiene: a fix is never proposed twice (sha, patch-id, rejection), and scans are incremental."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.layout import SCAN_STATE_FILE as STATE_FILE
from corpus.model import Rejection
from corpus.store import Corpus
from corpus.yamlio import load_yaml
from miner.scan import ScanOptions, scan
from tests.testing.minerrepos import base_repo, finished_extractions, numbered_fix


def test_rescanning_with_full_proposes_nothing_twice(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    numbered_fix(repo, 1)
    numbered_fix(repo, 2)
    evals = tmp_path / "evals"
    first = scan(ScanOptions(repo=repo.path, corpus=evals))
    assert len(first.candidates) == 2
    again = scan(ScanOptions(repo=repo.path, corpus=evals, full=True))
    assert again.candidates == []
    assert again.stats.skipped["already-candidate"] == 2
    assert len(Corpus.open(evals).ids("candidates")) == 2


def test_approved_and_rejected_fixes_are_skipped(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    approved, rejected = numbered_fix(repo, 1), numbered_fix(repo, 2)
    evals = tmp_path / "evals"
    result = scan(ScanOptions(repo=repo.path, corpus=evals))
    corpus = Corpus.open(evals)
    ids = {c.case.fix_commit: c.case.id for c in result.candidates}
    stored = corpus.load(ids[approved], "candidates")
    corpus.write(stored.case, stored.files, kind="cases")
    corpus.remove(ids[approved])
    corpus.add_rejection(Rejection(fix_commit=rejected, reason="not a bug", candidate_id=ids[rejected]))
    corpus.remove(ids[rejected])
    again = scan(ScanOptions(repo=repo.path, corpus=evals, full=True))
    assert again.candidates == []
    assert again.stats.skipped["already-case"] == 1
    assert again.stats.skipped["already-rejected"] == 1


def test_cherry_pick_in_one_scan_is_proposed_once(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "release")
    original = numbered_fix(repo, 1, "Fix crash in f1")
    repo.git("checkout", "-q", "main")
    repo.commit({"README.md": "x\n"}, "Docs")
    repo.clock += 86400
    repo.git("cherry-pick", original)
    picked = repo.head()
    assert picked != original
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals", rev="--all"))
    assert [c.case.fix_commit for c in result.candidates] == [original]
    assert result.stats.skipped["duplicate-patch-in-scan"] == 1
    assert picked not in {c.case.fix_commit for c in result.candidates}


def test_cherry_pick_of_a_corpus_fix_is_skipped_by_patch_id(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "release")
    original = numbered_fix(repo, 1, "Fix crash in f1")
    repo.git("checkout", "-q", "main")
    evals = tmp_path / "evals"
    first = scan(ScanOptions(repo=repo.path, corpus=evals, rev="release"))
    assert [c.case.fix_commit for c in first.candidates] == [original]
    repo.clock += 86400
    repo.git("cherry-pick", original)
    again = scan(ScanOptions(repo=repo.path, corpus=evals))
    assert again.candidates == []
    assert again.stats.skipped["same-patch-as-candidate"] == 1


def test_rejected_patch_id_catches_a_rebased_copy(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "topic")
    original = numbered_fix(repo, 1, "Fix crash in f1")
    repo.git("checkout", "-q", "main")
    evals = tmp_path / "evals"
    first = scan(ScanOptions(repo=repo.path, corpus=evals, rev="topic"))
    patch_id = first.candidates[0].patch_id
    corpus = Corpus.open(evals)
    corpus.remove(first.candidates[0].case.id)
    # The rejection names some other sha; only its patch id can match the copy.
    corpus.add_rejection(Rejection(fix_commit="0" * 40, reason="flaky", patch_id=patch_id))
    repo.clock += 86400
    repo.git("cherry-pick", original)
    again = scan(ScanOptions(repo=repo.path, corpus=evals))
    assert again.candidates == []
    assert again.stats.skipped["same-patch-as-rejected"] == 1


def test_incremental_scan_covers_only_new_commits(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    numbered_fix(repo, 1)
    evals = tmp_path / "evals"
    first = scan(ScanOptions(repo=repo.path, corpus=evals))
    assert first.stats.commits_scanned == 2
    state = load_yaml(evals / STATE_FILE)
    assert [e["revs"] for e in state["repositories"][str(repo.path.resolve())]["covered"]] == [[repo.head()]]
    numbered_fix(repo, 2)
    newest = numbered_fix(repo, 3)
    second = scan(ScanOptions(repo=repo.path, corpus=evals))
    assert second.stats.commits_scanned == 2
    assert len(second.candidates) == 2
    covered = load_yaml(evals / STATE_FILE)["repositories"][str(repo.path.resolve())]["covered"]
    assert [e["revs"] for e in covered] == [[newest]]
    nothing = scan(ScanOptions(repo=repo.path, corpus=evals))
    assert nothing.stats.commits_scanned == 0
    full = scan(ScanOptions(repo=repo.path, corpus=evals, full=True))
    assert full.stats.commits_scanned == 4
    assert full.stats.skipped["already-candidate"] == 3


def test_a_restricted_scan_leaves_the_rest_to_the_next(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    numbered_fix(repo, 1)
    evals = tmp_path / "evals"
    before = scan(ScanOptions(repo=repo.path, corpus=evals, until="2024-01-02"))
    assert before.stats.commits_scanned == 1 and before.stats.tip is None
    rest = scan(ScanOptions(repo=repo.path, corpus=evals))
    assert rest.stats.commits_scanned == 1 and rest.stats.tip == repo.head()


def test_a_vanished_tip_means_a_full_scan_with_a_warning(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    numbered_fix(repo, 1)
    evals = tmp_path / "evals"
    scan(ScanOptions(repo=repo.path, corpus=evals))
    state = evals / STATE_FILE
    state.write_text(state.read_text().replace(repo.head(), "1" * 40))
    again = scan(ScanOptions(repo=repo.path, corpus=evals))
    assert again.stats.commits_scanned == 2
    assert any("is gone" in warning for warning in again.warnings)


def test_a_merge_of_one_fix_commit_is_the_same_fix(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "topic")
    original = numbered_fix(repo, 1, "Fix crash in f1")
    repo.git("checkout", "-q", "main")
    repo.clock += 86400
    repo.git("merge", "-q", "--no-ff", "topic", "-m", "Merge pull request #1 from dev/topic")
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert [c.case.fix_commit for c in result.candidates] == [original]
    assert result.stats.skipped["duplicate-patch-in-scan"] == 1
    assert result.stats.prefiltered == 1


def test_a_merge_repeating_a_commits_diff_on_a_moved_base_is_never_extracted(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "topic")
    original = numbered_fix(repo, 1, "Fix crash in f1")
    repo.git("checkout", "-q", "main")
    repo.commit({"docs/notes.md": "main moved on\n"}, "Notes")  # the merge's base tree is no longer the fix's
    repo.clock += 86400
    repo.git("merge", "-q", "--no-ff", "topic", "-m", "Merge pull request #1 from dev/topic")
    finished = finished_extractions(monkeypatch)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert [c.case.fix_commit for c in result.candidates] == [original]
    # The merge's trees differ from the commit's, its raw diff does not: it never reaches the second pass.
    assert result.stats.prefiltered == 1
    assert result.stats.skipped["duplicate-patch-in-scan"] == 1
    assert finished == [original]
