"""Every review action driven by key presses at 80x24; the corpus files are the assertion."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from textual.pilot import Pilot
from textual.widgets import Input, Label, Static, TextArea

from authoring.app import ReviewApp, make_app
from authoring.screens.help import HelpScreen
from authoring.screens.modals import MessageModal, ReasonModal
from authoring.verifying import Progress, VerifyOutcome, runner_verifier
from authoring.widgets.prompt_editor import PromptEditor
from authoring.widgets.queue_table import QueueTable
from authoring.widgets.status_line import StatusLine
from corpus import Corpus
from corpus.store import Kind
from tests.testing.pilothelpers import settle, sync
from tests.testing.shopfactory import TODAY, Shop, tree

CLEAN = "Cart totals lose their cents; they must keep them."


def fake_verifier(corpus: Corpus, case_id: str, kind: Kind, progress: Progress) -> VerifyOutcome:
    progress(f"{case_id}: baseline #1: fail")
    progress(f"{case_id}: oracle #1: pass")
    return VerifyOutcome(case_id, "VALID", "")


@asynccontextmanager
async def review(shop: Shop, kind: Kind = "candidates") -> AsyncIterator[tuple[ReviewApp, Pilot[None]]]:
    app = make_app(shop.corpus.root, kind=kind, today=TODAY, verifier=fake_verifier)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        yield app, pilot


async def type_prompt(pilot: Pilot[None], text: str) -> None:
    """Open the editor, replace the prompt (typing its first key, pasting the rest), go back to the queue."""
    await pilot.press("e")
    area = pilot.app.screen.query_one("#prompt-text", TextArea)
    area.select_all()
    await pilot.press(text[0])
    area.insert(text[1:])
    await settle(pilot)
    await pilot.press("escape")


async def give_reason(pilot: Pilot[None], reason: str) -> None:
    """Type the start of a reason into the open modal, paste the rest, and submit it."""
    await pilot.press(reason[0])
    field = pilot.app.screen.query_one("#reason", Input)
    field.insert_text_at_cursor(reason[1:])
    await pilot.press("enter")
    await settle(pilot)


def queue(app: ReviewApp) -> list[str]:
    table = app.screen.query_one(QueueTable)
    return [str(key.value) for key in table.rows]


def status(app: ReviewApp) -> str:
    return str(app.screen.query_one(StatusLine).render())


@sync
async def test_approve_writes_the_case(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        assert queue(app) == ["cart-total-cents", "discount-percent", "tax-of-zero"]
        await type_prompt(pilot, CLEAN)
        await pilot.press("a")
        await settle(pilot)
        assert queue(app) == ["discount-percent", "tax-of-zero"]
        assert status(app) == "approved cart-total-cents as cases/cart-total-cents (advisory: the gate warns on it, never blocks) · u undoes"
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert (case.prompt, case.owner, case.leak_override) == (CLEAN + "\n", "team-shop", None)
    assert not shop.candidate("cart-total-cents").exists()


@sync
async def test_leaks_need_a_written_override(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, "Add round_half_up")
        await pilot.press("a")
        modal = app.screen
        assert isinstance(modal, ReasonModal)
        await pilot.press("enter")
        assert app.screen is modal and str(modal.query_one("#reason-error", Label).render()) == (
            "A written reason is required.")
        await give_reason(pilot, "the helper name is the API asked for")
        assert queue(app) == ["discount-percent", "tax-of-zero"]
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert case.leak_override == "the helper name is the API asked for"


@sync
async def test_cancelled_override_writes_nothing(shop: Shop) -> None:
    before = tree(shop.corpus.root)
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, "See #12")
        await pilot.press("a")
        assert isinstance(app.screen, ReasonModal)
        await pilot.press("escape")
        assert not isinstance(app.screen, ReasonModal)
    assert tree(shop.corpus.root) == before


@sync
async def test_secrets_are_refused_in_a_modal(shop: Shop) -> None:
    before = tree(shop.corpus.root)
    async with review(shop) as (app, pilot):
        # The miner's draft marker is still in the prompt: it can never ship.
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, MessageModal)
        assert "must never ship" in app.screen.body and "draft" in app.screen.body
        await pilot.press("enter")
        assert not isinstance(app.screen, MessageModal)
    assert tree(shop.corpus.root) == before


@sync
async def test_findings_follow_typing(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        editor = app.screen.query_one(PromptEditor)
        assert [f.kind for f in editor.findings] == ["draft", "commit-message"]
        await type_prompt(pilot, "Fixed in 4f5d98757921? ask dana@acme.io")
        assert [f.kind for f in editor.findings] == ["commit", "email"]
        await type_prompt(pilot, CLEAN)
        assert editor.findings == []
        assert str(editor.query_one("#findings-title", Label).render()) == "Findings: none — nothing leaks"


@sync
async def test_reject_needs_a_reason_and_records_it(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await pilot.press("down", "down", "r")
        assert isinstance(app.screen, ReasonModal)
        await pilot.press("enter")
        assert isinstance(app.screen, ReasonModal)
        await give_reason(pilot, "flaky")
        assert queue(app) == ["cart-total-cents", "discount-percent"]
    [rejection] = shop.corpus.rejections()
    assert (rejection.candidate_id, rejection.reason, rejection.fix_commit) == (
        "tax-of-zero", "flaky", shop.fixes["tax-of-zero"][1])
    assert not shop.candidate("tax-of-zero").exists()


@sync
async def test_skip_moves_the_candidate_last_and_writes_nothing(shop: Shop) -> None:
    before = tree(shop.corpus.root)
    async with review(shop) as (app, pilot):
        await pilot.press("s")
        await settle(pilot)
        assert queue(app) == ["discount-percent", "tax-of-zero", "cart-total-cents"]
        assert app.screen.query_one(QueueTable).selected_id() == "discount-percent"
        await pilot.press("u")
        assert queue(app) == ["cart-total-cents", "discount-percent", "tax-of-zero"]
    assert tree(shop.corpus.root) == before


@sync
async def test_undo_restores_approve_and_reject(shop: Shop) -> None:
    before = tree(shop.corpus.root)
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("a")
        await pilot.press("r")
        await give_reason(pilot, "duplicate")
        assert queue(app) == ["tax-of-zero"]
        await pilot.press("u")
        await settle(pilot)
        assert status(app) == "undone: rejected discount-percent"
        await pilot.press("u")
        await settle(pilot)
        assert queue(app) == ["cart-total-cents", "discount-percent", "tax-of-zero"]
        assert app.screen.query_one(QueueTable).selected_id() == "cart-total-cents"
        assert app.screen.query_one(PromptEditor).text == CLEAN  # what was typed comes back as the draft
        await pilot.press("u")
        assert not isinstance(app.screen, MessageModal)
        assert status(app) == "nothing to undo"
    assert tree(shop.corpus.root) == before


@sync
async def test_a_candidate_changed_on_disk_is_not_overwritten(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        path = shop.candidate("cart-total-cents") / "case.yaml"
        path.write_text(path.read_text().replace("title: Fix cart", "title: Edited elsewhere, fix cart"))
        later = path.stat().st_mtime_ns + 10**9
        os.utime(path, ns=(later, later))
        before = tree(shop.corpus.root)
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, MessageModal)
        assert "changed on disk since it was opened; reload it, nothing was written" in app.screen.body
        assert tree(shop.corpus.root) == before
        await pilot.press("enter", "ctrl+r")
        await settle(pilot)
        assert status(app) == "reloaded 3 candidates from disk"
        assert app.screen.query_one(PromptEditor).text == CLEAN
        await pilot.press("a")
        await settle(pilot)
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert (case.title, case.prompt) == ("Edited elsewhere, fix cart total dropping cents", CLEAN + "\n")


@sync
async def test_bad_form_values_are_reported_in_a_modal(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("5")
        field = app.screen.query_one("#form-grader_timeout", Input)
        field.focus()
        field.value = "soon"
        await pilot.press("escape", "a")
        assert isinstance(app.screen, MessageModal)
        assert app.screen.body == "grader timeout: expected a whole number of seconds, found 'soon'"
    assert shop.corpus.ids("cases") == []


@sync
async def test_drafts_survive_moving_through_the_queue(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("down", "up")
        assert app.screen.query_one(PromptEditor).text == CLEAN


@sync
async def test_filter_and_sort(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await pilot.press("slash", *"tax")
        assert queue(app) == ["tax-of-zero"]
        await pilot.press("enter")
        assert app.screen.query_one(QueueTable).has_focus
        await pilot.press("slash", "escape")
        assert queue(app) == ["cart-total-cents", "discount-percent", "tax-of-zero"]
        await pilot.press("o")
        assert app.screen.session.sort == "age"
        await pilot.press("o", "o")
        assert app.screen.session.sort == "files"
        bar = str(app.screen.query_one("#bar").render())
        assert bar == "shop · candidates 3/3 · sort files"


@sync
async def test_verify_streams_progress_and_shows_the_verdict(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await pilot.press("v")
        await settle(pilot)
        assert status(app) == "verify cart-total-cents: VALID"


@sync
async def test_verify_through_the_runner_saves_grader_edits_first(shop: Shop) -> None:
    app = make_app(shop.corpus.root, today=TODAY, verifier=runner_verifier)
    command = "PYTHONPATH=src python -m pytest -q -p no:cacheprovider tests/test_cart.py"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        app.screen.query_one("#form-grader_command", Input).value = command
        await pilot.press("v")
        await settle(pilot)
        assert status(app) == "verify cart-total-cents: VALID"
    assert shop.corpus.load("cart-total-cents", "candidates").case.grader.command == command


@sync
async def test_a_broken_candidate_shows_its_error(shop: Shop) -> None:
    (shop.candidate("discount-percent") / "case.yaml").write_text("id: discount-percent\ntitle: [\n")
    async with review(shop) as (app, pilot):
        assert queue(app)[-1] == "discount-percent"
        await pilot.press("down", "down")
        await settle(pilot)
        facts = str(app.screen.query_one("#facts-text", Static).content)
        assert facts.startswith("Cannot open this candidate\n") and "malformed YAML" in facts
        await pilot.press("a", "r")
        assert not isinstance(app.screen, (MessageModal, ReasonModal))


@sync
async def test_editing_a_case_keeps_comments(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("a")
    path = shop.corpus.root / "cases" / "cart-total-cents" / "case.yaml"
    path.write_text("# owned by the cart team\n" + path.read_text())
    async with review(shop, kind="cases") as (app, pilot):
        await pilot.press("5")
        title = app.screen.query_one("#form-title", Input)
        title.value = "Cart totals keep cents"
        await pilot.press("escape", "a")
        await settle(pilot)
        assert status(app) == "saved cases/cart-total-cents · u undoes"
        await pilot.press("r")
        assert not isinstance(app.screen, ReasonModal)
    text = path.read_text()
    assert text.startswith("# owned by the cart team\nid: cart-total-cents\ntitle: Cart totals keep cents\n")


@sync
async def test_help_lists_keys_and_rules(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
