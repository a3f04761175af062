"""--min-score drops weak candidates, counted, and never writes them."""

from __future__ import annotations

from pathlib import Path

from miner.scan import ScanOptions, scan
from tests.testing.casefactory import build_repo


def test_min_score_drops_and_counts(tmp_path: Path) -> None:
    repo, _, fix = build_repo(tmp_path / "repo")
    everything = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "all"))
    [candidate] = everything.candidates
    assert candidate.case.fix_commit == fix
    score = candidate.case.mined.score if candidate.case.mined else 0.0

    kept = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "kept", min_score=score))
    assert [c.case.fix_commit for c in kept.candidates] == [fix]

    dropped = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "dropped", min_score=score + 0.25))
    assert dropped.candidates == [] and dropped.stats.skipped["below-min-score"] == 1
    candidates_dir = tmp_path / "dropped" / "candidates"
    assert not candidates_dir.exists() or list(candidates_dir.iterdir()) == []
