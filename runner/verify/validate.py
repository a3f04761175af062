"""`runner validate`: load every corpus file, check commits exist, compute the dataset fingerprint."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from corpus import Corpus, corpus_fingerprint
from corpus.errors import CorpusError
from corpus.gitutil import open_repository, run_git
from corpus.store import CASE_FILE


@dataclass(frozen=True)
class ValidationReport:
    """What validation found."""

    cases: int
    """Number of cases on disk."""
    active: int
    """Number of active cases."""
    candidates: int
    """Number of candidates awaiting review."""
    rejected: int
    """Number of rejected fix commits."""
    dataset_fingerprint: str
    """sha256 over the active cases."""


def validate(corpus: Corpus, repo_override: Path | None = None) -> ValidationReport:
    """Validate cases, candidates and rejected.yaml; every case's commits must exist in the source repo."""
    cases = corpus.load_all("cases")
    candidates = corpus.load_all("candidates")
    rejected = corpus.rejections()
    repo = open_repository(corpus.repo_path(repo_override))
    wanted = [(s, field, getattr(s.case, field)) for s in cases + candidates for field in ("base_commit", "fix_commit")]
    if wanted:
        query = "".join(f"{sha}^{{commit}}\n" for _, _, sha in wanted).encode()
        lines = run_git(["cat-file", "--batch-check"], repo, input=query).stdout.decode().splitlines()
        for (stored, field, sha), line in zip(wanted, lines):
            if line.endswith("missing") or " commit " not in f" {line} ":
                raise CorpusError(stored.directory / CASE_FILE, f"commit {sha} is not in the repository {repo}",
                                  field=field)
    return ValidationReport(
        cases=len(cases),
        active=sum(1 for s in cases if s.case.status == "active"),
        candidates=len(candidates),
        rejected=len(rejected),
        dataset_fingerprint=corpus_fingerprint((s.case, s.files) for s in cases),
    )
