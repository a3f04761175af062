"""The sample screen: the passes `runner sample` drew, each patch beside its case's reference patch, and the
verdict set with one key (written to the checklist at once)."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Label

from authoring.sampling import SampleSession
from authoring.widgets.code_view import CodeView
from runner.report.review import VERDICTS

KEYS = {"1": VERDICTS[0], "2": VERDICTS[1], "3": VERDICTS[2], "0": None}
"""The key of each verdict; 0 clears it."""


class SampleScreen(Screen[None]):
    """One row per sampled pass; the selected row's patch and the reference patch side by side."""

    DEFAULT_CSS = """
    SampleScreen #sample-table { height: 8; }
    SampleScreen #patches { height: 1fr; }
    SampleScreen #patches Vertical { width: 1fr; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("1", "judge('1')", "Looks right"), Binding("2", "judge('2')", "Wrong fix"),
        Binding("3", "judge('3')", "Gamed the test"), Binding("0", "judge('0')", "Clear"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, session: SampleSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield Label(f"sample of run {self.session.run.manifest.run_id}: {self.session.path}", id="sample-title")
        yield DataTable(id="sample-table", cursor_type="row")
        with Horizontal(id="patches"):
            with Vertical():
                yield Label("the candidate's patch")
                yield CodeView(id="candidate-patch")
            with Vertical():
                yield Label("the reference patch")
                yield CodeView(id="reference-patch")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("trial", "verdict", "why drawn")
        for index, entry in enumerate(self.session.entries):
            table.add_row(entry.trial, entry.verdict or "-", entry.why, key=str(index))
        self.show(0)

    @property
    def index(self) -> int:
        """The selected row."""
        return self.query_one(DataTable).cursor_row

    def show(self, index: int) -> None:
        """Show entry index's two patches."""
        if not self.session.entries:
            return
        patches = self.session.patches(index)
        self.query_one("#candidate-patch", CodeView).show(patches.candidate, empty="(no patch)")
        self.query_one("#reference-patch", CodeView).show(patches.reference, empty="(no reference patch)")

    @on(DataTable.RowHighlighted)
    def highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.show(event.cursor_row)

    def action_judge(self, key: str) -> None:
        """Set the selected pass's verdict and write the checklist."""
        if not self.session.entries:
            return
        entry = self.session.judge(self.index, KEYS[key])
        table = self.query_one(DataTable)
        table.update_cell_at(Coordinate(self.index, 1), entry.verdict or "-")
