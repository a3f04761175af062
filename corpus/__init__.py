"""The shared case model and on-disk corpus format.

The names below load on first use (PEP 562), so importing one small module of the package (`corpus.errors`,
`corpus.gitutil`) does not pull in the YAML and model machinery: command lines start git before that.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from corpus.errors import CorpusError, ExitCode, GitError, HindcastError, UsageError, WorkspaceError
    from corpus.fingerprint import case_fingerprint, corpus_fingerprint, dataset_fingerprint
    from corpus.layout import check_id
    from corpus.model import Case, CaseFiles, CorpusConfig, Defaults, Grader, Provenance, Rejection, Setup
    from corpus.store import Corpus, StoredCase

_HOMES = {
    "corpus.errors": ("CorpusError", "ExitCode", "GitError", "HindcastError", "UsageError", "WorkspaceError"),
    "corpus.fingerprint": ("case_fingerprint", "corpus_fingerprint", "dataset_fingerprint"),
    "corpus.model": ("Case", "CaseFiles", "CorpusConfig", "Defaults", "Grader", "Provenance", "Rejection", "Setup"),
    "corpus.layout": ("check_id",),
    "corpus.store": ("Corpus", "StoredCase"),
}
_WHERE = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [
    "Case", "CaseFiles", "Corpus", "CorpusConfig", "CorpusError", "Defaults", "ExitCode", "GitError", "Grader",
    "HindcastError", "Provenance", "Rejection", "Setup", "StoredCase", "UsageError",
    "WorkspaceError", "case_fingerprint", "check_id", "corpus_fingerprint", "dataset_fingerprint",
]

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'corpus' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
