"""Nothing an author typed is lost: quitting asks first, undo brings drafts back, the queue shows their state."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rich.text import Text
from textual.widgets import Footer, Input

from authoring.app import ReviewApp
from authoring.decisions import keep_draft
from authoring.draft import draft_from
from authoring.queue import age_label
from authoring.screens.modals import MessageModal, QuitModal
from authoring.widgets.prompt_editor import PromptEditor
from authoring.widgets.queue_table import EDITED_MARK, SKIPPED_MARK, QueueTable
from corpus import UsageError
from corpus.verdicts import RecordedVerdict, candidate_verdict, write_candidate_verdict
from tests.authoring.test_review_actions import CLEAN, give_reason, queue, review, status, type_prompt
from tests.testing.pilothelpers import settle, sync
from tests.testing.shopfactory import TODAY, Shop, tree

LONG_ID = "fix-cart-total-dropping-cents-when-rounding-4f5d987"


def cell(app: ReviewApp, case_id: str, column: str) -> str:
    table = app.screen.query_one(QueueTable)
    value = table.get_cell(case_id, column)
    return value.plain if isinstance(value, Text) else str(value)


def footer_keys(app: ReviewApp) -> list[str]:
    """The descriptions the footer shows right now."""
    footer = app.screen.query_one(Footer)
    return [str(key.description) for key in footer.query("FooterKey")]


@sync
async def test_quitting_without_drafts_exits_at_once(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await pilot.press("down", "up", "5")  # looking at candidates edits nothing
        await pilot.press("q")
        await settle(pilot)
        assert app.return_code == 0


@sync
async def test_quitting_with_a_draft_asks_and_cancel_keeps_it(shop: Shop) -> None:
    before = tree(shop.corpus.root)
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("down")
        await pilot.press("q")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, QuitModal) and modal.unsaved == ["cart-total-cents"]
        await pilot.press("escape", "e", "ctrl+q")  # ctrl+q asks too, even from the editor
        await settle(pilot)
        assert isinstance(app.screen, QuitModal)
        await pilot.press("escape", "escape")
        await settle(pilot)
        assert app.return_code is None and not isinstance(app.screen, QuitModal)
        await pilot.press("up")
        await settle(pilot)
        assert app.screen.query_one(PromptEditor).text == CLEAN
    assert tree(shop.corpus.root) == before


@sync
async def test_quit_without_saving_writes_nothing(shop: Shop) -> None:
    before = tree(shop.corpus.root)
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("q")
        await settle(pilot)
        assert isinstance(app.screen, QuitModal)
        await pilot.click("#discard")
        await settle(pilot)
        assert app.return_code == 0
    assert tree(shop.corpus.root) == before


@sync
async def test_save_and_quit_keeps_every_draft_in_its_candidate(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("down", "5")
        title = app.screen.query_one("#form-title", Input)
        title.value = "Percent discounts subtract the percentage"
        await pilot.press("escape", "q")
        await settle(pilot)
        assert isinstance(app.screen, QuitModal)
        assert app.screen.unsaved == ["cart-total-cents", "discount-percent"]
        await pilot.press("enter")  # Save and quit has the focus
        await settle(pilot)
        assert app.return_code == 0
    cart = shop.corpus.load("cart-total-cents", "candidates").case
    discount = shop.corpus.load("discount-percent", "candidates").case
    assert (cart.prompt, cart.id) == (CLEAN + "\n", "cart-total-cents")
    assert discount.title == "Percent discounts subtract the percentage"
    assert discount.prompt.startswith("DRAFT")  # only what was typed changes
    async with review(shop) as (app, pilot):
        assert app.screen.query_one(PromptEditor).text == CLEAN + "\n"
        await pilot.press("q")
        await settle(pilot)
        assert app.return_code == 0  # the saved drafts are what is on disk now


@sync
async def test_saving_a_case_on_quit_is_linted_and_a_refusal_stays(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("a")
        await settle(pilot)
    async with review(shop, kind="cases") as (app, pilot):
        await type_prompt(pilot, "See #12")
        await pilot.press("q", "enter")
        await settle(pilot)
        assert isinstance(app.screen, MessageModal) and "approval refused" in app.screen.body
        assert app.return_code is None
        await pilot.press("enter")
        await type_prompt(pilot, "Cart totals must keep their cents.")
        await pilot.press("q", "enter")
        await settle(pilot)
        assert app.return_code == 0
    assert shop.corpus.load("cart-total-cents", "cases").case.prompt == "Cart totals must keep their cents.\n"


@sync
async def test_undoing_an_approval_brings_back_the_prompt_and_form(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("5")
        app.screen.query_one("#form-id", Input).value = "cart-keeps-cents"
        app.screen.query_one("#form-tags", Input).value = "money, rounding"
        await pilot.press("escape", "a")
        await settle(pilot)
        assert shop.corpus.ids("cases") == ["cart-keeps-cents"]
        await pilot.press("u")
        await settle(pilot)
        assert shop.corpus.ids("cases") == []
        assert app.screen.query_one(PromptEditor).text == CLEAN
        assert app.screen.query_one("#form-id", Input).value == "cart-keeps-cents"
        assert app.screen.query_one("#form-tags", Input).value == "money, rounding"
        assert cell(app, "cart-total-cents", "marks").startswith(EDITED_MARK)
        await pilot.press("a")  # approving again needs no retyping
        await settle(pilot)
    assert shop.corpus.load("cart-keeps-cents", "cases").case.tags == ("money", "rounding")


@sync
async def test_undoing_a_rejection_brings_back_the_draft(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, "Percent discounts subtract the percent itself.")
        await pilot.press("r")
        await give_reason(pilot, "duplicate")
        assert "cart-total-cents" not in queue(app)
        await pilot.press("u")
        await settle(pilot)
        assert status(app) == "undone: rejected cart-total-cents"
        assert app.screen.query_one(PromptEditor).text == "Percent discounts subtract the percent itself."


@sync
async def test_nothing_to_undo_is_a_status_line(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await pilot.press("u")
        await settle(pilot)
        assert app.screen.__class__.__name__ == "ReviewScreen"
        assert status(app) == "nothing to undo"


@sync
async def test_the_queue_shows_leaks_edits_and_skips(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        # The miner's drafts: the marker everywhere, and two of them retell their fix's message.
        assert [cell(app, case_id, "leaks") for case_id in queue(app)] == ["2", "1", "2"]
        await type_prompt(pilot, CLEAN)
        assert cell(app, "cart-total-cents", "leaks") == "0"
        assert cell(app, "cart-total-cents", "marks") == EDITED_MARK + " "
        await pilot.press("down", "s")
        await settle(pilot)
        assert cell(app, "discount-percent", "marks") == " " + SKIPPED_MARK
        assert cell(app, "cart-total-cents", "marks") == EDITED_MARK + " "
        await pilot.press("up")
        await type_prompt(pilot, shop.corpus.load("cart-total-cents", "candidates").case.prompt)
        assert cell(app, "cart-total-cents", "marks") == "  "  # typed back to what is on disk: nothing to lose


@sync
async def test_ages_have_units(shop: Shop) -> None:
    async with review(shop) as (app, _):
        ages = {case_id: cell(app, case_id, "age") for case_id in queue(app)}
    assert ages == {"cart-total-cents": "38d", "discount-percent": "33d", "tax-of-zero": "30d"}
    assert TODAY.isoformat() == "2024-03-01"  # the fixes are from late January


def test_age_labels_carry_their_unit() -> None:
    assert [age_label(days) for days in (None, -2, 0, 59, 60, 150, 729, 730, 3000)] == [
        "-", "0d", "0d", "59d", "2mo", "5mo", "24mo", "2y", "8y"]


@sync
async def test_the_id_column_uses_the_width_there_is(shop: Shop) -> None:
    stored = shop.corpus.load("tax-of-zero", "candidates")
    shop.corpus.write(replace(stored.case, id=LONG_ID), stored.files, "candidates")
    async with review(shop) as (app, pilot):
        shown = cell(app, LONG_ID, "id")
        assert len(shown) > 20 and shown.endswith("…") and LONG_ID.startswith(shown[:-1])
        await pilot.resize_terminal(140, 24)
        await settle(pilot)
        assert cell(app, LONG_ID, "id") == LONG_ID
        assert cell(app, "tax-of-zero", "subject") == "Stop adding a unit of tax to every amount"


@sync
async def test_the_footer_says_how_to_leave_the_editor(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        assert "Approve" in footer_keys(app) and "Leave the editor" not in footer_keys(app)
        await pilot.press("e")
        await settle(pilot)
        keys = footer_keys(app)
        assert "Leave the editor" in keys and "Approve" not in keys and "Quit" not in keys
        await pilot.press("escape", "5", "tab")
        await settle(pilot)
        app.screen.query_one("#form-title", Input).focus()
        await settle(pilot)
        assert "Leave the form" in footer_keys(app)
        await pilot.press("escape", "slash")
        await settle(pilot)
        assert "Clear the filter" in footer_keys(app)
        await pilot.press("escape")
        await settle(pilot)
        assert "Approve" in footer_keys(app)


@sync
async def test_undoing_a_save_brings_back_the_edits_as_a_draft(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("a")
        await settle(pilot)
    saved = tree(shop.corpus.root)
    async with review(shop, kind="cases") as (app, pilot):
        await type_prompt(pilot, "Cart totals must keep their cents.")
        await pilot.press("a")
        await settle(pilot)
        assert status(app) == "saved cases/cart-total-cents · u undoes"
        assert cell(app, "cart-total-cents", "marks") == "  "
        await pilot.press("u")
        await settle(pilot)
        assert tree(shop.corpus.root) == saved
        assert app.screen.query_one(PromptEditor).text == "Cart totals must keep their cents."
        assert cell(app, "cart-total-cents", "marks").startswith(EDITED_MARK)


def test_keeping_a_draft_refuses_a_candidate_changed_on_disk(shop: Shop) -> None:
    stored = shop.corpus.load("cart-total-cents", "candidates")
    draft = replace(draft_from(stored.case, shop.corpus.config.defaults), prompt=CLEAN, id="another-id")
    keep_draft(shop.corpus, "cart-total-cents", draft, expect_mtime_ns=stored.mtime_ns)
    kept = shop.corpus.load("cart-total-cents", "candidates")
    assert (kept.case.id, kept.case.prompt, kept.files) == ("cart-total-cents", CLEAN + "\n", stored.files)
    before = tree(shop.corpus.root)
    with pytest.raises(UsageError, match="changed on disk since it was opened"):
        keep_draft(shop.corpus, "cart-total-cents", draft, expect_mtime_ns=stored.mtime_ns - 1)
    assert tree(shop.corpus.root) == before


@sync
async def test_saving_a_prompt_draft_keeps_the_verdict_and_a_grader_edit_drops_it(shop: Shop) -> None:
    candidates = shop.corpus.root / "candidates"
    for case_id in ("cart-total-cents", "discount-percent"):
        write_candidate_verdict(candidates / case_id, RecordedVerdict("VALID", repeats=1, verified_at="2024-03-01"))
    async with review(shop) as (app, pilot):
        assert cell(app, "cart-total-cents", "verdict").strip() == "VALID"
        await type_prompt(pilot, CLEAN)
        await pilot.press("down", "5")
        app.screen.query_one("#form-grader_command", Input).value = "python -m pytest -q tests"
        await pilot.press("escape", "q")
        await settle(pilot)
        assert isinstance(app.screen, QuitModal)
        await pilot.press("enter")  # Save and quit
        await settle(pilot)
        assert app.return_code == 0
    assert shop.corpus.load("cart-total-cents", "candidates").case.prompt == CLEAN + "\n"
    assert candidate_verdict(candidates / "cart-total-cents") == RecordedVerdict("VALID", repeats=1,
                                                                                 verified_at="2024-03-01")
    assert shop.corpus.load("discount-percent", "candidates").case.grader.command == "python -m pytest -q tests"
    assert candidate_verdict(candidates / "discount-percent") is None  # what verify measured changed
    async with review(shop) as (app, pilot):
        assert cell(app, "cart-total-cents", "verdict").strip() == "VALID"
