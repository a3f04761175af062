"""The shared case model and on-disk corpus format."""

from corpus.errors import CorpusError, GitError, GradingError, HindcastError, UsageError, WorkspaceError
from corpus.fingerprint import case_fingerprint, corpus_fingerprint, dataset_fingerprint
from corpus.model import Case, CaseFiles, CorpusConfig, Defaults, Grader, Provenance, Rejection, Setup
from corpus.store import Corpus, StoredCase, check_id

__all__ = [
    "Case", "CaseFiles", "Corpus", "CorpusConfig", "CorpusError", "Defaults", "GitError", "Grader",
    "GradingError", "HindcastError", "Provenance", "Rejection", "Setup", "StoredCase", "UsageError",
    "WorkspaceError", "case_fingerprint", "check_id", "corpus_fingerprint", "dataset_fingerprint",
]

__version__ = "0.1.0"
