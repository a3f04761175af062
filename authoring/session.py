"""One review session: the queue, the drafts in progress and the undo history; no Textual here."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import cached_property
from pathlib import Path

from authoring import decisions
from authoring.decisions import Decision
from authoring.draft import Draft, draft_from
from authoring.gitinfo import base_probe, fix_message, patch_id, source_repo
from authoring.leaks import Finding, InBase, find_leaks
from authoring.queue import SORTS, LeakCount, QueueRow, arrange, read_queue, read_row
from authoring.wordingtext import typed_leaks
from corpus import Corpus, HindcastError, StoredCase, UsageError
from corpus.layout import Kind


@dataclass(frozen=True)
class Opened:
    """The selected candidate (or case) as loaded, with its probe of the base revision."""

    stored: StoredCase
    """The validated candidate and its hidden files."""
    in_base: InBase | None
    """Whether a name exists at the base revision (None without the source repository)."""
    fix_message: str | None = None
    """The fix commit's message from the repository when the provenance records none."""

    @property
    def id(self) -> str:
        """The candidate (or case) id."""
        return self.stored.case.id


class ReviewSession:
    """The state behind the review screen, testable without a terminal."""

    def __init__(self, corpus: Corpus, kind: Kind = "candidates") -> None:
        self.corpus = corpus
        self.kind: Kind = kind
        self.rows: dict[str, QueueRow] = {row.id: row for row in read_queue(corpus, kind)}
        self.sort = "score"
        self.needle = ""
        self.skipped: list[str] = []
        self.drafts: dict[str, Draft] = {}
        self.origins: dict[str, Draft] = {}
        self.history: list[Decision] = []
        self.leak_counts: dict[str, LeakCount] = {}

    # -- the queue ---------------------------------------------------------------------------------

    def shown(self) -> list[QueueRow]:
        """The rows to show: filtered and sorted, skipped ones last in the order they were skipped."""
        rows = arrange(list(self.rows.values()), self.sort, self.needle)
        ahead = [row for row in rows if row.id not in self.skipped]
        later = sorted((row for row in rows if row.id in self.skipped), key=lambda r: self.skipped.index(r.id))
        return ahead + later

    def reload(self) -> None:
        """Read the queue from disk again (drafts in progress and skips of ids still there are kept)."""
        self.rows = {row.id: row for row in read_queue(self.corpus, self.kind)}
        self.skipped = [case_id for case_id in self.skipped if case_id in self.rows]
        self.leak_counts.clear()

    def next_sort(self) -> str:
        """Cycle to the next sort order."""
        self.sort = SORTS[(SORTS.index(self.sort) + 1) % len(SORTS)]
        return self.sort

    # -- the selection -----------------------------------------------------------------------------

    @cached_property
    def repo(self) -> Path | None:
        """The source repository, looked up once (None when it cannot be reached)."""
        return source_repo(self.corpus)

    def open(self, case_id: str) -> Opened:
        """Load and validate one candidate (or case)."""
        stored = self.corpus.load(case_id, self.kind)
        return Opened(stored, base_probe(self.repo, stored.case.base_commit), fix_message(self.repo, stored.case))

    def draft(self, opened: Opened) -> Draft:
        """The draft in progress for opened, else one prefilled from it and the corpus defaults.

        When the file changed on disk since the draft began, each field the author has not touched takes the
        new value from disk; the author's own edits are kept.
        """
        fresh = draft_from(opened.stored.case, self.corpus.config.defaults)
        kept, origin = self.drafts.get(opened.id), self.origins.get(opened.id)
        self.origins[opened.id] = fresh
        if kept is None or origin is None or origin == fresh:
            return kept or fresh
        merged = {field.name: getattr(fresh if getattr(kept, field.name) == getattr(origin, field.name) else kept,
                                      field.name) for field in fields(Draft)}
        self.drafts[opened.id] = Draft(**merged)
        return self.drafts[opened.id]

    def keep(self, case_id: str, draft: Draft) -> None:
        """Remember a draft in progress (moving through the queue loses nothing)."""
        self.drafts[case_id] = draft

    def unsaved(self) -> list[str]:
        """The ids (in id order) whose draft differs from what is on disk: quitting would lose them."""
        return [case_id for case_id in self.rows if self.is_unsaved(case_id)]

    def save_draft(self, case_id: str) -> Decision | None:
        """Write one unsaved draft to disk: a case is saved (the leak lint applies, as on approval), a candidate
        keeps the draft in its own case.yaml (its id stays its directory name). The save's Decision for a case, else
        None."""
        if case_id not in self.unsaved():
            return None
        opened = self.open(case_id)
        draft = self.draft(opened)  # fields untouched since the file changed on disk take its new values
        if self.kind == "cases":
            return self.approve(opened, draft)
        decisions.keep_draft(self.corpus, case_id, draft, expect_mtime_ns=opened.stored.mtime_ns)
        self.drafts.pop(case_id, None)
        self.origins.pop(case_id, None)
        self.rows[case_id] = read_row(self.corpus.root / self.kind / case_id)
        return None

    def findings(self, opened: Opened, prompt: str) -> list[Finding]:
        """The leakage findings of prompt for opened."""
        return find_leaks(prompt, opened.stored.case, opened.stored.files, opened.in_base, opened.fix_message)

    def wording_findings(self, opened: Opened, wordings: str) -> list[Finding]:
        """The leakage findings of the further wordings as typed, at their lines of the typed text."""
        return typed_leaks(wordings, opened.stored.case, opened.stored.files, opened.in_base, opened.fix_message)

    def count_leaks(self, case_id: str) -> LeakCount | None:
        """The findings of case_id's draft (or, without one, its prompt and wordings on disk), counted; None when
        it cannot be opened."""
        try:
            opened = self.open(case_id)
        except (HindcastError, OSError):
            return None
        draft = self.drafts.get(case_id) or draft_from(opened.stored.case, self.corpus.config.defaults)
        return LeakCount.of([*self.findings(opened, draft.prompt), *self.wording_findings(opened, draft.wordings)])

    def is_unsaved(self, case_id: str) -> bool:
        """Whether case_id has a draft that differs from what is on disk."""
        return case_id in self.drafts and self.drafts[case_id] != self.origins.get(case_id)

    # -- decisions ---------------------------------------------------------------------------------

    def approve(self, opened: Opened, draft: Draft, override: str | None = None) -> Decision:
        """Approve a candidate (or save a case), refusing when the file changed since it was opened."""
        if self.kind == "cases":
            decision = decisions.save(self.corpus, opened.id, draft, override=override,
                                      expect_mtime_ns=opened.stored.mtime_ns, in_base=opened.in_base,
                                      fix_message=opened.fix_message)
            self.rows[opened.id] = read_row(opened.stored.directory)
            self.drafts.pop(opened.id, None)  # the draft is what is on disk now
            self.origins.pop(opened.id, None)
        else:
            decision = decisions.approve(self.corpus, opened.id, draft, override=override,
                                         expect_mtime_ns=opened.stored.mtime_ns, in_base=opened.in_base,
                                         fix_message=opened.fix_message)
            self._forget(opened.id)
        return self._record(decision)

    def reject(self, opened: Opened, reason: str) -> Decision:
        """Reject a candidate with a reason."""
        if self.kind == "cases":
            raise UsageError("reject applies to candidates; edit the case's status to deprecate it")
        pid = patch_id(self.repo, opened.stored.case.base_commit, opened.stored.case.fix_commit)
        decision = replace(decisions.reject(self.corpus, opened.id, reason, patch_id=pid),
                           draft=self.drafts.get(opened.id))
        self._forget(opened.id)
        return self._record(decision)

    def skip(self, case_id: str) -> Decision:
        """Move a candidate to the end of the queue."""
        if case_id in self.skipped:
            self.skipped.remove(case_id)
        self.skipped.append(case_id)
        return self._record(decisions.skip(case_id))

    def undo(self) -> Decision:
        """Take back the last decision of this session; what the author had typed comes back as the draft."""
        if not self.history:
            raise UsageError("nothing to undo")
        decision = self.history[-1]
        decisions.undo(self.corpus, decision)
        self.history.pop()
        if decision.action == "skip":
            self.skipped.remove(decision.candidate_id)
        else:
            directory = self.corpus.root / self.kind / decision.candidate_id
            self.rows[decision.candidate_id] = read_row(directory)
            self.leak_counts.pop(decision.candidate_id, None)
            if decision.draft is not None:
                self._bring_back(decision.candidate_id, decision.draft)
        return decision

    def _bring_back(self, case_id: str, draft: Draft) -> None:
        """draft becomes case_id's draft in progress, measured against the file undo restored."""
        self.drafts[case_id] = draft
        try:
            self.origins[case_id] = draft_from(self.corpus.load(case_id, self.kind).case, self.corpus.config.defaults)
        except HindcastError:
            self.origins.pop(case_id, None)

    def prepare_verify(self, opened: Opened, draft: Draft) -> Opened:
        """Write the draft's setup and grader edits into the candidate, so verify runs what will ship."""
        case = opened.stored.case
        setup = replace(case.setup, command=draft.setup_command.strip() or None)
        grader = replace(case.grader, command=draft.grader_command.strip() or case.grader.command,
                         timeout=draft.grader_timeout)
        if (setup, grader) == (case.setup, case.grader):
            return opened
        self.corpus.write(replace(case, setup=setup, grader=grader), opened.stored.files, self.kind,
                          expect_mtime_ns=opened.stored.mtime_ns)
        return self.open(opened.id)

    def _forget(self, case_id: str) -> None:
        self.rows.pop(case_id, None)
        self.leak_counts.pop(case_id, None)
        self.drafts.pop(case_id, None)
        self.origins.pop(case_id, None)
        if case_id in self.skipped:
            self.skipped.remove(case_id)

    def _record(self, decision: Decision) -> Decision:
        self.history.append(decision)
        return decision
