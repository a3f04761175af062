"""A scan's memory stays flat: candidates leave the process as they are staged, and memos are bounded."""

from __future__ import annotations

import dataclasses
import os
import weakref
from pathlib import Path
from typing import Any

import pytest

from corpus.model import Case, CaseFiles
from corpus.store import Corpus
from miner import stage
from miner.candidate import Candidate, build_candidate
from miner.environment.read import Recent
from miner.extract import Extraction
from miner.scan import ScanOptions, scan
from miner.stage import Stager
from tests.testing.envrepos import fake_pythons
from tests.testing.gitrepo import GitRepo
from tests.testing.minerrepos import base_repo, merge_no_ff, numbered_fix

FIXES = 6


def fixes_repo(path: Path) -> GitRepo:
    """FIXES small fixes on the main line, then a pull request of two fixes merged with a merge commit."""
    repo = base_repo(path)
    for number in range(1, FIXES + 1):
        numbered_fix(repo, number)
    repo.git("checkout", "-q", "-b", "topic")
    numbered_fix(repo, 100)
    numbered_fix(repo, 101)
    repo.git("checkout", "-q", "main")
    merge_no_ff(repo, "topic", "Merge pull request #7 from someone/topic\n\nFix bugs 100 and 101")
    return repo


def test_each_extraction_and_its_files_are_let_go_once_staged(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """When the second pass finishes a commit, nothing of the commits it finished before is still held: the
    extraction and the candidate's files went to the writer."""
    repo = fixes_repo(tmp_path / "repo")
    dry = {c.case.fix_commit: c for c in scan(ScanOptions(repo=repo.path, corpus=tmp_path / "dry",
                                                            write=False)).candidates}
    earlier: list[tuple[weakref.ref[Extraction], weakref.ref[CaseFiles]]] = []
    held_when_next: list[int] = []

    def watched(extraction: Extraction, *args: Any) -> Candidate:
        held_when_next.append(sum(1 for e, f in earlier if e() is not None or f() is not None))
        built = build_candidate(extraction, *args)
        assert built.files is not None
        earlier.append((weakref.ref(extraction), weakref.ref(built.files)))
        return built

    monkeypatch.setattr("miner.scan.build_candidate", watched)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert len(earlier) >= FIXES + 1  # every fix and the merge were extracted (grouping comes later)
    assert held_when_next == [0] * len(earlier)
    assert all(e() is None and f() is None for e, f in earlier)
    # What left the process is on disk, as the dry run built it; the result holds none of it.
    corpus = Corpus.open(tmp_path / "evals")
    assert {c.case.fix_commit for c in result.candidates} == set(dry)
    for candidate in result.candidates:
        assert candidate.files is None
        assert corpus.load(candidate.case.id, "candidates").files == dry[candidate.case.fix_commit].files


def test_without_a_staging_area_the_files_are_held_until_written(tmp_path: Path) -> None:
    """--max-candidates writes at the end: the kept candidates are written whole, and then not held."""
    repo = fixes_repo(tmp_path / "repo")
    dry = {c.case.fix_commit: c for c in scan(ScanOptions(repo=repo.path, corpus=tmp_path / "dry",
                                                            write=False)).candidates}
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals", max_candidates=3))
    corpus = Corpus.open(tmp_path / "evals")
    assert len(result.candidates) == 3
    for candidate in result.candidates:
        assert candidate.files is None and candidate.path is not None
        assert candidate.read_files() == dry[candidate.case.fix_commit].files
        assert corpus.load(candidate.case.id, "candidates").case == candidate.case


def test_a_staged_candidate_gets_its_introducing_commits_on_disk(tmp_path: Path) -> None:
    """With --szz the candidates are staged too: case.yaml is rewritten with what SZZ found before it is
    renamed in."""
    repo = base_repo(tmp_path / "repo")
    introducing = repo.commit({"app/__init__.py": "def f(x):\n    return x + 1\n"}, "Speed up f", days=2)
    repo.commit({"app/__init__.py": "def f(x):\n    return x\n",
                 "tests/test_app.py": "def test_f():\n    assert True\n"}, "Fix f", days=5)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals", szz=True))
    [candidate] = result.candidates
    assert candidate.case.mined is not None and candidate.case.mined.introducing_commits == (introducing,)
    stored = Corpus.open(tmp_path / "evals").load(candidate.case.id, "candidates")
    assert stored.case == candidate.case
    assert stored.case.mined is not None and stored.case.mined.escape_days == candidate.case.mined.escape_days


def test_the_writer_backlog_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While the writer process is held, the scan writes the queued candidates itself as soon as they are
    more than MAX_BACKLOG: they do not pile up in the scan's memory."""
    monkeypatch.setattr(stage, "MAX_BACKLOG", 0)
    template = scan(ScanOptions(repo=base_repo_with_fix(tmp_path / "repo"), corpus=tmp_path / "a",
                                write=False)).candidates[0]
    assert template.files is not None
    gate_read, gate_write = os.pipe()  # the child waits on it before its first write
    parent_pid, by_the_scan = os.getpid(), []
    real_write = stage._write

    def write(directory: str, case: Case, files: CaseFiles) -> str:
        if os.getpid() == parent_pid:
            by_the_scan.append(directory)
        elif os.read(gate_read, 1) == b"":
            os._exit(3)
        return real_write(directory, case, files)

    monkeypatch.setattr(stage, "_write", write)
    big = b"x = 1\n" * 100_000  # 600 KB each: the child's buffer and the pipe to it hold a few
    candidates = []
    for number in range(12):
        case = dataclasses.replace(template.case, id=f"case-{number}", fix_commit=f"{number:040x}")
        files = dataclasses.replace(template.files, grader_files=(("tests/test_app.py", big + b"%d" % number),))
        candidates.append(dataclasses.replace(template, case=case, files=files))
    stager = Stager(tmp_path, "evals", tmp_path / "evals" / "candidates")
    assert stager.process is not None
    try:
        for candidate in candidates:
            assert stager.stage(candidate)
            assert stager.process.pump is not None
            assert stager.process.pump.queued <= len(big) + 4096  # at most the one the pump thread is taking
        written_before_wait = len(by_the_scan)
        os.write(gate_write, b"x" * len(candidates))
        stager.wait()
        assert stager.area is not None
        for number, candidate in enumerate(candidates):
            content = (stager.area / candidate.case.fix_commit / "grader" / "tests" / "test_app.py").read_bytes()
            assert content == big + b"%d" % number
    finally:
        os.close(gate_write)
        os.close(gate_read)
        stager.close()
    # 12, less those the child holds (its frame and its read buffer), those in the pipe and the one in flight
    assert written_before_wait >= 4


def base_repo_with_fix(path: Path) -> Path:
    repo = base_repo(path)
    numbered_fix(repo, 1)
    return repo.path


def test_recent_keeps_only_the_most_recently_used() -> None:
    memo: Recent[str, int | None] = Recent(2)
    memo.put("a", 1)
    memo.put("b", None)
    assert memo.get("a") == 1  # now the most recent
    memo.put("c", 3)
    assert "b" not in memo and "a" in memo and "c" in memo
    assert memo.get("b") is None
    memo.put("d", 4)
    assert sorted(memo.entries) == ["c", "d"]


PYPROJECTS = ['[project]\nname = "app"\nrequires-python = ">=3.9"\n',
              '[project]\nname = "app"\nrequires-python = ">=3.12"\ndependencies = ["attrs"]\n']
TOX = ["[tox]\nenvlist = py39\n", "[tox]\nenvlist = py312\n\n[testenv]\ndeps = pytest\n",
       "[testenv]\ndeps = -rrequirements/test.txt\n"]
WORKFLOW = "jobs:\n  test:\n    strategy:\n      matrix:\n        python-version: ['{}']\n"


def test_bounded_memos_infer_what_unbounded_ones_would(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bases whose build files come back again and again: evicting every memo at once (KEEP = 1) infers the
    same setups as keeping them all."""
    pythons = fake_pythons(tmp_path / "pythons", "3.9.18", "3.12.1")
    repo = base_repo(tmp_path / "repo")
    for number in range(1, 13):
        repo.commit({"pyproject.toml": PYPROJECTS[number % 2], "tox.ini": TOX[number % 3],
                     "requirements/test.txt": "pytest\n" if number % 4 else "pytest\nhypothesis\n",
                     ".github/workflows/ci.yml": WORKFLOW.format("3.9" if number % 5 else "3.12")}, "Build files")
        numbered_fix(repo, number)

    def setups() -> list[tuple[str, object, object]]:
        result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "dry", write=False, pythons=pythons))
        return sorted((c.case.fix_commit, c.case.setup, c.case.mined.setup_origin if c.case.mined else None)
                      for c in result.candidates)

    kept_all = setups()
    assert len(kept_all) == 12 and len({(setup, origin) for _, setup, origin in kept_all}) > 2
    monkeypatch.setattr("miner.environment.read.KEEP", 1)
    assert setups() == kept_all
