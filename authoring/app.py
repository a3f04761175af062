"""The review app and its one factory, shared by `authoring review` and the tests."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType
from textual.widgets import Input, TextArea

from authoring.sampling import SampleSession
from authoring.screens.cases import CaseEditScreen
from authoring.screens.review import ReviewScreen
from authoring.screens.sample import SampleScreen
from authoring.sensitive import warm_up
from authoring.session import ReviewSession
from authoring.verifying import Verifier, runner_verifier
from corpus import Corpus
from corpus.layout import Kind


class ReviewApp(App[None]):
    """Hosts the review screen; everything else lives in the screen, its widgets and the session."""

    CSS_PATH = "review.tcss"
    TITLE = "Hindcast review"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "ask_quit", "Quit")]

    def __init__(self, session: ReviewSession, *, today: date, verifier: Verifier) -> None:
        super().__init__()
        self.session = session
        self.today = today
        self.verifier = verifier

    async def action_quit(self) -> None:
        """Quit; with drafts not saved, ask first (save and quit, quit without saving, or stay)."""
        review = next((screen for screen in self.screen_stack if isinstance(screen, ReviewScreen)), None)
        if review is None:
            self.exit()
        else:
            review.request_quit()

    async def action_ask_quit(self) -> None:
        """`q`: the same, offered only where q does not type (ctrl+q quits from anywhere)."""
        await self.action_quit()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """q types into a focused text field, so the footer does not offer it there."""
        return action != "ask_quit" or not isinstance(self.focused, (Input, TextArea))

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


class SampleApp(App[None]):
    """Hosts the sample screen: a person's review of the passes `runner sample` drew."""

    TITLE = "Hindcast sample"
    ENABLE_COMMAND_PALETTE = False

    def __init__(self, session: SampleSession) -> None:
        super().__init__()
        self.session = session

    def on_mount(self) -> None:
        self.push_screen(SampleScreen(self.session))


def make_sample_app(run_dir: Path, checklist: Path | None = None) -> SampleApp:
    """The sample app over a run's checklist (errors are raised before any screen)."""
    return SampleApp(SampleSession(run_dir, checklist))
