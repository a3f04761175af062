"""The review screen: the queue on top, the selected candidate in tabs below, every decision on one key."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import (
    Checkbox,
    DataTable,
    Footer,
    Input,
    Select,
    Static,
    TabbedContent,
    TabPane,
    TextArea,
)
from textual.worker import Worker, WorkerState

from authoring.decisions import Decision
from authoring.draft import Draft
from authoring.gitinfo import grader_diff
from authoring.messages import GraderDiffReady, VerifyFinished, VerifyProgress
from authoring.queue import LeakCount, cycle_verdict_filter
from authoring.screens.approving import USER_ERRORS, approve
from authoring.screens.help import HelpScreen
from authoring.screens.modals import MessageModal, ReasonModal
from authoring.screens.quitting import ask_before_quitting
from authoring.session import Opened, ReviewSession
from authoring.verifying import Verifier
from authoring.widgets.case_form import CaseForm
from authoring.widgets.code_view import CodeView, grader_files_text
from authoring.widgets.facts import FactsView
from authoring.widgets.filter_input import FilterInput
from authoring.widgets.prompt_editor import PromptEditor
from authoring.widgets.queue_table import Marks, QueueTable
from authoring.widgets.status_line import StatusLine

TABS = ("facts", "oracle", "grader", "prompt", "case", "wordings")
WORDINGS_HINT = "Further wordings of the task, each under a line `=== ID` (e.g. `=== terse`); a trial gets one…"
EDITOR_ACTIONS = frozenset({"back"})
"""The screen's only key while a text field has focus (every other key types): leaving it."""


class ReviewScreen(Screen[None]):
    """Turns candidates into cases; drafts survive moving through the queue, decisions can be undone."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve"),
        Binding("r", "reject", "Reject"),
        Binding("s", "skip", "Skip"),
        Binding("v", "verify", "Verify"),
        Binding("u", "undo", "Undo"),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        Binding("e", "edit", "Edit the prompt (on the wordings tab, the wordings)", show=False),
        Binding("slash", "filter", "Filter the queue", show=False, key_display="/"),
        Binding("f", "verdict_filter", "Cycle the verdict filter (is:valid, is:feature, …, all)",
                show=False),
        Binding("o", "sort", "Cycle the sort order", show=False),
        Binding("ctrl+r", "reload", "Reload the queue and the candidate from disk (drafts are kept)", show=False),
        *(Binding(str(n), f"tab('{tab}')", f"Show the {tab} tab", show=False) for n, tab in enumerate(TABS, 1)),
        Binding("escape", "back", "Back to the queue", show=False, key_display="Esc"),
    ]
    APPROVE_WORD = "approve"

    def __init__(self, session: ReviewSession, *, today: date, verifier: Verifier) -> None:
        super().__init__()
        self.session = session
        self.today = today
        self.verifier = verifier
        self.opened: Opened | None = None
        self.verifying: str | None = None
        self.marks_pending = False

    def compose(self) -> ComposeResult:
        yield Static(id="bar")
        yield FilterInput(placeholder="filter: words in the id, subject or paths (Enter keeps, Esc clears)",
                          id="filter")
        yield QueueTable(self.today, id="queue")
        with TabbedContent(id="tabs", initial="facts"):
            with TabPane("1 Facts", id="facts"):
                yield FactsView()
            with TabPane("2 Oracle", id="oracle"):
                yield CodeView(id="oracle-view")
            with TabPane("3 Grader", id="grader"):
                yield CodeView(id="grader-view")
            with TabPane("4 Prompt", id="prompt"):
                yield PromptEditor(id="editor")
            with TabPane("5 Case", id="case"):
                yield CaseForm(id="form")
            with TabPane("6 Wordings", id="wordings"):
                yield PromptEditor(id="wordings-editor", text_id="wordings-text", placeholder=WORDINGS_HINT)
        yield StatusLine(id="status")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.refresh_queue()
        self.query_one(QueueTable).focus()
        self.query_one(StatusLine).say("press ? for the keys and the leak rules")

    # -- the queue ---------------------------------------------------------------------------------

    def refresh_queue(self, select: str | None = None) -> None:
        """Redraw the queue, keeping the cursor on select (or the current row)."""
        table = self.query_one(QueueTable)
        current = select or table.selected_id()
        rows = self.session.shown()
        self.stash_draft()
        table.show_rows(rows, current, Marks(edited=set(self.session.unsaved()), skipped=set(self.session.skipped),
                                             leaks=self.session.leak_counts, live=current))
        self.update_bar(len(rows))
        if table.selected_id() != (self.opened.id if self.opened else None) or not rows:
            self.select(table.selected_id())
        table.count_leaks(self.session.count_leaks, [row.id for row in rows if row.id not in self.session.leak_counts])

    def update_marks(self) -> None:
        """Show whether the open candidate's draft is edited, as the author types (once for a burst of changes,
        such as a form being filled)."""
        if not self.marks_pending:
            self.marks_pending = True
            self.call_later(self._update_marks_now)

    def _update_marks_now(self) -> None:
        self.marks_pending = False
        if self.opened is not None:
            self.stash_draft()
            self.query_one(QueueTable).show_marks(self.opened.id, edited=self.session.is_unsaved(self.opened.id),
                                                  skipped=self.opened.id in self.session.skipped)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While a text field has focus every key but Esc types into it, so the footer shows only Esc."""
        return action in EDITOR_ACTIONS or not isinstance(self.focused, (Input, TextArea))

    def update_bar(self, shown: int) -> None:
        session = self.session
        parts = [session.corpus.config.name, f"{session.kind} {shown}/{len(session.rows)}", f"sort {session.sort}"]
        if session.needle:
            parts.append(f"filter “{session.needle}”")
        if session.skipped:
            parts.append(f"{len(session.skipped)} skipped")
        self.query_one("#bar", Static).update(" · ".join(parts))

    @on(DataTable.RowHighlighted, "#queue")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        case_id = event.row_key.value
        if case_id != (self.opened.id if self.opened else None):
            self.select(case_id)

    def select(self, case_id: str | None) -> None:
        """Show case_id in the tabs (stashing the draft of the one being left)."""
        table = self.query_one(QueueTable)
        table.busy()
        table.marks.live = case_id
        self.stash_draft()
        self.opened = None
        facts, editor = self.query_one(FactsView), self.query_one("#editor", PromptEditor)
        wordings = self.query_one("#wordings-editor", PromptEditor)
        row = self.session.rows.get(case_id) if case_id else None
        try:
            self.opened = self.session.open(case_id) if case_id else None
        except USER_ERRORS as exc:
            facts.show(None, row, self.today, error=str(exc))
        if self.opened is None:
            if case_id is None:
                facts.show(None, None, self.today)
            for view in self.query(CodeView):
                view.show("")
            editor.load("")
            wordings.load("")
            return
        stored = self.opened.stored
        facts.show(stored.case, row, self.today)
        self.query_one("#oracle-view", CodeView).show(stored.files.oracle_patch.decode("utf-8", "replace"),
                                                      empty="(empty oracle patch)")
        self.query_one("#grader-view", CodeView).show(*grader_files_text(stored.files))
        self.load_grader_diff(self.opened)
        draft = self.session.draft(self.opened)
        opened = self.opened
        editor.load(draft.prompt, lambda text: self.session.findings(opened, text))  # its worker finds the leaks
        wordings.load(draft.wordings, lambda text: self.session.wording_findings(opened, text))
        self.query_one(CaseForm).load(draft)

    def stash_draft(self) -> None:
        """Keep the draft of the open candidate in the session."""
        if self.opened is not None:
            kept = self.session.draft(self.opened)
            draft = self.query_one(CaseForm).read(self.query_one("#editor", PromptEditor).text, kept.grader_timeout,
                                                  self.query_one("#wordings-editor", PromptEditor).text)
            self.session.keep(self.opened.id, draft)

    def current_draft(self) -> Draft:
        """The draft as the editor and the form hold it (a bad field raises a UsageError naming it)."""
        return self.query_one(CaseForm).read(self.query_one("#editor", PromptEditor).text,
                                             wordings=self.query_one("#wordings-editor", PromptEditor).text)

    # -- findings and grader diff (workers) ---------------------------------------------------------

    @on(TextArea.Changed, "#prompt-text")
    @on(TextArea.Changed, "#wordings-text")
    def _text_changed(self) -> None:
        if self.opened is not None:
            self.query_one(QueueTable).busy()
            self.update_marks()

    @on(Input.Changed, "#form Input")
    @on(Select.Changed, "#form Select")
    @on(Checkbox.Changed, "#form Checkbox")
    @on(TextArea.Changed, "#form TextArea")
    def _form_changed(self) -> None:
        self.update_marks()

    @on(PromptEditor.Checked)
    def _checked(self) -> None:
        """The queue's leak count of the open case: its prompt's findings and its wordings' together."""
        if self.opened is not None:
            editors = self.query_one("#editor", PromptEditor), self.query_one("#wordings-editor", PromptEditor)
            count = LeakCount.of([finding for editor in editors for finding in editor.findings])
            self.session.leak_counts[self.opened.id] = count
            self.query_one(QueueTable).show_leaks(self.opened.id, count)

    @work(thread=True, exclusive=True, group="grader-diff", exit_on_error=False)
    def load_grader_diff(self, opened: Opened) -> None:
        case, paths = opened.stored.case, [path for path, _ in opened.stored.files.grader_files]
        text = grader_diff(self.session.repo, case.base_commit, case.fix_commit, [*paths, *case.grader.deleted])
        if text:
            self.post_message(GraderDiffReady(opened.id, text))

    @on(GraderDiffReady)
    def _grader_diff_ready(self, message: GraderDiffReady) -> None:
        if self.opened and self.opened.id == message.case_id:
            self.query_one("#grader-view", CodeView).show(message.diff)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state == WorkerState.ERROR:
            if event.worker.group == "verify":
                self.verifying = None
            self.show_error("A background task failed", f"{event.worker.name}: {event.worker.error}")

    # -- decisions ---------------------------------------------------------------------------------

    def action_approve(self) -> None:
        if self.opened is None:
            return
        try:
            draft = self.current_draft()
        except USER_ERRORS as exc:
            self.show_error(f"Cannot {self.APPROVE_WORD} {self.opened.id}", str(exc))
            return
        approve(self, self.opened, draft, None)

    def action_reject(self) -> None:
        opened = self.opened
        if opened is None:
            return

        self.stash_draft()  # undoing the rejection brings back what was typed

        def rejected(reason: str | None) -> None:
            if reason:
                self.attempt(lambda: self.session.reject(opened, reason), f"Cannot reject {opened.id}")

        self.app.push_screen(ReasonModal(f"Reject {opened.id}?", "Why? The reason is kept in rejected.yaml and the "
                                         "miner never proposes this fix again.", action="Reject",
                                         placeholder="for example: the test depends on the clock"), rejected)

    def action_skip(self) -> None:
        if self.opened is not None:
            opened = self.opened
            self.attempt(lambda: self.session.skip(opened.id), "Cannot skip")

    def action_undo(self) -> None:
        if not self.session.history:
            self.query_one(StatusLine).say("nothing to undo")
            return
        try:
            self.stash_draft()
            decision = self.session.undo()
        except USER_ERRORS as exc:
            self.show_error("Cannot undo", str(exc))
            return
        self.opened = None
        self.refresh_queue(select=decision.candidate_id)
        self.query_one(StatusLine).say(f"undone: {decision.describe()}")

    def attempt(self, decide: Callable[[], Decision], title: str) -> None:
        """Run a decision; its error goes to a modal, its success to the queue and status line."""
        try:
            decision = decide()
        except USER_ERRORS as exc:
            self.show_error(title, str(exc))
            return
        self.after(decision)

    def after(self, decision: Decision) -> None:
        """Move on after a decision: the next row takes the decided one's place."""
        shown = [row.id for row in self.session.shown()]
        table = self.query_one(QueueTable)
        index = min(table.cursor_row, len(shown) - 1)
        keep = decision.action == "save"
        self.opened = None  # a saved case is opened again: its file on disk is new
        self.refresh_queue(select=decision.candidate_id if keep else (shown[index] if shown else None))
        self.query_one(StatusLine).say(f"{decision.describe()} · u undoes")

    # -- verify ------------------------------------------------------------------------------------

    def action_verify(self) -> None:
        if self.opened is None:
            return
        if self.verifying:
            self.query_one(StatusLine).say(f"verify {self.verifying} is still running")
            return
        try:
            self.opened = self.session.prepare_verify(self.opened, self.current_draft())
        except USER_ERRORS as exc:
            self.show_error(f"Cannot verify {self.opened.id}", str(exc))
            return
        self.verifying = self.opened.id
        self.query_one(StatusLine).say(f"verify {self.opened.id}: running…")
        self.run_verify(self.opened.id)

    @work(thread=True, exclusive=True, group="verify", exit_on_error=False)
    def run_verify(self, case_id: str) -> None:
        def progress(text: str) -> None:
            self.post_message(VerifyProgress(case_id, text))

        self.post_message(VerifyFinished(self.verifier(self.session.corpus, case_id, self.session.kind, progress)))

    @on(VerifyProgress)
    def _verify_progress(self, message: VerifyProgress) -> None:
        if self.verifying == message.case_id:
            self.query_one(StatusLine).say(f"verify {message.text}…")

    @on(VerifyFinished)
    def _verify_finished(self, message: VerifyFinished) -> None:
        self.verifying = None
        outcome = message.outcome
        # The verdict is on disk now (and a candidate has its measured grader): show both.
        self.stash_draft()
        self.session.reload()
        self.opened = None
        self.refresh_queue()
        self.query_one(StatusLine).verdict(outcome.case_id, outcome.verdict, outcome.reason)

    # -- quitting ----------------------------------------------------------------------------------

    def request_quit(self) -> None:
        """Quit, asking first when a draft is not saved (`authoring.screens.quitting`)."""
        ask_before_quitting(self)

    # -- navigation --------------------------------------------------------------------------------

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen([*self.BINDINGS, *self.app.BINDINGS]))

    def action_edit(self) -> None:
        tabs = self.query_one(TabbedContent)
        if tabs.active != "wordings":
            tabs.active = "prompt"
        self.query_one("#wordings-text" if tabs.active == "wordings" else "#prompt-text", TextArea).focus()

    def action_tab(self, tab: str) -> None:
        self.query_one(TabbedContent).active = tab

    def action_filter(self) -> None:
        field = self.query_one("#filter", Input)
        field.add_class("-shown")
        field.focus()

    def action_verdict_filter(self) -> None:
        field = self.query_one("#filter", Input)
        field.value = cycle_verdict_filter(field.value)
        field.set_class(bool(field.value), "-shown")

    def action_sort(self) -> None:
        self.session.next_sort()
        self.refresh_queue()

    def action_reload(self) -> None:
        self.stash_draft()
        self.session.reload()
        self.opened = None
        self.refresh_queue()
        self.query_one(StatusLine).say(f"reloaded {len(self.session.rows)} {self.session.kind} from disk")

    def action_back(self) -> None:
        field = self.query_one("#filter", Input)
        if field.has_focus:
            field.value = ""
        if not field.value:
            field.remove_class("-shown")
        self.query_one(QueueTable).focus()

    @on(Input.Changed, "#filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.session.needle = event.value
        self.refresh_queue()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        self.query_one(QueueTable).focus()

    def show_error(self, title: str, message: str) -> None:
        """Every error of the review goes to a modal."""
        self.app.push_screen(MessageModal(title, message))
