"""Fingerprints: what a run was measured on, independent of YAML formatting."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict
from typing import Any

from corpus.model import Case, CaseFiles
from corpus.schema import to_full_mapping


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def case_fingerprint(case: Case, files: CaseFiles) -> str:
    """sha256 of what defines a trial: task (its further wordings when it has any), commits, setup, grader, oracle patch, grader files and the behaviour
    checks (max_turns, bait, trajectory), the HTTP fixture with its responses and the scorecard's checks
    (allowed_paths, invariants, invariant_policy) when the case sets them."""
    canonical = {"id": case.id, "prompt": case.prompt, **_proven(case, files)}
    if case.prompts:  # every wording a trial may be given, in order (a case with one keeps its fingerprint)
        canonical["prompts"] = [asdict(wording) for wording in case.prompts]
    # The behaviour checks decide trials too; only a case that sets one gets the key, so the fingerprints of
    # every other case stay what they were before the checks existed.
    if case.max_turns is not None:
        canonical["max_turns"] = case.max_turns
    for key, value in (("bait", case.bait), ("trajectory", case.trajectory), ("http_fixture", case.http_fixture)):
        if value is not None:
            canonical[key] = asdict(value)
    if case.http_fixture is not None:  # the canned responses are what the agent and the grader are answered
        canonical["http_files"] = {path: _sha256(content) for path, content in files.http_files}
    # The scorecard's checks likewise (risk_flags are labels, like tags: they decide nothing).
    if case.allowed_paths:
        canonical["allowed_paths"] = list(case.allowed_paths)
    if case.invariants:
        canonical["invariants"] = [asdict(invariant) for invariant in case.invariants]
    if case.invariant_policy != "advisory":
        canonical["invariant_policy"] = case.invariant_policy
    return _sha256(json.dumps(canonical, sort_keys=True, separators=(",", ":")).encode("utf-8"))


def _proven(case: Case, files: CaseFiles) -> dict[str, Any]:
    """What both fingerprints hold: the commits, setup, grader, oracle patch and grader files."""
    return {
        "base_commit": case.base_commit,
        "fix_commit": case.fix_commit,
        "setup": to_full_mapping(case.setup),
        "grader": to_full_mapping(case.grader),
        "oracle_patch": _sha256(files.oracle_patch),
        "grader_files": {path: _sha256(content) for path, content in files.grader_files},
    }


def verified_fingerprint(case: Case, files: CaseFiles) -> str:
    """sha256 of what `runner verify` measures of a case: commits, setup, grader, oracle patch, grader files, the
    HTTP fixture with its responses and the invariants (the oracle must keep them). Not the prompt, the title or
    the labels: an edit of those leaves a verdict standing."""
    canonical = {
        **_proven(case, files),
        "http_fixture": asdict(case.http_fixture) if case.http_fixture is not None else None,
        "http_files": {path: _sha256(content) for path, content in files.http_files},
        "invariants": [asdict(invariant) for invariant in case.invariants],
    }
    return _sha256(json.dumps(canonical, sort_keys=True, separators=(",", ":")).encode("utf-8"))


def dataset_fingerprint(pairs: Iterable[tuple[str, str]]) -> str:
    """sha256 over the sorted (case id, case fingerprint) pairs of the active cases."""
    lines = "".join(f"{case_id}\t{fp}\n" for case_id, fp in sorted(pairs))
    return _sha256(lines.encode("utf-8"))


EMPTY_DATASET = hashlib.sha256(b"").hexdigest()
"""The dataset fingerprint of no active case: nothing to tell two corpora apart by."""


def shown_fingerprint(fingerprint: str) -> str:
    """A dataset fingerprint as printed: the empty dataset's says so instead of passing for a real one."""
    return "none (no active case)" if fingerprint == EMPTY_DATASET else fingerprint


def corpus_fingerprint(stored: Iterable[tuple[Case, CaseFiles]]) -> str:
    """The dataset fingerprint of the active cases among stored."""
    return dataset_fingerprint(
        (case.id, case_fingerprint(case, files)) for case, files in stored if case.status == "active"
    )
