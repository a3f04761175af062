"""Candidates staged in the background during the scan: renamed in at the end, nothing left behind."""

from __future__ import annotations

import dataclasses
import os
import time
from pathlib import Path
from typing import Any

import pytest

from corpus.errors import GitError, HindcastError
from corpus.model import Case, CaseFiles
from corpus.store import Corpus
from miner import stage
from miner.candidate import Candidate, build_candidate
from miner.scan import ScanOptions, scan
from miner.stage import Stager
from tests.testing.gitrepo import git_init
from tests.testing.minerrepos import SRC, TEST
from tests.testing.trialkit import descendants


def make_repo(path: Path) -> Path:
    repo = git_init(path)
    repo.commit({"app/__init__.py": SRC, "tests/test_app.py": TEST}, "Initial")
    repo.commit({"app/__init__.py": SRC.replace("x\n", "abs(x)\n"),
                 "tests/test_app.py": TEST + "\n\ndef test_negative():\n    assert f(-1) == 1\n"}, "Fix f (#3)")
    repo.commit({"app/__init__.py": SRC.replace("x\n", "abs(x) + 0\n"),
                 "tests/sub/test_more.py": TEST + "\n\ndef test_zero():\n    assert f(0) == 0\n"}, "Fix f again")
    return repo.path


def hidden(directory: Path) -> list[str]:
    return [p.name for p in directory.iterdir() if p.name.startswith(".")] if directory.is_dir() else []


def test_new_corpus_leaves_no_staging_behind(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    result = scan(ScanOptions(repo=repo, corpus=tmp_path / "evals"))
    assert result.stats.candidates == 2
    assert hidden(tmp_path) == [] and hidden(tmp_path / "evals" / "candidates") == []
    corpus = Corpus.open(tmp_path / "evals")
    built = {c.case.fix_commit: c for c in scan(ScanOptions(repo=repo, corpus=tmp_path / "a", write=False)).candidates}
    for candidate in result.candidates:
        assert candidate.path == tmp_path / "evals" / "candidates" / candidate.case.id
        loaded = corpus.load(candidate.case.id, "candidates")
        assert loaded.case == candidate.case
        assert candidate.files is None  # written: not held
        files = built[candidate.case.fix_commit].files
        assert files is not None
        assert loaded.files.oracle_patch == files.oracle_patch
        assert dict(loaded.files.grader_files) == dict(files.grader_files)


def test_existing_corpus_stages_inside_candidates_and_cleans_up(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    Corpus.init(tmp_path / "evals", name="x", repo=str(repo))
    result = scan(ScanOptions(repo=repo, corpus=tmp_path / "evals"))
    assert result.stats.candidates == 2
    assert hidden(tmp_path / "evals" / "candidates") == []


def test_failed_scan_creates_nothing(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    with pytest.raises(GitError):
        scan(ScanOptions(repo=repo, corpus=tmp_path / "evals", rev="no-such-rev"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo"]


def test_final_id_differing_from_the_staged_one_rewrites_case_yaml(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    first = scan(ScanOptions(repo=repo, corpus=tmp_path / "a", write=False)).candidates[0]
    corpus = Corpus.init(tmp_path / "evals", name="x", repo=str(repo))
    parent = corpus.root / "candidates"
    parent.mkdir()
    stager = Stager(parent, "candidates", parent)
    try:
        stager.stage(first)
        renamed = dataclasses.replace(first, case=dataclasses.replace(first.case, id=first.case.id + "0"))
        path = stager.publish(renamed, parent)
    finally:
        stager.close()
    assert path == parent / renamed.case.id
    assert corpus.load(renamed.case.id, "candidates").case == renamed.case
    assert hidden(parent) == []


def test_no_candidates_leaves_no_candidates_directory(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"app/__init__.py": SRC}, "Initial")
    repo.commit({"app/__init__.py": SRC + "\n"}, "Fix spacing")
    Corpus.init(tmp_path / "evals", name="x", repo=str(repo.path))
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert result.stats.candidates == 0
    assert not (tmp_path / "evals" / "candidates").exists()


def test_an_unwritable_staging_place_falls_back_to_writing_at_the_end(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    stager = Stager(tmp_path / "missing" / "deeper", "candidates", tmp_path / "missing" / "deeper")
    first = scan(ScanOptions(repo=repo, corpus=tmp_path / "a", write=False)).candidates[0]
    try:
        stager.stage(first)
    finally:
        stager.close()
    assert not stager.is_staged(first.case.fix_commit)
    assert not (tmp_path / "missing").exists()


def escaping_candidate(tmp_path: Path, forked: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Candidate]:
    """A real candidate whose grader file escapes the repository (its write fails), and the writer kind asked
    for: the forked process or, when forking is made impossible, the threads."""
    repo = make_repo(tmp_path / "repo")
    good = scan(ScanOptions(repo=repo, corpus=tmp_path / "a", write=False)).candidates[0]
    bad = dataclasses.replace(good, files=dataclasses.replace(good.files, grader_files=(("../escape.py", b"x"),)))
    if not forked:
        monkeypatch.setattr("miner.stage._can_fork", lambda: False)
    return repo, bad


@pytest.mark.parametrize("forked", [True, False])
def test_a_failed_write_is_an_error_and_leaves_nothing(tmp_path: Path, forked: bool,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    _, bad = escaping_candidate(tmp_path, forked, monkeypatch)
    parent = tmp_path / "evals" / "candidates"
    parent.mkdir(parents=True)
    stager = Stager(parent, "candidates", parent)
    assert (stager.process is not None) == forked
    try:
        stager.stage(bad)
        with pytest.raises(HindcastError, match="escapes the repository"):
            stager.publish(bad, parent)
    finally:
        stager.close()
    assert list(parent.iterdir()) == []
    assert not (tmp_path / "escape.py").exists()


@pytest.mark.parametrize("forked", [True, False])
def test_a_failed_write_in_a_new_corpus_is_an_error_before_it_appears(tmp_path: Path, forked: bool,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    repo, _ = escaping_candidate(tmp_path, forked, monkeypatch)

    def escaping(*args: Any) -> Candidate:  # every candidate of the scan, with a grader file that escapes
        built = build_candidate(*args)
        return dataclasses.replace(built, files=dataclasses.replace(built.files, grader_files=(("../escape.py", b"x"),)))

    monkeypatch.setattr("miner.scan.build_candidate", escaping)
    with pytest.raises(HindcastError, match="escapes the repository"):
        scan(ScanOptions(repo=repo, corpus=tmp_path / "evals"))
    assert not (tmp_path / "evals").exists() and hidden(tmp_path) == []
    assert not (tmp_path / "escape.py").exists()


def test_closing_drops_what_was_not_published(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    first, second = scan(ScanOptions(repo=repo, corpus=tmp_path / "a", write=False)).candidates[:2]
    corpus = Corpus.init(tmp_path / "evals", name="x", repo=str(repo))
    parent = corpus.root / "candidates"
    stager = Stager(parent, "candidates", parent)
    try:
        stager.stage(first)
        stager.stage(second)
        stager.publish(first, parent)
    finally:
        stager.close()
    assert corpus.ids("candidates") == [first.case.id] and hidden(parent) == []


def test_a_new_corpus_may_take_the_place_of_an_empty_directory(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    (tmp_path / "evals").mkdir()
    result = scan(ScanOptions(repo=repo, corpus=tmp_path / "evals"))
    assert result.stats.candidates == 2
    assert sorted(p.name for p in (tmp_path / "evals").iterdir()) == ["candidates", "corpus.yaml", "scan-state.yaml"]
    assert hidden(tmp_path) == []
    assert [c.path for c in result.candidates] == [tmp_path / "evals" / "candidates" / c.case.id
                                                   for c in result.candidates]


def test_the_scan_writes_what_the_child_has_not_taken_yet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At the end the scan writes the candidates still queued for the writer process itself, beside it."""
    repo = make_repo(tmp_path / "repo")
    template = scan(ScanOptions(repo=repo, corpus=tmp_path / "a", write=False)).candidates[0]
    parent_pid, by_the_scan = os.getpid(), []
    slow_child = stage._write

    def write(directory: str, case: Case, files: CaseFiles) -> str:
        if os.getpid() == parent_pid:
            by_the_scan.append(directory)
        else:
            time.sleep(0.05)  # a writer process that lags behind, as on a slow file system
        return slow_child(directory, case, files)

    monkeypatch.setattr(stage, "_write", write)
    big = b"x = 1\n" * 50_000  # 300 KB each: the pipe to the child holds only a few
    candidates = []
    for number in range(8):
        sha = f"{number:040x}"
        case = dataclasses.replace(template.case, id=f"case-{number}", fix_commit=sha)
        files = dataclasses.replace(template.files, grader_files=(("tests/test_app.py", big + str(number).encode()),))
        candidates.append(dataclasses.replace(template, case=case, files=files))
    stager = Stager(tmp_path, "evals", tmp_path / "evals" / "candidates")
    assert stager.process is not None
    try:
        for candidate in candidates:
            stager.stage(candidate)
        stager.wait()
        assert stager.area is not None
        for number, candidate in enumerate(candidates):
            written = (stager.area / candidate.case.fix_commit / "grader" / "tests" / "test_app.py").read_bytes()
            assert written == big + str(number).encode()
    finally:
        stager.close()
    assert 0 < len(by_the_scan) < len(candidates)
    assert hidden(tmp_path) == []


def test_a_scan_that_cannot_start_its_second_pass_ends_its_writer(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer process is forked before git's processes start: when they cannot, it is ended too."""
    repo = make_repo(tmp_path / "repo")
    before = set(descendants(os.getpid()))

    def broken(*args: Any) -> None:
        raise GitError("git diff-tree could not start")

    monkeypatch.setattr("miner.scan.Extractor", broken)
    with pytest.raises(GitError, match="could not start"):
        scan(ScanOptions(repo=repo, corpus=tmp_path / "evals"))
    assert set(descendants(os.getpid())) - before == set()
    assert not (tmp_path / "evals").exists() and hidden(tmp_path) == []
