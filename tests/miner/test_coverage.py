"""Scans restricted by date or revisions leave the rest of history to the next scan; the summary names the span."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from corpus.layout import SCAN_STATE_FILE
from corpus.yamlio import load_yaml
from miner.cli import cli
from tests.testing.gitrepo import GitRepo, git_env
from tests.testing.minerrepos import base_repo, numbered_fix

FIXES = 6
"""Fix commits on 2024-01-03 .. 2024-01-08 (committer dates), after the base commit of 2024-01-02."""


@pytest.fixture
def history(tmp_path: Path) -> tuple[GitRepo, list[str]]:
    """A base commit and FIXES numbered fixes, one a day; returns the repo and the fix shas, oldest first."""
    repo = base_repo(tmp_path / "repo")
    return repo, [numbered_fix(repo, number) for number in range(1, FIXES + 1)]


def scan(tmp_path: Path, repo: GitRepo, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    """`miner scan --json` into tmp_path/evals; its document."""
    code = run_cli(cli, "miner", ["scan", "--repo", str(repo.path), "--corpus", str(tmp_path / "evals"), "--json",
                                  *extra])
    out, err = capsys.readouterr()
    assert code == ExitCode.OK, err
    return json.loads(out)


def fixes_of(document: dict) -> set[str]:
    return {candidate["fix_commit"] for candidate in document["candidates"]}


def covered(tmp_path: Path, repo: GitRepo) -> list[dict]:
    state = load_yaml(tmp_path / "evals" / SCAN_STATE_FILE)
    return [dict(entry) for entry in state["repositories"][str(repo.path.resolve())]["covered"]]


def test_after_a_since_scan_the_next_scan_reads_the_older_history(
        tmp_path: Path, history: tuple[GitRepo, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    repo, fixes = history
    recent = scan(tmp_path, repo, capsys, "--since", "2024-01-06 00:00 +0000")
    assert recent["stats"]["commits_scanned"] == 3 and fixes_of(recent) == set(fixes[3:])
    assert recent["stats"]["tip"] is None
    [entry] = covered(tmp_path, repo)
    assert (entry["revs"], entry["since"], "until" in entry) == ([fixes[-1]], "2024-01-06T00:00:00+00:00", False)
    rest = scan(tmp_path, repo, capsys)
    assert rest["stats"]["commits_scanned"] == 4  # the base and the three older fixes, nothing twice
    assert fixes_of(rest) == set(fixes[:3]) and rest["stats"]["skipped"] == {"root-commit": 1}
    assert [e["revs"] for e in covered(tmp_path, repo)] == [[fixes[-1]]]  # one whole history now
    nothing = scan(tmp_path, repo, capsys)
    assert nothing["stats"]["commits_scanned"] == 0 and nothing["stats"]["span"] is None


def test_after_an_until_scan_the_next_scan_reads_the_newer_history(
        tmp_path: Path, history: tuple[GitRepo, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    repo, fixes = history
    old = scan(tmp_path, repo, capsys, "--until", "2024-01-04 00:00 +0000")
    assert old["stats"]["commits_scanned"] == 3 and fixes_of(old) == set(fixes[:2])
    newer = numbered_fix(repo, 99)  # history grows meanwhile
    rest = scan(tmp_path, repo, capsys)
    assert rest["stats"]["commits_scanned"] == FIXES - 2 + 1
    assert fixes_of(rest) == {*fixes[2:], newer}


def test_two_date_windows_then_the_gaps(tmp_path: Path, history: tuple[GitRepo, list[str]],
                                        capsys: pytest.CaptureFixture[str]) -> None:
    repo, fixes = history
    first = scan(tmp_path, repo, capsys, "--since", "2024-01-04 00:00 +0000", "--until", "2024-01-04 00:00 +0000")
    second = scan(tmp_path, repo, capsys, "--since", "2024-01-07 00:00 +0000", "--until", "2024-01-07 00:00 +0000")
    assert first["stats"]["commits_scanned"] == second["stats"]["commits_scanned"] == 1
    assert (fixes_of(first), fixes_of(second)) == ({fixes[1]}, {fixes[4]})
    assert len(covered(tmp_path, repo)) == 2
    rest = scan(tmp_path, repo, capsys)
    assert rest["stats"]["commits_scanned"] == FIXES + 1 - 2
    assert fixes_of(rest) == set(fixes) - {fixes[1], fixes[4]}


def test_after_a_rev_range_scan_the_next_scan_reads_the_rest(
        tmp_path: Path, history: tuple[GitRepo, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    repo, fixes = history
    middle = scan(tmp_path, repo, capsys, "--rev", f"{fixes[1]}..{fixes[3]}")
    assert fixes_of(middle) == {fixes[2], fixes[3]}
    [entry] = covered(tmp_path, repo)
    assert entry["revs"] == [fixes[3], f"^{fixes[1]}"]
    rest = scan(tmp_path, repo, capsys)
    assert rest["stats"]["commits_scanned"] == FIXES + 1 - 2
    assert fixes_of(rest) == set(fixes) - {fixes[2], fixes[3]}


def test_the_committer_date_decides(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A commit written long ago and committed (rebased) recently counts by its commit date, as git's --since."""
    repo = base_repo(tmp_path / "repo")
    env = {**git_env(), "GIT_AUTHOR_DATE": "1600000000 +0000", "GIT_COMMITTER_DATE": "1706745600 +0000"}
    numbered_fix(repo, 1)
    repo.write({"app/late.py": "def late(x):\n    return x\n", "tests/test_late.py": "def test_late():\n    pass\n"})
    repo.git("add", "-A")
    subprocess.run(["git", "commit", "-q", "-m", "Fix late bug"], cwd=repo.path, env=env, check=True)
    late = repo.head()
    recent = scan(tmp_path, repo, capsys, "--since", "2024-01-20 00:00 +0000")
    assert fixes_of(recent) == {late}
    assert recent["stats"]["span"]["newest"] == {"sha": late, "date": "2024-02-01T00:00:00+00:00"}
    rest = scan(tmp_path, repo, capsys)
    assert rest["stats"]["commits_scanned"] == 2 and late not in fixes_of(rest)


def test_full_rescans_covered_history_and_keeps_one_entry(
        tmp_path: Path, history: tuple[GitRepo, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    repo, fixes = history
    scan(tmp_path, repo, capsys, "--since", "2024-01-06 00:00 +0000")
    full = scan(tmp_path, repo, capsys, "--full")
    assert full["stats"]["commits_scanned"] == FIXES + 1
    assert full["stats"]["skipped"]["already-candidate"] == 3
    assert [e["revs"] for e in covered(tmp_path, repo)] == [[fixes[-1]]]


def test_a_state_of_only_a_tip_still_counts_as_covered(
        tmp_path: Path, history: tuple[GitRepo, list[str]], capsys: pytest.CaptureFixture[str]) -> None:
    repo, fixes = history
    evals = tmp_path / "evals"
    scan(tmp_path, repo, capsys, "--rev", fixes[2])
    (evals / SCAN_STATE_FILE).write_text(f"repositories:\n  {repo.path.resolve()}:\n    tip: {fixes[2]}\n"
                                         "    scanned_at: '2024-05-01T10:00:00+00:00'\n    commits_scanned: 4\n")
    rest = scan(tmp_path, repo, capsys)
    assert fixes_of(rest) == set(fixes[3:]) and rest["stats"]["commits_scanned"] == 3


@pytest.mark.parametrize(("edit", "message"), [
    (("since: ", "since: not a date # "), "covered: not a covered range"),
    (("      - revs:\n          - ", "      - revs:\n          - --output=/tmp/x\n          - "),
     "covered: expected full commit shas (^ for an excluded one), found '--output=/tmp/x'"),
], ids=["date", "rev"])
def test_a_malformed_covered_list_is_a_one_line_error(
        tmp_path: Path, history: tuple[GitRepo, list[str]], capsys: pytest.CaptureFixture[str],
        edit: tuple[str, str], message: str) -> None:
    repo, _ = history
    scan(tmp_path, repo, capsys, "--since", "2024-01-06 00:00 +0000")
    state = tmp_path / "evals" / SCAN_STATE_FILE
    text = state.read_text()
    assert edit[0] in text
    state.write_text(text.replace(*edit))
    code = run_cli(cli, "miner", ["scan", "--repo", str(repo.path), "--corpus", str(tmp_path / "evals")])
    err = capsys.readouterr().err
    assert code == ExitCode.BAD_INPUT and err.count("\n") == 1
    assert err.startswith(f"miner: error: {state}:4: {message}")


def test_the_summary_names_the_span_scanned(tmp_path: Path, history: tuple[GitRepo, list[str]],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    repo, fixes = history
    args = ["scan", "--repo", str(repo.path), "--corpus", str(tmp_path / "evals")]
    window = ["--since", "2024-01-05 00:00 +0000", "--until", "2024-01-07 00:00 +0000"]
    assert run_cli(cli, "miner", [*args, *window]) == ExitCode.OK
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"scanned 3 commits from 2024-01-05 to 2024-01-07 ({fixes[2][:7]}..{fixes[4][:7]}) in ")
    assert run_cli(cli, "miner", args) == ExitCode.OK
    base = repo.git("rev-parse", "HEAD~6")
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith(f"scanned 4 commits from 2024-01-02 to 2024-01-08 ({base[:7]}..{fixes[5][:7]}) in ")
