"""Approve, reject, skip and undo: every decision an author makes, as plain functions over a Corpus.

Each decision returns a `Decision` that holds enough to take it back: the candidate's files byte for byte,
the case directory a save replaced, the exact case.yaml bytes written (so undo refuses to clobber an edit
made after it), and the rejection entry appended.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from authoring.draft import Draft, apply_draft
from authoring.leaks import Finding, InBase, blocking, find_leaks
from authoring.wordingtext import parse_wordings, wording_leaks
from corpus import Case, Corpus, HindcastError, Rejection, StoredCase, UsageError
from corpus.fingerprint import case_fingerprint, verified_fingerprint
from corpus.fsutil import atomic_write_bytes, replace_directory, staging_directory
from corpus.layout import CASE_FILE, REJECTED_FILE, VERIFICATION_FILE
from corpus.schema import to_mapping
from corpus.verdicts import RecordedVerdict, candidate_verdict, case_verdicts, write_case_verdicts
from corpus.yamlio import load_yaml, write_yaml

Action = Literal["approve", "reject", "skip", "save"]


class LeakRefused(HindcastError):
    """Approval refused: findings remain, without a justification or of a kind none can override."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        self.blocking = blocking(findings)
        if self.blocking:
            message = (f"approval refused: {len(self.blocking)} finding(s) that must never ship "
                       f"(secrets, personal data, internal hosts, the draft marker); remove them from the prompt")
        else:
            message = (f"approval refused: {len(findings)} leakage finding(s) in the prompt"
                       f"{' and its wordings' if any(f.wording != 'prompt' for f in findings) else ''}; "
                       f"fix them or override with a written justification")
        super().__init__(message)


@dataclass(frozen=True)
class Snapshot:
    """A case directory's files, byte for byte, to put back on undo."""

    files: tuple[tuple[str, bytes], ...]
    """(path relative to the directory, content) of every regular file."""

    @staticmethod
    def of(directory: Path) -> Snapshot:
        """Read every file under directory."""
        return Snapshot(tuple((path.relative_to(directory).as_posix(), path.read_bytes())
                              for path in sorted(directory.rglob("*")) if path.is_file()))

    def restore(self, target: Path) -> None:
        """Write the files into a staging directory beside target and rename it into place."""
        staged = staging_directory(target.parent, target.name)
        try:
            for relative, content in self.files:
                atomic_write_bytes(staged / relative, content)
            replace_directory(staged, target)
        except BaseException:
            shutil.rmtree(staged, ignore_errors=True)
            raise


@dataclass(frozen=True)
class Decision:
    """One decision, and what undoing it needs."""

    action: Action
    """What the author did."""
    candidate_id: str
    """The candidate decided on (for a save, the case edited)."""
    case_id: str | None = None
    """The case written by an approve or save."""
    candidate: Snapshot | None = None
    """The candidate's directory as it was before approve or reject removed it."""
    previous_case: Snapshot | None = None
    """The case directory a save replaced."""
    written: bytes | None = None
    """case.yaml exactly as the approve or save wrote it."""
    rejection: Rejection | None = None
    """The entry a reject appended to rejected.yaml."""
    rejections_before: bytes | None = None
    """rejected.yaml before the reject (None when there was none)."""
    rejections_after: bytes | None = None
    """rejected.yaml right after the reject."""
    draft: Draft | None = None
    """What the author had typed when deciding (undo brings it back as the draft in progress)."""
    carried: RecordedVerdict | None = None
    """The candidate's verify verdict an approve carried into verification.json (it changed nothing verify
    measures); undo takes it out again."""

    def policy_words(self) -> str:
        """The policy an approved case gets, and what it means for the gate."""
        if self.draft is not None and self.draft.critical:
            return "critical: any regression blocks the gate"
        if self.draft is not None and self.draft.policy == "blocking":
            return "blocking: a significant drop blocks the gate"
        return "advisory: the gate warns on it, never blocks"

    def describe(self) -> str:
        """A short past-tense sentence for a status line."""
        if self.action == "approve":
            return f"approved {self.candidate_id} as cases/{self.case_id} ({self.policy_words()})"
        if self.action == "reject":
            return f"rejected {self.candidate_id}"
        if self.action == "save":
            return f"saved cases/{self.case_id}"
        return f"skipped {self.candidate_id}"


def check_prompt(case: StoredCase, draft: Draft, override: str | None, in_base: InBase | None,
                 fix_message: str | None = None) -> str | None:
    """The leak_override to store for draft, or LeakRefused; an override with nothing to override is dropped."""
    findings = find_leaks(draft.prompt, case.case, case.files, in_base, fix_message)
    prompts = parse_wordings(draft.wordings, replace(case.case, prompt=draft.prompt))
    findings += wording_leaks(prompts, case.case, case.files, in_base, fix_message)
    if not findings:
        return None
    if blocking(findings):
        raise LeakRefused(findings)
    justification = (override or "").strip()
    if not justification:
        raise LeakRefused(findings)
    return justification


def with_setup_origin(before: Case, after: Case) -> Case:
    """after, its provenance's setup origin saying which setup fields the author changed from before's."""
    mined = after.mined
    if mined is None or (before.setup.python, before.setup.command) == (after.setup.python, after.setup.command):
        return after
    lines = list(mined.setup_origin)
    for field, old, new in (("python", before.setup.python, after.setup.python),
                            ("command", before.setup.command, after.setup.command)):
        if old != new:
            lines = [line for line in lines if not line.startswith(field)]
            lines.append(f"{field} {new}: set by the author" if field == "python" and new else
                         f"{field}: {'set' if new else 'removed'} by the author")
    return replace(after, mined=replace(mined, setup_origin=tuple(lines)))


def approve(corpus: Corpus, candidate_id: str, draft: Draft, *, override: str | None = None,
            expect_mtime_ns: int | None = None, in_base: InBase | None = None,
            fix_message: str | None = None) -> Decision:
    """Write the candidate as cases/<draft.id>/ and remove the candidate."""
    stored = corpus.load(candidate_id, "candidates")
    if expect_mtime_ns is not None and stored.mtime_ns != expect_mtime_ns:
        raise UsageError(f"{stored.directory / CASE_FILE}: changed on disk since it was opened; "
                         f"reload it, nothing was written")
    case = with_setup_origin(stored.case, apply_draft(stored.case, draft))
    target = corpus.root / "cases" / case.id
    if target.exists():
        raise UsageError(f"cases/{case.id} already exists; choose another id, nothing was written")
    case = replace(case, leak_override=check_prompt(stored, draft, override, in_base, fix_message))
    snapshot = Snapshot.of(stored.directory)
    corpus.write(case, stored.files, "cases")
    approved = corpus.load(case.id, "cases")
    carried = standing_verdict(candidate_verdict(stored.directory), stored, approved)
    if carried is not None:  # the verdict speaks of the case as approved: it is not lost with the candidate
        carried = replace(carried, case_fingerprint=case_fingerprint(approved.case, approved.files))
        write_case_verdicts(corpus.root, {case.id: carried}, None, datetime.now(UTC).isoformat(timespec="seconds"))
    corpus.remove(candidate_id, "candidates")
    return Decision("approve", candidate_id, case.id, candidate=snapshot,
                    written=(target / CASE_FILE).read_bytes(), draft=draft, carried=carried)


def standing_verdict(verdict: RecordedVerdict | None, candidate: StoredCase,
                     approved: StoredCase) -> RecordedVerdict | None:
    """The candidate's recorded verify verdict when it still speaks of the approved case (the approval changed
    nothing verify measures, only the prompt, title or labels), else None."""
    if verdict is None:
        return None
    same = verified_fingerprint(candidate.case, candidate.files) == verified_fingerprint(approved.case,
                                                                                         approved.files)
    return verdict if same else None


def save(corpus: Corpus, case_id: str, draft: Draft, *, override: str | None = None,
         expect_mtime_ns: int | None = None, in_base: InBase | None = None,
         fix_message: str | None = None) -> Decision:
    """Write edits to an existing case in place (its comments and key order survive)."""
    stored = corpus.load(case_id, "cases")
    if draft.id != case_id:
        raise UsageError(f"cases/{case_id}: a case keeps its id (it names its results); nothing was written")
    case = with_setup_origin(stored.case, apply_draft(stored.case, draft))
    try:
        leak_override = check_prompt(stored, draft, override, in_base, fix_message)
    except LeakRefused as refused:
        if refused.blocking or not stored.case.leak_override:
            raise
        leak_override = stored.case.leak_override  # the justification on file still stands
    previous = Snapshot.of(stored.directory)
    corpus.write(replace(case, leak_override=leak_override), stored.files, "cases",
                 expect_mtime_ns=expect_mtime_ns if expect_mtime_ns is not None else stored.mtime_ns)
    return Decision("save", case_id, case_id, previous_case=previous,
                    written=(stored.directory / CASE_FILE).read_bytes(), draft=draft)


def keep_draft(corpus: Corpus, candidate_id: str, draft: Draft, *, expect_mtime_ns: int | None = None) -> None:
    """Write a draft in progress into the candidate's own case.yaml, so the next review starts from it.

    The candidate keeps its id (its directory name; the id typed in the form applies on approval only), and
    nothing is linted: a candidate is not shipped. A candidate changed on disk since it was opened is refused.
    The candidate's verify verdict stays when the draft changes nothing verify measured (a prompt, a title).
    """
    stored = corpus.load(candidate_id, "candidates")
    case = with_setup_origin(stored.case, apply_draft(stored.case, replace(draft, id=candidate_id)))
    unmeasured = verified_fingerprint(case, stored.files) == verified_fingerprint(stored.case, stored.files)
    corpus.write(case, stored.files, "candidates", keep=(VERIFICATION_FILE,) if unmeasured else (),
                 expect_mtime_ns=expect_mtime_ns if expect_mtime_ns is not None else stored.mtime_ns)


def reject(corpus: Corpus, candidate_id: str, reason: str, *, patch_id: str | None = None,
           now: datetime | None = None) -> Decision:
    """Record the candidate's fix commit in rejected.yaml (so it is never proposed again) and remove it."""
    if not reason.strip():
        raise UsageError("a rejection needs a reason (it is kept in rejected.yaml)")
    stored = corpus.load(candidate_id, "candidates")
    stamp = (now or datetime.now(UTC)).isoformat(timespec="seconds")
    rejection = Rejection(fix_commit=stored.case.fix_commit, reason=" ".join(reason.split()),
                          candidate_id=candidate_id, patch_id=patch_id, rejected_at=stamp)
    snapshot = Snapshot.of(stored.directory)
    path = corpus.root / REJECTED_FILE
    before = path.read_bytes() if path.exists() else None
    corpus.add_rejection(rejection)
    corpus.remove(candidate_id, "candidates")
    return Decision("reject", candidate_id, candidate=snapshot, rejection=rejection, rejections_before=before,
                    rejections_after=path.read_bytes())


def skip(candidate_id: str) -> Decision:
    """Leave the candidate for later; nothing on disk changes."""
    return Decision("skip", candidate_id)


def undo(corpus: Corpus, decision: Decision) -> None:
    """Take a decision back; refuses (changing nothing) when what it wrote was edited since."""
    candidate_dir = corpus.root / "candidates" / decision.candidate_id
    if decision.candidate is not None and candidate_dir.exists():
        raise UsageError(f"candidates/{decision.candidate_id} exists again; nothing was undone")
    if decision.action in ("approve", "save"):
        case_dir = corpus.root / "cases" / str(decision.case_id)
        path = case_dir / CASE_FILE
        if not path.exists() or path.read_bytes() != decision.written:
            raise UsageError(f"{path}: changed since {decision.describe()}; nothing was undone")
        if decision.previous_case is not None:
            decision.previous_case.restore(case_dir)
        else:
            corpus.remove(str(decision.case_id), "cases")
        if decision.carried is not None and case_verdicts(corpus.root).get(str(decision.case_id)) == decision.carried:
            write_case_verdicts(corpus.root, {}, None, datetime.now(UTC).isoformat(timespec="seconds"),
                                drop=(str(decision.case_id),))
    if decision.rejection is not None:
        _take_back_rejection(corpus, decision)
    if decision.candidate is not None:
        decision.candidate.restore(candidate_dir)


def _take_back_rejection(corpus: Corpus, decision: Decision) -> None:
    """Put rejected.yaml back as it was; if it changed since, remove just this decision's entry."""
    assert decision.rejection is not None
    path = corpus.root / REJECTED_FILE
    if path.exists() and path.read_bytes() == decision.rejections_after:
        if decision.rejections_before is None:
            path.unlink()
        else:
            atomic_write_bytes(path, decision.rejections_before)
        return
    _drop_rejection(corpus, decision.rejection)


def _drop_rejection(corpus: Corpus, rejection: Rejection) -> None:
    """Remove the last entry of rejected.yaml equal to rejection; other entries and comments stay."""
    path = corpus.root / REJECTED_FILE
    document = load_yaml(path) if path.exists() else None
    items = document.get("rejected") if isinstance(document, dict) else None
    wanted = to_mapping(rejection)
    for index in range(len(items or []) - 1, -1, -1):
        assert items is not None
        if dict(items[index]) == wanted:
            del items[index]
            write_yaml(path, document)
            return
    raise UsageError(f"{path}: the rejection of {rejection.candidate_id} is no longer there; nothing was undone")
