"""A scrollable, syntax-highlighted view of a diff or a file."""

from __future__ import annotations

from pathlib import PurePosixPath

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from corpus import CaseFiles

MAX_LINES = 3000
"""Longer texts are cut (with a note): rendering a huge diff would stall moving through the queue."""


class CodeView(VerticalScroll):
    """Read-only code with Pygments highlighting; focusable so it scrolls from the keyboard."""

    DEFAULT_CSS = """
    CodeView { height: 1fr; }
    CodeView > Static { width: auto; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="code")

    def show(self, text: str, lexer: str = "diff", *, empty: str = "(nothing)") -> None:
        """Show text highlighted as lexer (for example "diff" or "python")."""
        lines = text.splitlines()
        if not lines:
            self.query_one(Static).update(Text(empty, style="dim"))
            return
        note = ""
        if len(lines) > MAX_LINES:
            note = f"\n… {len(lines) - MAX_LINES} more lines not shown"
            text = "\n".join(lines[:MAX_LINES])
        syntax = Syntax(text + note, lexer, theme="ansi_dark", background_color="default", word_wrap=False)
        self.query_one(Static).update(syntax)
        self.scroll_home(animate=False)


def grader_files_text(files: CaseFiles) -> tuple[str, str]:
    """The grader files as text with a header each, and a lexer for the first one (until the diff arrives)."""
    if not files.grader_files:
        return "", "text"
    lexer = Syntax.guess_lexer(PurePosixPath(files.grader_files[0][0]).name)
    text = "".join(f"# {path} (fix version)\n{content.decode('utf-8', 'replace')}\n" for path, content in
                   files.grader_files)
    return text, lexer
