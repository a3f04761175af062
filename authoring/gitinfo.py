"""What the review needs from the source repository, when it can be reached: all optional, all cached."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

from authoring.leaks import InBase
from corpus import Case, Corpus, GitError, UsageError
from corpus.gitutil import open_repository, run_git
from corpus.patchid import patch_id as corpus_patch_id


def source_repo(corpus: Corpus) -> Path | None:
    """The corpus's source repository, or None when it is not configured or not a git work tree."""
    try:
        return open_repository(corpus.repo_path())
    except (UsageError, GitError):
        return None


def base_probe(repo: Path | None, base_commit: str) -> InBase | None:
    """A check whether an identifier already exists (as a whole word) anywhere at the base revision."""
    if repo is None:
        return None

    def in_base(name: str) -> bool:
        return _in_tree(str(repo), base_commit, name)

    return in_base


@lru_cache(maxsize=4096)
def _in_tree(repo: str, commit: str, name: str) -> bool:
    proc = run_git(["grep", "-q", "-w", "-F", "-e", name, commit, "--"], repo, check=False)
    return proc.returncode == 0


def fix_message(repo: Path | None, case: Case) -> str | None:
    """The fix commit's message from the repository, for a case whose provenance records none (else None: the
    lint reads the provenance's)."""
    if repo is None or (case.mined is not None and case.mined.message.strip()):
        return None
    return _message(str(repo), case.fix_commit)


@lru_cache(maxsize=1024)
def _message(repo: str, commit: str) -> str | None:
    proc = run_git(["log", "-1", "--format=%B", commit, "--"], repo, check=False)
    return proc.stdout.decode("utf-8", "replace") if proc.returncode == 0 else None


def patch_id(repo: Path | None, base_commit: str, fix_commit: str) -> str | None:
    """The fix's patch id (`corpus.patchid`), the one the miner compares: None without the repository."""
    return None if repo is None else corpus_patch_id(repo, base_commit, fix_commit)


def grader_diff(repo: Path | None, base_commit: str, fix_commit: str, paths: Sequence[str]) -> str | None:
    """The fix's diff of the grader paths (what the hidden test changed), or None without the repository."""
    if repo is None or not paths:
        return None
    proc = run_git(["diff", base_commit, fix_commit, "--", *paths], repo, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", "replace")
