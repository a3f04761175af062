"""Approving from the review screen (saving, over cases): findings that can never ship, or an override already
refused, in a modal; leak findings asked about, approving with the written justification the author gives."""

from __future__ import annotations

from typing import Protocol

from textual.app import App

from authoring.decisions import Decision, LeakRefused
from authoring.draft import Draft
from authoring.leaks import Finding
from authoring.screens.modals import ReasonModal
from authoring.session import Opened, ReviewSession
from corpus import HindcastError

USER_ERRORS = (HindcastError, OSError)
"""Errors a person can act on: shown in a modal (or the facts tab), never as a traceback."""


class ApprovingScreen(Protocol):
    """What approving needs of the review screen, so this module does not import the screen that calls it."""

    session: ReviewSession
    APPROVE_WORD: str

    @property
    def app(self) -> App[object]: ...

    def after(self, decision: Decision) -> None: ...

    def show_error(self, title: str, message: str) -> None: ...


def listing(findings: list[Finding]) -> str:
    """One indented line per finding, naming the wording it is in when that is not the prompt."""
    return "\n".join(f"  {'' if f.wording == 'prompt' else f.wording + ' '}{f.describe()}" for f in findings)


def approve(screen: ApprovingScreen, opened: Opened, draft: Draft, override: str | None) -> None:
    """Approve (or save) the draft; leak findings ask for a justification, and approve again with it."""
    try:
        decision = screen.session.approve(opened, draft, override)
    except LeakRefused as refused:
        found = listing(refused.findings)
        if refused.blocking or override is not None:
            screen.show_error("Approval refused", f"{refused.message}\n\n{found}")
            return
        screen.app.push_screen(
            ReasonModal(f"Override {len(refused.findings)} leakage finding(s)?",
                        f"{found}\n\nApproving anyway needs a written justification; it is stored in the "
                        f"case as leak_override.", action="Override and approve",
                        placeholder="why this prompt may ship as it is"),
            lambda reason: approve(screen, opened, draft, reason) if reason else None)
        return
    except USER_ERRORS as exc:
        screen.show_error(f"Cannot {screen.APPROVE_WORD} {opened.id}", str(exc))
        return
    screen.after(decision)
