"""The help screen: every key of the review screen and every leak rule."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from authoring.leaks import LEAK_KINDS, RULES
from authoring.widgets.queue_table import EDITED_MARK, SKIPPED_MARK

QUEUE_LEGEND = (f"\nQueue: Leaks counts the findings of each prompt (the draft, else the file; red when one can "
                f"never ship); {EDITED_MARK} a draft edited and not saved (quitting asks to save it); "
                f"{SKIPPED_MARK} skipped; Age in days (d), months (mo) or years (y).")


class HelpScreen(ModalScreen[None]):
    """Keys (read from the bindings themselves, so this never goes stale) and the leak rules."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,question_mark,f1", "dismiss", "Close")]

    def __init__(self, bindings: list[BindingType]) -> None:
        super().__init__()
        self.bindings = [b for b in bindings if isinstance(b, Binding)]

    def compose(self) -> ComposeResult:
        keys = Table.grid(padding=(0, 2))
        keys.add_column(style="bold cyan", no_wrap=True)
        keys.add_column()
        for binding in self.bindings:
            keys.add_row(binding.key_display or binding.key.replace("question_mark", "?").replace(",", " "),
                         binding.description or binding.action)
        rules = Table.grid(padding=(0, 2))
        rules.add_column(style="bold", no_wrap=True)
        rules.add_column()
        for kind, rule in RULES.items():
            style = "yellow" if kind in LEAK_KINDS else "red"
            rules.add_row(Text(kind, style=style), rule)
        with Vertical(id="dialog"):
            yield Label("Review keys and leak rules (Esc closes)", id="dialog-title")
            with VerticalScroll(id="dialog-body"):
                yield Static(keys)
                yield Static(QUEUE_LEGEND, markup=False)
                yield Static(Text.assemble(("\nLeak rules: ", "bold"), ("yellow", "yellow"),
                                           " may be approved with a written justification; ", ("red", "red"),
                                           " never ship.\n"))
                yield Static(rules)
