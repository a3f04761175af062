"""A merge and the branch commits it brought in are one candidate, in the scan and in the corpus's ledger."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from authoring.cli import cli as authoring_cli
from corpus.store import Corpus
from miner import scan as scan_module
from miner.gitbatch import rev_list_branch
from miner.gitlog import History, iter_log
from miner.propose import deferred_kept
from miner.scan import ScanOptions, scan
from tests.testing.gitrepo import GitRepo
from tests.testing.minerrepos import base_repo, finished_extractions, merge_no_ff, numbered_fix


def pull_request(repo: GitRepo, branch: str = "topic", number: int = 1) -> tuple[str, str, str]:
    """A branch with a qualifying fix and a follow-up to it, merged with a merge commit: (fix, follow-up, merge)."""
    repo.git("checkout", "-q", "-b", branch)
    first = numbered_fix(repo, number, f"Fix crash in f{number}")
    follow = repo.commit({f"app/m{number}.py": f"def f{number}(x):\n    return (x or 0) + {number}\n"},
                         f"Handle None in f{number}")
    repo.git("checkout", "-q", "main")
    repo.commit({"docs/notes.md": f"main moved on {number}\n"}, f"Notes {number}")
    merged = merge_no_ff(repo, branch, f"Merge pull request #{number} from dev/{branch}\n\nFix crash in f{number}")
    return first, follow, merged


def test_a_merge_and_its_qualifying_branch_commit_are_one_candidate(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    first, follow, merged = pull_request(repo)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    [candidate] = result.candidates
    assert candidate.case.fix_commit == merged
    assert candidate.case.base_commit == repo.git("rev-parse", f"{merged}^1")
    assert candidate.case.mined is not None and candidate.case.mined.branch_commits == (first, follow)
    assert candidate.to_json()["branch_commits"] == [first, follow]
    assert result.stats.skipped["branch-of-merge-in-scan"] == 1  # the fix; the follow-up has no test change
    stored = Corpus.open(tmp_path / "evals").load(candidate.case.id, "candidates")
    assert stored.case.mined is not None and stored.case.mined.branch_commits == (first, follow)
    assert [p.name for p in (tmp_path / "evals" / "candidates").iterdir()] == [candidate.case.id]  # no staging left


def test_without_merges_the_branch_commit_is_the_candidate(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    first, _, _ = pull_request(repo)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals", merges=False))
    assert [c.case.fix_commit for c in result.candidates] == [first]
    assert result.candidates[0].case.mined.branch_commits == ()  # type: ignore[union-attr]


def test_a_merge_over_the_size_limits_leaves_the_branch_commit_a_candidate(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "topic")
    first = numbered_fix(repo, 1, "Fix crash in f1")
    repo.commit({f"app/gen/m{index}.py": f"X = {index}\n" for index in range(60)}, "Generate modules")
    repo.git("checkout", "-q", "main")
    merge_no_ff(repo, "topic", "Merge pull request #1 from dev/topic")
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert [c.case.fix_commit for c in result.candidates] == [first]
    assert result.stats.skipped["too-many-files"] == 2  # the merge and the generating commit
    assert "branch-of-merge-in-scan" not in result.stats.skipped


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_merge_over_the_line_limit_leaves_the_branch_commit_a_candidate(tmp_path: Path) -> None:
    # The merge survives the first pass and fails the line limit in the second: its branch commit is the
    # candidate, byte for byte the one a scan without merges writes, and a dry run holds its files.
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "topic")
    first = numbered_fix(repo, 1, "Fix crash in f1")
    repo.commit({"app/big.py": "".join(f"X{i} = {i}\n" for i in range(40)),
                 "tests/test_big.py": "".join(f"Y{i} = {i}\n" for i in range(40))}, "Add tables")
    repo.git("checkout", "-q", "main")
    merge_no_ff(repo, "topic", "Merge pull request #1 from dev/topic")
    from miner.score import SizeLimits

    limits = SizeLimits(max_lines=50)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals", limits=limits))
    assert [c.case.fix_commit for c in result.candidates] == [first]
    assert result.stats.skipped["too-many-lines"] == 2  # the merge and the tables commit
    plain = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "plain", limits=limits, merges=False))
    written = _tree(tmp_path / "evals" / "candidates")
    assert written and written == _tree(tmp_path / "plain" / "candidates")
    [dry] = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "dry", limits=limits, write=False)).candidates
    assert dry.files is not None and dry.files == plain.candidates[0].read_files()
    assert not (tmp_path / "dry").exists()


def test_rejecting_the_merge_keeps_its_branch_commits_out_of_the_next_scan(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    first, _, merged = pull_request(repo)
    evals = tmp_path / "evals"
    [candidate] = scan(ScanOptions(repo=repo.path, corpus=evals)).candidates
    outcome = CliRunner().invoke(authoring_cli, ["reject", candidate.case.id, "--corpus", str(evals),
                                                 "--reason", "not a regression"])
    assert outcome.exit_code == 0, outcome.output
    again = scan(ScanOptions(repo=repo.path, corpus=evals, full=True))
    assert again.candidates == []
    assert again.stats.skipped["already-rejected"] == 1
    assert again.stats.skipped["branch-of-rejected"] == 1
    assert Corpus.open(evals).ids("candidates") == []
    assert [r.fix_commit for r in Corpus.open(evals).rejections()] == [merged]
    assert first not in {r.fix_commit for r in Corpus.open(evals).rejections()}


def test_an_approved_or_pending_merge_keeps_its_branch_commits_out(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    pull_request(repo, "one", 1)
    pull_request(repo, "two", 2)
    evals = tmp_path / "evals"
    first = scan(ScanOptions(repo=repo.path, corpus=evals))
    assert len(first.candidates) == 2
    corpus = Corpus.open(evals)
    stored = corpus.load(first.candidates[0].case.id, "candidates")
    corpus.write(stored.case, stored.files, kind="cases")
    corpus.remove(stored.case.id)
    again = scan(ScanOptions(repo=repo.path, corpus=evals, full=True))
    assert again.candidates == []
    assert again.stats.skipped["branch-of-case"] == 1
    assert again.stats.skipped["branch-of-candidate"] == 1


def test_a_merge_holding_a_rejected_commit_is_not_proposed(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "topic")
    first = numbered_fix(repo, 1, "Fix crash in f1")
    repo.commit({"app/m1.py": "def f1(x):\n    return (x or 0) + 1\n"}, "Handle None in f1")
    evals = tmp_path / "evals"
    early = scan(ScanOptions(repo=repo.path, corpus=evals, rev="topic"))
    assert [c.case.fix_commit for c in early.candidates] == [first]
    outcome = CliRunner().invoke(authoring_cli, ["reject", early.candidates[0].case.id, "--corpus", str(evals),
                                                 "--reason", "a test-only fix"])
    assert outcome.exit_code == 0, outcome.output
    repo.git("checkout", "-q", "main")
    repo.commit({"docs/notes.md": "main moved on\n"}, "Notes")
    merge_no_ff(repo, "topic", "Merge pull request #1 from dev/topic")
    again = scan(ScanOptions(repo=repo.path, corpus=evals))
    assert again.candidates == []
    assert again.stats.skipped["merge-contains-rejected"] == 1


def test_a_release_merge_of_merged_pull_requests_leaves_the_pull_requests(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "develop")
    repo.commit({"docs/develop.md": "develop\n"}, "Start develop")
    repo.git("checkout", "-q", "-b", "topic")
    first = numbered_fix(repo, 1, "Fix crash in f1")
    follow = repo.commit({"app/m1.py": "def f1(x):\n    return (x or 0) + 1\n"}, "Handle None in f1")
    repo.git("checkout", "-q", "develop")
    direct = numbered_fix(repo, 2, "Fix crash in f2")
    inner = merge_no_ff(repo, "topic", "Merge pull request #1 from dev/topic")
    repo.git("checkout", "-q", "main")
    merge_no_ff(repo, "develop", "Merge branch 'develop'")
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    proposed = {c.case.fix_commit: c for c in result.candidates}
    assert set(proposed) == {inner, direct}  # the release merge's groups, not the release merge
    assert proposed[inner].case.mined.branch_commits == (first, follow)  # type: ignore[union-attr]
    assert result.stats.skipped["bundle-of-merges"] == 1
    assert result.stats.skipped["branch-of-merge-in-scan"] == 1


def test_a_merge_of_main_into_the_branch_stays_inside_the_pull_request(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "topic")
    first = numbered_fix(repo, 1, "Fix crash in f1")
    repo.git("checkout", "-q", "main")
    elsewhere = numbered_fix(repo, 2, "Fix crash in f2")
    repo.git("checkout", "-q", "topic")
    sync = merge_no_ff(repo, "main", "Merge branch 'main' into topic")
    follow = repo.commit({"app/m1.py": "def f1(x):\n    return (x or 0) + 1\n",
                          "tests/test_m1.py": "def test_f1():\n    assert 1\n\n\ndef test_none():\n    assert 2\n"},
                         "Handle None in f1")
    repo.git("checkout", "-q", "main")
    merged = merge_no_ff(repo, "topic", "Merge pull request #1 from dev/topic")
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    proposed = {c.case.fix_commit: c for c in result.candidates}
    assert set(proposed) == {merged, elsewhere}
    assert proposed[merged].case.mined.branch_commits == (first, sync, follow)  # type: ignore[union-attr]


def test_the_history_walk_agrees_with_git(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    pull_request(repo, "one", 1)
    repo.git("checkout", "-q", "-b", "two")
    numbered_fix(repo, 2)
    repo.git("checkout", "-q", "main")
    numbered_fix(repo, 3)
    repo.git("checkout", "-q", "two")
    merge_no_ff(repo, "main", "Merge branch 'main' into two")
    numbered_fix(repo, 4)
    repo.git("checkout", "-q", "-b", "three", "main")
    numbered_fix(repo, 5)
    repo.git("checkout", "-q", "main")
    merge_no_ff(repo, "two", "Merge branch 'two'")
    merge_no_ff(repo, "three", "Merge branch 'three'")
    history = History()
    commits = list(iter_log(repo.path, ["HEAD"]))
    for commit in commits:
        history.add(commit)
    merges = [commit for commit in commits if commit.is_merge]
    assert len(merges) == 4
    for commit in merges:
        walked = history.branch_commits(commit.sha)
        assert walked is not None
        assert set(walked) == set(rev_list_branch(repo.path, commit.parents)), commit.message
        assert walked[-1] == commit.parents[1]  # oldest first: the branch tip last


def test_a_walk_leaving_the_scanned_history_falls_back_to_git(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    first, follow, merged = pull_request(repo)
    history = History()
    for commit in iter_log(repo.path, [merged, f"^{first}"]):  # the branch's fix is outside
        history.add(commit)
    assert history.branch_commits(merged) is None
    from miner.groups import Branches

    assert Branches(repo.path, history).of(merged) == (first, follow)


def test_the_review_facts_list_the_branch_commits(tmp_path: Path) -> None:
    from datetime import date

    from rich.console import Console

    from authoring.widgets.facts import render_facts

    repo = base_repo(tmp_path / "repo")
    first, follow, _ = pull_request(repo)
    [candidate] = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals")).candidates
    console = Console(width=200, record=True)
    console.print(render_facts(candidate.case, None, date(2024, 6, 1), None))
    assert f"branch commits (2): {first[:10]}, {follow[:10]}" in console.export_text()


def test_a_branch_commit_that_is_not_a_sha_is_a_one_line_error(tmp_path: Path) -> None:
    import pytest

    from corpus.errors import CorpusError

    repo = base_repo(tmp_path / "repo")
    pull_request(repo)
    [candidate] = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals")).candidates
    assert candidate.path is not None
    path = candidate.path / "case.yaml"
    text = path.read_text()
    start = text.index("  branch_commits:\n")
    path.write_text(text[:start] + "  branch_commits:\n    - main\n" + text[start:].split("\n", 3)[3])
    with pytest.raises(CorpusError, match=r"mined\.branch_commits\[\d+\]: expected full lowercase commit shas, found 'main'"):
        Corpus.open(tmp_path / "evals").load(candidate.case.id, "candidates")


def _extracted_late(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """What each round at the end of a scan finds deferred and kept after all, from now on."""
    rounds: list[list[str]] = []

    def spy(*args: object) -> list[str]:
        rounds.append(deferred_kept(*args))  # type: ignore[arg-type]
        return rounds[-1]

    monkeypatch.setattr(scan_module, "deferred_kept", spy)
    return rounds


def two_fix_pull_request(repo: GitRepo) -> tuple[str, str, str]:
    """A branch of two qualifying fixes merged with a merge commit after main moved on: (fix, fix, merge)."""
    repo.git("checkout", "-q", "-b", "topic")
    first, second = numbered_fix(repo, 1, "Fix crash in f1"), numbered_fix(repo, 2, "Fix crash in f2")
    repo.git("checkout", "-q", "main")
    repo.commit({"docs/notes.md": "main moved on\n"}, "Notes")
    return first, second, merge_no_ff(repo, "topic", "Merge pull request #1 from dev/topic\n\nFix crashes")


EVERY_SCORE = -1e9
"""A --min-score below every score: nothing is dropped for it, and every survivor is extracted."""


def test_the_branch_commits_a_merge_stands_for_are_not_extracted(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    repo = base_repo(tmp_path / "repo")
    first, second, merged = two_fix_pull_request(repo)
    finished = finished_extractions(monkeypatch)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert [c.case.fix_commit for c in result.candidates] == [merged]
    assert finished == [merged]
    assert result.stats.skipped["branch-of-merge-in-scan"] == 2
    # Every commit extracted (a --min-score turns the deferral off): the same corpus, the same counts.
    finished.clear()
    every = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "every", min_score=EVERY_SCORE))
    assert sorted(finished) == sorted([first, second, merged])
    assert _tree(tmp_path / "every" / "candidates") == _tree(tmp_path / "evals" / "candidates")
    assert every.stats.skipped == result.stats.skipped


def test_a_deferred_commit_whose_merge_is_dropped_after_all_is_extracted_at_the_end(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The merge passes the second pass, so its branch commits are deferred; the end drops it (the corpus
    # rejected the same patch, made on a branch the scan does not read), so they are extracted then and
    # written as a scan that extracted everything writes them.
    repo = base_repo(tmp_path / "repo")
    fork = repo.head()
    first, second, merged = two_fix_pull_request(repo)
    repo.git("checkout", "-q", "-b", "squashed", fork)
    squash = repo.commit({path: repo.git("show", f"{merged}:{path}").encode() for path in
                          ("app/m1.py", "tests/test_m1.py", "app/m2.py", "tests/test_m2.py")}, "Fix crashes")
    repo.git("checkout", "-q", "main")
    outcomes = {}
    for name, min_score in (("evals", None), ("every", EVERY_SCORE)):
        evals = tmp_path / name
        [early] = scan(ScanOptions(repo=repo.path, corpus=evals, rev=f"{fork}..{squash}")).candidates
        outcome = CliRunner().invoke(authoring_cli, ["reject", early.case.id, "--corpus", str(evals),
                                                     "--reason", "squashed elsewhere"])
        assert outcome.exit_code == 0, outcome.output
        finished = finished_extractions(monkeypatch)
        late = _extracted_late(monkeypatch)
        outcomes[name] = scan(ScanOptions(repo=repo.path, corpus=evals, rev="main", min_score=min_score))
        assert sorted(finished) == sorted([first, second, merged])  # deferred or not, each extracted once
        assert [sorted(shas) for shas in late] == ([sorted([first, second]), []] if min_score is None else [[]])
    result = outcomes["evals"]
    assert sorted(c.case.fix_commit for c in result.candidates) == sorted([first, second])
    assert result.stats.skipped["same-patch-as-rejected"] == 1
    assert _tree(tmp_path / "every" / "candidates") == _tree(tmp_path / "evals" / "candidates")
    assert outcomes["every"].stats.skipped == result.stats.skipped


def test_a_bundle_is_not_extracted_and_the_corpus_is_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = base_repo(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "develop")
    repo.git("checkout", "-q", "-b", "topic")
    numbered_fix(repo, 1, "Fix crash in f1")
    repo.commit({"app/m1.py": "def f1(x):\n    return (x or 0) + 1\n", "tests/test_m1.py": "def test_f1():\n    assert 5\n"},
                "Handle None in f1")
    repo.git("checkout", "-q", "develop")
    numbered_fix(repo, 2, "Fix crash in f2")
    inner = merge_no_ff(repo, "topic", "Merge pull request #1 from dev/topic")
    repo.git("checkout", "-q", "main")
    release = merge_no_ff(repo, "develop", "Merge branch 'develop'")
    finished = finished_extractions(monkeypatch)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert release not in finished and inner in finished
    assert result.stats.skipped["bundle-of-merges"] == 1
    finished.clear()
    every = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "every", min_score=EVERY_SCORE))
    assert release in finished
    assert _tree(tmp_path / "every" / "candidates") == _tree(tmp_path / "evals" / "candidates")
    assert every.stats.skipped == result.stats.skipped


def test_the_branch_commits_of_a_merge_the_corpus_holds_are_not_extracted(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    repo = base_repo(tmp_path / "repo")
    two_fix_pull_request(repo)
    evals = tmp_path / "evals"
    [candidate] = scan(ScanOptions(repo=repo.path, corpus=evals)).candidates
    outcome = CliRunner().invoke(authoring_cli, ["reject", candidate.case.id, "--corpus", str(evals),
                                                 "--reason", "not a regression"])
    assert outcome.exit_code == 0, outcome.output
    finished = finished_extractions(monkeypatch)
    again = scan(ScanOptions(repo=repo.path, corpus=evals, full=True))
    assert again.candidates == [] and finished == []
    assert again.stats.skipped["branch-of-rejected"] == 2
