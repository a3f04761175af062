"""One line above the footer: the last decision, and a running or finished verify."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

VERDICT_STYLES = {"VALID": "bold green", "INVALID": "bold red", "ERROR": "bold yellow"}


class StatusLine(Static):
    """Shows what just happened, without ever taking focus."""

    DEFAULT_CSS = """
    StatusLine { height: 1; padding: 0 1; background: $panel; color: $text-muted; }
    """

    def say(self, text: str) -> None:
        """A plain status message."""
        self.update(Text(text))

    def verdict(self, case_id: str, verdict: str, reason: str) -> None:
        """A verify verdict, coloured."""
        line = Text.assemble(f"verify {case_id}: ", (verdict, VERDICT_STYLES.get(verdict, "bold")))
        if reason:
            line.append(f" — {reason}")
        self.update(line)
