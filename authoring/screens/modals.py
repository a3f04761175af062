"""Modals: an error or message to acknowledge, a required written reason, and quitting with unsaved drafts."""

from __future__ import annotations

from typing import ClassVar, Literal

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Static


class MessageModal(ModalScreen[None]):
    """A message the author must acknowledge (every error of the review lands here, never as a traceback)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,enter", "dismiss", "Close")]

    def __init__(self, title: str, body: str, *, error: bool = True) -> None:
        super().__init__(classes="-error" if error else "")
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, id="dialog-title")
            with VerticalScroll(id="dialog-body"):
                yield Static(self.body, markup=False)
            with Horizontal(id="dialog-buttons"):
                yield Button("OK", variant="primary", id="ok")

    def on_mount(self) -> None:
        self.query_one("#ok", Button).focus()

    @on(Button.Pressed, "#ok")
    def _ok(self) -> None:
        self.dismiss(None)


class ReasonModal(ModalScreen[str | None]):
    """Asks for a written reason; returns it, or None when cancelled. An empty reason is not accepted."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, title: str, explanation: str, *, action: str, placeholder: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.explanation = explanation
        self.action_label = action
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Label(self.title_text, id="dialog-title")
            with VerticalScroll(id="dialog-body"):
                yield Static(self.explanation, markup=False)
            yield Input(placeholder=self.placeholder, id="reason")
            yield Label("", id="reason-error")
            with Horizontal(id="dialog-buttons"):
                yield Button(self.action_label, variant="warning", id="submit")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#reason", Input).focus()

    @on(Input.Submitted, "#reason")
    @on(Button.Pressed, "#submit")
    def _submit(self) -> None:
        reason = self.query_one("#reason", Input).value.strip()
        if not reason:
            self.query_one("#reason-error", Label).update("A written reason is required.")
            return
        self.dismiss(reason)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


QuitChoice = Literal["save", "discard"]


class QuitModal(ModalScreen[QuitChoice | None]):
    """Quitting with drafts not saved: save them and quit, quit without them, or stay (Esc)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, unsaved: list[str], where: str) -> None:
        super().__init__()
        self.unsaved = unsaved
        self.where = where

    def compose(self) -> ComposeResult:
        listing = "\n".join(f"  {case_id}" for case_id in self.unsaved)
        with Vertical(id="dialog"):
            yield Label(f"Quit with {len(self.unsaved)} unsaved draft(s)?", id="dialog-title")
            with VerticalScroll(id="dialog-body"):
                yield Static(f"{listing}\n\nSave writes {self.where}.", markup=False)
            with Horizontal(id="dialog-buttons"):
                yield Button("Save and quit", variant="primary", id="save")
                yield Button("Quit without saving", variant="error", id="discard")
                yield Button("Cancel", id="cancel")

    def on_mount(self) -> None:
        self.query_one("#save", Button).focus()

    @on(Button.Pressed, "#save")
    def _save(self) -> None:
        self.dismiss("save")

    @on(Button.Pressed, "#discard")
    def _discard(self) -> None:
        self.dismiss("discard")

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
