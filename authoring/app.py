"""The review app and its one factory, shared by `authoring review` and the tests."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from authoring.screens.review import CaseEditScreen, ReviewScreen
from authoring.sensitive import warm_up
from authoring.session import ReviewSession
from authoring.verifying import Verifier, runner_verifier
from corpus import Corpus
from corpus.store import Kind


class ReviewApp(App[None]):
    """Hosts the review screen; everything else lives in the screen, its widgets and the session."""

    CSS_PATH = "review.tcss"
    TITLE = "Hindcast review"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "Quit")]

    def __init__(self, session: ReviewSession, *, today: date, verifier: Verifier) -> None:
        super().__init__()
        self.session = session
        self.today = today
        self.verifier = verifier

    def on_mount(self) -> None:
        screen = CaseEditScreen if self.session.kind == "cases" else ReviewScreen
        self.push_screen(screen(self.session, today=self.today, verifier=self.verifier))
        self.run_worker(warm_up, thread=True, group="warm-up")


def make_app(corpus: Corpus | Path | str, *, kind: Kind = "candidates", today: date | None = None,
             verifier: Verifier | None = None) -> ReviewApp:
    """The review app over corpus (opened here when given a path; errors are raised before any screen)."""
    opened = corpus if isinstance(corpus, Corpus) else Corpus.open(corpus)
    return ReviewApp(ReviewSession(opened, kind), today=today or date.today(),
                     verifier=verifier or runner_verifier)
