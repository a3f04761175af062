"""A proposed case: the corpus `Case` (with provenance) and its hidden files, built from an extraction."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.model import Case, CaseFiles, Defaults, Grader, Provenance, Setup
from corpus.store import read_case_files
from miner.environment import Environment
from miner.extract import Extraction
from miner.prompt import candidate_id, draft_prompt, title_of
from miner.szz import Introduced


@dataclass(frozen=True)
class Candidate:
    """One candidate case as written to candidates/<id>/."""

    case: Case
    """The case, with `mined` provenance and a draft prompt."""
    files: CaseFiles | None
    """Oracle patch and grader files; None once they are written (they are then read back from path: see
    `read_files`), so a scan does not keep every candidate's files in memory."""
    test_ids: tuple[str, ...]
    """Tests the fix added or changed (proposed fail-to-pass), in the framework's naming."""
    patch_id: str | None
    """`git patch-id --stable` of the first-parent diff."""
    grader_inferred: bool = True
    """False when the grader command is a failing placeholder."""
    path: Path | None = None
    """Where it was written."""

    def read_files(self) -> CaseFiles:
        """The oracle patch and grader files: the ones held, or else those written at path."""
        if self.files is not None:
            return self.files
        if self.path is None:
            raise UsageError(f"candidate {self.case.id}: its files are neither held nor written")
        return read_case_files(self.path)

    def to_json(self) -> dict[str, Any]:
        """Plain data for --json."""
        case, mined = self.case, self.case.mined or Provenance()
        return {
            "id": case.id,
            "title": case.title,
            "fix_commit": case.fix_commit,
            "base_commit": case.base_commit,
            "merge": mined.merge,
            "branch_commits": list(mined.branch_commits),
            "score": mined.score,
            "evidence": list(mined.evidence),
            "test_files": list(mined.test_files),
            "source_files": list(mined.source_files),
            "omitted_files": list(mined.omitted_files),
            "deleted_tests": list(case.grader.deleted),
            "grader_command": case.grader.command,
            "grader_inferred": self.grader_inferred,
            "junit": case.grader.junit,
            "fail_to_pass": list(case.grader.fail_to_pass),
            "test_ids": list(self.test_ids),
            "trigger_paths": list(case.trigger_paths),
            "patch_id": self.patch_id,
            "introducing_commits": list(mined.introducing_commits),
            "escape_days": mined.escape_days,
            "setup": {"python": case.setup.python, "command": case.setup.command},
            "setup_origin": list(mined.setup_origin),
            "path": str(self.path) if self.path else None,
        }


def fix_directories(paths: tuple[str, ...]) -> tuple[str, ...]:
    """The allowed_paths the miner proposes: each directory the fix's source changes are in (`src/shop/`), and a
    file at the top of the repository by itself (allowing its directory would allow everything)."""
    proposed = {path.rsplit("/", 1)[0] + "/" if "/" in path else path for path in paths}
    return tuple(sorted(proposed))


def build_candidate(extraction: Extraction, taken: set[str], defaults: Defaults | None,
                    introduced: Introduced | None = None, environment: Environment | None = None) -> Candidate:
    """The candidate for an extraction; its id is unique among taken; environment is its inferred setup."""
    commit = extraction.commit
    suggestion = extraction.suggestion
    title = title_of(commit.message, commit.is_merge)
    test_paths = (*extraction.grader_files, *extraction.deleted_tests)
    test_names = [ref.name for ref in extraction.tests]
    provenance = Provenance(
        score=extraction.score,
        evidence=extraction.evidence,
        subject=commit.subject,
        message=commit.message.strip(),
        authored=commit.authored or None,
        test_files=tuple(sorted(test_paths)),
        source_files=extraction.oracle_paths,
        omitted_files=extraction.omitted,
        introducing_commits=introduced.introducing if introduced else (),
        escape_days=introduced.escape_days if introduced else None,
        merge=commit.is_merge,
        setup_origin=environment.origin if environment else (),
    )
    defaults = defaults or Defaults()
    case = Case(
        id=candidate_id(title, commit.sha, taken),
        title=title,
        prompt=draft_prompt(commit.message, is_merge=commit.is_merge, test_paths=test_paths,
                            test_names=test_names),
        base_commit=extraction.base,
        fix_commit=commit.sha,
        grader=Grader(command=suggestion.command, junit=suggestion.junit, fail_to_pass=suggestion.fail_to_pass,
                      deleted=extraction.deleted_tests),
        owner=defaults.owner,
        policy=defaults.policy,
        setup=Setup(command=environment.command, python=environment.python) if environment else Setup(),
        trigger_paths=extraction.source_paths,
        allowed_paths=fix_directories(extraction.oracle_paths),
        mined=provenance,
    )
    files = CaseFiles.of(extraction.oracle_patch, extraction.grader_files)
    return Candidate(case, files, suggestion.test_ids, extraction.patch_id, suggestion.inferred)


def with_id(candidate: Candidate, taken: set[str]) -> Candidate:
    """The candidate with the id `build_candidate` gives it among taken (the same but for a collision)."""
    case_id = candidate_id(candidate.case.title, candidate.case.fix_commit, taken)
    if case_id == candidate.case.id:
        return candidate
    return replace(candidate, case=replace(candidate.case, id=case_id))


def with_introduced(candidate: Candidate, introduced: Introduced | None) -> Candidate:
    """The candidate with SZZ's answer in its provenance, as `build_candidate` records it."""
    mined = candidate.case.mined
    if introduced is None or mined is None:
        return candidate
    mined = replace(mined, introducing_commits=introduced.introducing, escape_days=introduced.escape_days)
    return replace(candidate, case=replace(candidate.case, mined=mined))


def with_branches(candidate: Candidate, branch_commits: tuple[str, ...]) -> Candidate:
    """The candidate with its merge's branch commits in its provenance."""
    mined = candidate.case.mined
    if not branch_commits or mined is None:
        return candidate
    return replace(candidate, case=replace(candidate.case, mined=replace(mined, branch_commits=branch_commits)))
