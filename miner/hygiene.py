"""Corpus hygiene: never propose a fix twice (by sha or patch-id), and remember what was scanned."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus.errors import CorpusError
from corpus.layout import CASE_FILE, SCAN_STATE_FILE, Kind
from corpus.store import Corpus
from corpus.yamlio import load_yaml
from miner.gitbatch import first_parents, patch_ids_of

FIX_COMMIT_LINE = re.compile(r"^fix_commit:\s*['\"]?([0-9a-f]{40}(?:[0-9a-f]{24})?)['\"]?\s*$", re.MULTILINE)


@dataclass
class Known:
    """Fix commits the corpus already holds, and why each is known (case, candidate, rejected)."""

    by_sha: dict[str, str] = field(default_factory=dict)
    """Fix sha -> where it is known."""
    patch_ids: dict[str, str] = field(default_factory=dict)
    """Patch id -> where it is known."""
    patch_ids_ready: bool = False
    """Whether patch_ids were computed for the corpus's commits."""


def _fix_commit_of(corpus: Corpus, kind: Kind, case_id: str) -> str:
    """A case's fix commit, read without a full YAML parse; a file that does not match is loaded properly."""
    path = corpus.root / kind / case_id / CASE_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    match = FIX_COMMIT_LINE.search(text)
    if match:
        return match.group(1)
    return corpus.load(case_id, kind).case.fix_commit


def known_commits(corpus: Corpus | None) -> Known:
    """Every fix commit in cases/, candidates/ and rejected.yaml, with rejected patch ids."""
    known = Known()
    if corpus is None:
        return known
    for rejection in corpus.rejections():
        known.by_sha.setdefault(rejection.fix_commit, "rejected")
        if rejection.patch_id:
            known.patch_ids.setdefault(rejection.patch_id, "rejected")
    kinds: tuple[tuple[Kind, str], ...] = (("cases", "case"), ("candidates", "candidate"))
    for kind, label in kinds:
        for case_id in corpus.ids(kind):
            known.by_sha.setdefault(_fix_commit_of(corpus, kind, case_id), label)
    return known


def add_corpus_patch_ids(known: Known, repo: Path) -> None:
    """Compute patch ids of the corpus's fix commits (against their first parent) in one batch."""
    if known.patch_ids_ready:
        return
    known.patch_ids_ready = True
    pairs = list(first_parents(repo, known.by_sha).items())
    if not pairs:
        return
    for sha, patch_id in patch_ids_of(repo, pairs).items():
        known.patch_ids.setdefault(patch_id, known.by_sha[sha])


# -- scan state ----------------------------------------------------------------------------------------


def state_key(repo: Path) -> str:
    """The key a repository's scan state is kept under: its resolved path."""
    return str(repo.resolve())


def read_state(corpus_root: Path) -> dict[str, Any]:
    """scan-state.yaml as plain data (empty when absent)."""
    path = corpus_root / SCAN_STATE_FILE
    if not path.exists():
        return {}
    data = load_yaml(path)
    if data is None:
        return {}
    if not isinstance(data, dict) or not isinstance(data.get("repositories", {}), dict):
        raise CorpusError(path, "expected a mapping with `repositories`")
    return {"repositories": {str(k): dict(v) for k, v in (data.get("repositories") or {}).items()
                             if isinstance(v, dict)}}
