"""The candidate queue: score, last verdict, leak findings, marks, id, subject, changed files and age, one row each.

The fixed columns are narrow; the id takes the width left (up to its longest value), the subject the rest, so an
id is clipped only when the terminal is too narrow to show it whole.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, replace
from datetime import date

from rich.text import Text
from textual import events, on, work
from textual.widgets import DataTable
from textual.worker import get_current_worker

from authoring.messages import LeaksCounted
from authoring.queue import LeakCount, QueueRow, age_label

VERDICT_WIDTH = 7
VERDICT_STYLES = {"valid": "green", "feature": "cyan", "mixed": "cyan", "invalid": "red", "error": "magenta"}
"""How each verdict word is shown (`feature` and `mixed` are VALID with a base lacking some tested names)."""
EDITED_MARK = "✎"
"""Marks a row whose draft was edited and is not saved yet."""
SKIPPED_MARK = "↷"
"""Marks a row skipped in this session."""
FIXED_COLUMNS = (("Score", 5, "score"), ("Verdict", VERDICT_WIDTH, "verdict"), ("Leaks", 5, "leaks"),
                 ("", 2, "marks"))
TAIL_COLUMNS = (("S/T", 5, "files"), ("Age", 4, "age"))
MIN_ID = 12
"""The id column never gets narrower than this."""
MIN_SUBJECT = 10
"""The subject column's share of a narrow terminal, before the id may take the rest."""
COUNT_DELAY = 0.3
"""Seconds before the leak counts start: the first screen and the selected candidate come first."""
COUNT_SHARE = 0.25
"""At most this share of the time goes to counting leaks in the background."""
COUNT_IDLE = 0.5
"""Seconds after the author last moved or typed before the background count goes on."""


@dataclass
class Marks:
    """What the session knows of each row beyond the file: edited drafts, skips, leak counts (mutable: it follows
    the session)."""

    edited: Collection[str] = ()
    """Ids with an unsaved draft."""
    skipped: Collection[str] = ()
    """Ids skipped in this session."""
    leaks: dict[str, LeakCount] = field(default_factory=dict)
    """Ids whose prompt (draft, else on disk) has been linted; shared with the session, counts arriving go here."""
    live: str | None = None
    """The open candidate, whose count comes from its editor's live findings, never from the background."""


class QueueTable(DataTable[str | Text]):
    """A row cursor over the queue, keyed by candidate id."""

    DEFAULT_CSS = """
    QueueTable { height: 8; }
    """

    def __init__(self, today: date, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", id=id)
        self.today = today
        self.rows_shown: list[QueueRow] = []
        self.marks = Marks()
        self.shown_leaks: dict[str, LeakCount | None] = {}
        self._widths = (MIN_ID, MIN_SUBJECT)
        self.busy_until = 0.0

    def show_rows(self, rows: list[QueueRow], select: str | None = None, marks: Marks | None = None) -> None:
        """Replace the rows, keeping the cursor on select when it is still shown."""
        self.rows_shown = rows
        self.marks = marks or Marks()
        self.shown_leaks = dict(self.marks.leaks)
        self._widths = self._fit()
        self.clear(columns=True)
        id_width, subject_width = self._widths
        for label, width, key in (*FIXED_COLUMNS, ("ID", id_width, "id"), ("Subject", subject_width, "subject"),
                                  *TAIL_COLUMNS):
            self.add_column(label, width=width, key=key)
        for row in rows:
            self.add_row(*self._cells(row), key=row.id)
        ids = [row.id for row in rows]
        if select in ids:
            self.move_cursor(row=ids.index(select), animate=False)

    def show_leaks(self, case_id: str, count: LeakCount | None) -> None:
        """Update one row's leak count in place (the count arrives from a worker); an unchanged one is not redrawn."""
        if case_id in self.rows and self.shown_leaks.get(case_id) != count:
            self.shown_leaks[case_id] = count
            self.update_cell(case_id, "leaks", _leaks(count))

    def show_marks(self, case_id: str, *, edited: bool, skipped: bool) -> None:
        """Update one row's marks in place (the author is typing into its draft); unchanged marks are not redrawn."""
        if case_id not in self.rows or (case_id in self.marks.edited, case_id in self.marks.skipped) == (edited,
                                                                                                         skipped):
            return
        self.marks = replace(self.marks, edited=_with(self.marks.edited, case_id, edited),
                             skipped=_with(self.marks.skipped, case_id, skipped))
        self.update_cell(case_id, "marks", _marks(edited, skipped))

    def busy(self) -> None:
        """The author moved or typed: the background count waits for a pause."""
        self.busy_until = time.perf_counter() + COUNT_IDLE

    @work(thread=True, exclusive=True, group="leak-counts", exit_on_error=False)
    def count_leaks(self, counter: Callable[[str], LeakCount | None], case_ids: list[str]) -> None:
        """Count each row's findings in the background, in queue order, leaving the CPU to the screen."""
        worker = get_current_worker()
        pause = COUNT_DELAY
        for case_id in case_ids:
            until = time.perf_counter() + pause
            while time.perf_counter() < max(until, self.busy_until):  # in slices: a cancelled count stops soon
                if worker.is_cancelled:
                    return
                time.sleep(0.02)
            if worker.is_cancelled:
                return
            started = time.perf_counter()
            self.post_message(LeaksCounted(case_id, counter(case_id)))
            pause = (time.perf_counter() - started) * (1 - COUNT_SHARE) / COUNT_SHARE

    @on(LeaksCounted)
    def _leaks_counted(self, message: LeaksCounted) -> None:
        message.stop()
        if message.case_id == self.marks.live:
            return  # the open prompt's live findings are newer than this count
        if message.count is not None:
            self.marks.leaks[message.case_id] = message.count
        self.show_leaks(message.case_id, message.count)

    def selected_id(self) -> str | None:
        """The id under the cursor, or None for an empty queue."""
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return row_key.value

    def on_resize(self, event: events.Resize) -> None:
        if self._fit() != self._widths:
            self.show_rows(self.rows_shown, self.selected_id(), self.marks)

    def _fit(self) -> tuple[int, int]:
        """(id width, subject width) for the current size: the id first, up to its longest value."""
        columns = (*FIXED_COLUMNS, *TAIL_COLUMNS)
        scrollbar = self.styles.scrollbar_size_vertical if len(self.rows_shown) >= self.size.height else 0
        width = self.size.width or self.app.size.width  # before the first layout, the queue spans the terminal
        free = width - scrollbar - sum(width + 2 * self.cell_padding for _, width, _ in columns)
        free -= 4 * self.cell_padding  # the id and subject columns' own padding
        longest = max((len(row.id) for row in self.rows_shown), default=MIN_ID)
        id_width = max(MIN_ID, min(longest, free - MIN_SUBJECT))
        return id_width, max(MIN_SUBJECT, free - id_width)

    def _cells(self, row: QueueRow) -> tuple[str | Text, ...]:
        id_width, subject_width = self._widths
        subject = Text(_clip(row.subject, subject_width), style="red" if row.broken else "")
        word = row.verdict_word
        verdict = Text("·" if word == "unverified" else word.upper(), style=VERDICT_STYLES.get(word, "dim"))
        marks = _marks(row.id in self.marks.edited, row.id in self.marks.skipped)
        return (Text(f"{row.score:.2f}", justify="right"), verdict, _leaks(self.marks.leaks.get(row.id)), marks,
                _clip(row.id, id_width), subject, f"{len(row.source_files)}/{len(row.test_files)}",
                Text(age_label(row.age_days(self.today)), justify="right"))


def _with(ids: Collection[str], case_id: str, member: bool) -> frozenset[str]:
    return frozenset(ids) | {case_id} if member else frozenset(ids) - {case_id}


def _marks(edited: bool, skipped: bool) -> Text:
    return Text.assemble((EDITED_MARK if edited else " ", "bold yellow"), (SKIPPED_MARK if skipped else " ", "dim"))


def _leaks(count: LeakCount | None) -> Text:
    """`…` until counted, a green 0, a yellow count, red when one of them can never ship."""
    if count is None:
        return Text("…", style="dim", justify="right")
    style = "red" if count.never_ship else ("yellow" if count.total else "green")
    return Text(str(count.total), style=style, justify="right")


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
