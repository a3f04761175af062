"""The prompt editor and, under it, the live list of what the prompt leaks (the wordings editor is another)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Label, OptionList, TextArea
from textual.widgets.option_list import Option
from textual.widgets.text_area import Selection

from authoring.leaks import Finding
from authoring.messages import FindingsReady

Checker = Callable[[str], list[Finding]]
"""What finds the leaks of the editor's text: the open case's lint, bound by the screen."""


class PromptEditor(Vertical):
    """A TextArea for the task and a findings list, found in a worker as the text changes; choosing a finding
    selects it in the text."""

    class Checked(Message):
        """The findings of the editor's text as it is now are shown."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "screen.back", "Leave the editor", key_display="Esc")]

    DEFAULT_CSS = """
    PromptEditor { height: 1fr; }
    PromptEditor > TextArea { height: 1fr; min-height: 3; }
    PromptEditor > #findings-title { height: 1; width: 1fr; padding: 0 1; background: $boost; }
    PromptEditor > #findings-title.-clean { color: $success; }
    PromptEditor > #findings-title.-leaky { color: $error; text-style: bold; }
    PromptEditor > OptionList { height: 4; border: none; padding: 0; }
    """

    def __init__(self, *, id: str | None = None, text_id: str = "prompt-text",
                 placeholder: str = "The task the agent gets…") -> None:
        super().__init__(id=id)
        self.text_id = text_id
        self.placeholder = placeholder
        self.findings: list[Finding] = []
        self.checker: Checker | None = None

    def compose(self) -> ComposeResult:
        yield TextArea(id=self.text_id, soft_wrap=True, tab_behavior="focus", placeholder=self.placeholder)
        yield Label("Findings: checking…", id="findings-title")
        yield OptionList(id="findings", compact=True)

    @property
    def text(self) -> str:
        """The prompt as typed."""
        return self.query_one(TextArea).text

    def load(self, text: str, checker: Checker | None = None) -> None:
        """Replace the text (a new candidate was selected) and what finds its leaks."""
        self.checker = checker
        area = self.query_one(TextArea)
        area.load_text(text)
        area.move_cursor((0, 0))
        self.show_findings(None)

    def show_findings(self, findings: list[Finding] | None) -> None:
        """List findings (None while they are being computed)."""
        title = self.query_one("#findings-title", Label)
        options = self.query_one(OptionList)
        options.clear_options()
        title.set_class(findings is not None and not findings, "-clean")
        title.set_class(bool(findings), "-leaky")
        self.findings = findings or []
        if findings is None:
            title.update("Findings: checking…")
            return
        if not findings:
            title.update("Findings: none — nothing leaks")
            return
        never = sum(not f.overridable for f in findings)
        title.update(f"Findings: {len(findings)}" + (f" ({never} can never ship)" if never else ""))
        options.add_options(Option(_describe(f), id=str(i)) for i, f in enumerate(findings))

    @on(TextArea.Changed)
    def _changed(self) -> None:
        if self.checker is not None:
            self._find(self.checker, self.text)

    @work(thread=True, exclusive=True, group="findings", exit_on_error=False)
    def _find(self, checker: Checker, text: str) -> None:
        self.post_message(FindingsReady(checker, text, checker(text)))

    @on(FindingsReady)
    def _found(self, message: FindingsReady) -> None:
        if message.checker is self.checker and message.text == self.text:
            self.show_findings(message.findings)
            self.post_message(self.Checked())

    @on(OptionList.OptionSelected, "#findings")
    def _jump(self, event: OptionList.OptionSelected) -> None:
        finding = self.findings[int(event.option.id or 0)]
        area = self.query_one(TextArea)
        start = (finding.line - 1, finding.column - 1)
        area.selection = Selection(start, (finding.line - 1, finding.end_column - 1))
        area.focus()


def _describe(finding: Finding) -> Text:
    style = "bold red" if not finding.overridable else "yellow"
    wording = "" if finding.wording == "prompt" else f"{finding.wording} "
    return Text.assemble((f"{wording}{finding.line}:{finding.column} ", "dim"), (finding.kind, style),
                         f" {finding.text!r}: {finding.reason}")
