"""Quitting the review: with drafts not saved, ask first (save them and quit, quit without them, or stay).

Saving writes a candidate's draft into its own case.yaml (`ReviewSession.save_draft`), where the next review starts
from it; a case's edits are saved as `a` saves them, leak lint included. The first draft that cannot be written is
shown in a modal and the review stays open, the drafts still unsaved kept.
"""

from __future__ import annotations

from typing import Protocol

from textual.app import App

from authoring.decisions import LeakRefused
from authoring.screens.modals import QuitModal
from authoring.session import Opened, ReviewSession
from corpus import HindcastError


class ReviewScreenLike(Protocol):
    """What quitting needs of the review screen, so this module does not import the screen that calls it."""

    session: ReviewSession
    opened: Opened | None

    @property
    def app(self) -> App[object]: ...

    def stash_draft(self) -> None: ...

    def refresh_queue(self, select: str | None = None) -> None: ...

    def show_error(self, title: str, message: str) -> None: ...


def ask_before_quitting(screen: ReviewScreenLike) -> None:
    """Quit at once when nothing typed would be lost; else ask in a QuitModal."""
    screen.stash_draft()
    unsaved = screen.session.unsaved()
    if not unsaved:
        screen.app.exit()
        return
    where = ("each case's edits into its case.yaml (the leak lint applies, as on saving)"
             if screen.session.kind == "cases" else
             "each draft into its candidate's case.yaml, where the next review starts from it (the id stays "
             "the candidate's until approval)")

    def chosen(choice: str | None) -> None:
        if choice == "discard" or (choice == "save" and save_drafts(screen)):
            screen.app.exit()

    screen.app.push_screen(QuitModal(unsaved, where), chosen)


def save_drafts(screen: ReviewScreenLike) -> bool:
    """Write every unsaved draft; on the first that cannot be written, say why and stay."""
    for case_id in screen.session.unsaved():
        try:
            screen.session.save_draft(case_id)
        except (HindcastError, OSError) as exc:
            body = str(exc)
            if isinstance(exc, LeakRefused):
                body += "\n\n" + "\n".join(f"  {finding.describe()}" for finding in exc.findings)
            screen.opened = None  # what was saved is on disk now: open it again from there
            screen.refresh_queue()
            screen.show_error(f"Cannot save the draft of {case_id}; the review stays open", body)
            return False
    return True
