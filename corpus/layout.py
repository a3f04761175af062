"""Names and shapes of the corpus directory, shared by the round-trip store and the fast new-case writer."""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any, Literal

from corpus.errors import UsageError
from corpus.model import HTTP_DIR as MODEL_HTTP_DIR
from corpus.model import SLUG, Case
from corpus.schema import to_mapping

Kind = Literal["cases", "candidates"]
"""The two folders of case directories: approved cases and the miner's candidates (each named by its kind)."""
CONFIG = "corpus.yaml"
CASE_FILE = "case.yaml"
ORACLE_FILE = "oracle.patch"
GRADER_DIR = "grader"
HTTP_DIR = MODEL_HTTP_DIR
"""The canned responses of a case's HTTP fixture, by their path under it."""
REJECTED_FILE = "rejected.yaml"
SCAN_STATE_FILE = "scan-state.yaml"
"""What the miner's scans covered (machine-written)."""
VERIFICATION_FILE = "verification.json"
"""The last `runner verify` verdict per case (machine-written)."""
RESULTS_DIR = "results"
"""Run directories, unless `--results-dir` says otherwise."""
KEY_ORDER = ("id", "title", "owner", "policy", "critical", "status", "deprecated_reason", "holdout",
             "base_commit", "fix_commit", "prompt", "prompts", "setup", "grader", "trigger_paths", "tags",
             "max_turns", "bait", "trajectory", "http_fixture", "allowed_paths", "invariants", "invariant_policy",
             "risk_flags", "leak_override", "mined")


def case_mapping(case: Case) -> dict[str, Any]:
    """The minimal mapping written to case.yaml, in a reading order that puts people's fields first."""
    raw = to_mapping(case)
    for required in ("id", "title", "prompt", "base_commit", "fix_commit", "grader"):
        raw.setdefault(required, to_mapping(getattr(case, required)))
    return {key: raw[key] for key in KEY_ORDER if key in raw}


def check_id(case_id: str, what: str = "id") -> str:
    """A case id must be a slug; anything path-like is refused before it touches the filesystem."""
    if not SLUG.match(case_id or ""):
        raise UsageError(f"{what} {case_id!r}: must be lowercase letters, digits and '-' (no paths)")
    return case_id


def repo_path(path: str, what: str = "path") -> PurePosixPath:
    """A repository-relative posix path; one that is absolute or steps anywhere but down (`..`, `.`, an empty
    part) is refused before anything is written or removed there."""
    pure = PurePosixPath(path)
    if pure.is_absolute() or any(part in ("..", ".", "") for part in path.split("/")):
        raise UsageError(f"{what} {path!r} escapes the repository")
    return pure


def default_corpus() -> Path:
    """The corpus a command uses without --corpus: ./evals, or the working directory itself when it is a corpus
    (holds corpus.yaml) and has no evals/ (a command run from inside the corpus)."""
    if not Path("evals").exists() and Path(CONFIG).is_file():
        return Path(".")
    return Path("evals")
