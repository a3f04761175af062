"""The candidate queue: score, last verdict, id, subject, changed files and age, one row per candidate."""

from __future__ import annotations

from datetime import date

from rich.text import Text
from textual.widgets import DataTable

from authoring.queue import QueueRow

ID_WIDTH = 20
SUBJECT_WIDTH = 24
VERDICT_WIDTH = 7
VERDICT_STYLES = {"valid": "green", "feature": "cyan", "invalid": "red", "error": "magenta"}
"""How each verdict word is shown (`feature` is VALID with a base lacking the tested names)."""


class QueueTable(DataTable[str | Text]):
    """A row cursor over the queue, keyed by candidate id."""

    DEFAULT_CSS = """
    QueueTable { height: 8; }
    """

    def __init__(self, today: date, *, id: str | None = None) -> None:
        super().__init__(cursor_type="row", id=id)
        self.today = today

    def on_mount(self) -> None:
        self.add_column("Score", width=5, key="score")
        self.add_column("Verdict", width=VERDICT_WIDTH, key="verdict")
        self.add_column("ID", width=ID_WIDTH, key="id")
        self.add_column("Subject", width=SUBJECT_WIDTH, key="subject")
        self.add_column("S/T", width=5, key="files")
        self.add_column("Age", width=4, key="age")

    def show_rows(self, rows: list[QueueRow], select: str | None = None) -> None:
        """Replace the rows, keeping the cursor on select when it is still shown."""
        self.clear()
        for row in rows:
            self.add_row(*self._cells(row), key=row.id)
        ids = [row.id for row in rows]
        if select in ids:
            self.move_cursor(row=ids.index(select), animate=False)

    def selected_id(self) -> str | None:
        """The id under the cursor, or None for an empty queue."""
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return row_key.value

    def _cells(self, row: QueueRow) -> tuple[str | Text, ...]:
        age = row.age_days(self.today)
        subject = Text(_clip(row.subject, SUBJECT_WIDTH), style="red" if row.broken else "")
        word = row.verdict_word
        verdict = Text("·" if word == "unverified" else word.upper(), style=VERDICT_STYLES.get(word, "dim"))
        return (Text(f"{row.score:.2f}", justify="right"), verdict, _clip(row.id, ID_WIDTH), subject,
                f"{len(row.source_files)}/{len(row.test_files)}", "-" if age is None else f"{age}d")


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
