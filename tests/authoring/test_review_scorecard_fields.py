"""The Case tab edits the scorecard fields (allowed paths, risk flags, invariants, invariant policy) like the rest."""

from __future__ import annotations

from dataclasses import replace

from textual.pilot import Pilot
from textual.widgets import Input, Select, TextArea

from authoring.app import ReviewApp
from authoring.screens.modals import MessageModal, QuitModal
from authoring.widgets.queue_table import EDITED_MARK
from corpus.model import Invariant
from tests.authoring.test_review_actions import CLEAN, queue, review, type_prompt
from tests.authoring.test_review_drafts import cell
from tests.testing.pilothelpers import settle, sync
from tests.testing.shopfactory import Shop, tree

INVARIANTS = ("imports: python -c 'import shop'\n"
              "empty-total@30=PYTHONPATH=src python -c 'from shop.cart import total; assert total([]) == 0'")
EXPECTED = (Invariant("imports", "python -c 'import shop'"),
            Invariant("empty-total", "PYTHONPATH=src python -c 'from shop.cart import total; assert total([]) == 0'",
                      30))


async def type_into(pilot: Pilot[None], selector: str, text: str) -> None:
    """Focus a form field, type its first key (replacing what it held) and paste the rest."""
    field = pilot.app.screen.query_one(selector)
    field.focus()
    await pilot.pause()
    if isinstance(field, TextArea):
        field.select_all()
        await pilot.press(text[0])
        field.insert(text[1:])
    else:
        assert isinstance(field, Input)
        field.value = ""
        await pilot.press(text[0])
        field.insert_text_at_cursor(text[1:])
    await settle(pilot)
    await pilot.press("escape")
    await settle(pilot)


async def fill_scorecard(pilot: Pilot[None]) -> None:
    await pilot.press("5")
    await type_into(pilot, "#form-allowed_paths", "src/shop/\n\n!src/shop/vendored/\n")
    await type_into(pilot, "#form-risk_flags", "payments, auth")
    await type_into(pilot, "#form-invariants", INVARIANTS)


def shown(app: ReviewApp, selector: str) -> bool:
    return app.screen.query_one(selector).display


@sync
async def test_the_case_tab_writes_the_scorecard_fields(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await fill_scorecard(pilot)
        assert not shown(app, "#form-invariant_policy")  # an advisory case has no invariant policy to set
        app.screen.query_one("#form-policy", Select).value = "blocking"
        await settle(pilot)
        assert shown(app, "#form-invariant_policy")
        app.screen.query_one("#form-invariant_policy", Select).value = "blocking"
        await settle(pilot)
        await pilot.press("a")
        await settle(pilot)
        assert queue(app) == ["discount-percent", "tax-of-zero"]
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert case.allowed_paths == ("src/shop/", "!src/shop/vendored/")
    assert case.risk_flags == ("payments", "auth")
    assert case.invariants == EXPECTED
    assert (case.policy, case.invariant_policy) == ("blocking", "blocking")
    text = (shop.corpus.root / "cases" / "cart-total-cents" / "case.yaml").read_text()
    assert "timeout: 30" in text and text.count("timeout:") == 2  # the grader's and the one not the default


@sync
async def test_a_hidden_invariant_policy_does_not_apply(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await fill_scorecard(pilot)
        app.screen.query_one("#form-policy", Select).value = "blocking"
        await settle(pilot)
        app.screen.query_one("#form-invariant_policy", Select).value = "blocking"
        app.screen.query_one("#form-policy", Select).value = "advisory"  # back: the invariant policy goes
        await settle(pilot)
        assert not shown(app, "#form-invariant_policy")
        await pilot.press("a")
        await settle(pilot)
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert (case.policy, case.invariant_policy, case.invariants) == ("advisory", "advisory", EXPECTED)


@sync
async def test_a_bad_invariant_line_is_refused_naming_it(shop: Shop) -> None:
    before = tree(shop.corpus.root)
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await pilot.press("5")
        await type_into(pilot, "#form-invariants", "imports: python -c 'import shop'\npython -m shop.check")
        await pilot.press("a")
        await settle(pilot)
        modal = app.screen
        assert isinstance(modal, MessageModal)
        assert modal.body == ("invariants line 2: expected NAME: COMMAND, NAME=COMMAND or NAME@SECONDS: COMMAND, "
                              "found 'python -m shop.check'")
        await pilot.press("enter")
        await type_into(pilot, "#form-risk_flags", "Payments")
        await type_into(pilot, "#form-invariants", "imports: python -c 'import shop'")
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, MessageModal)
        assert app.screen.body.startswith("risk flag 'Payments': expected a lowercase label")
    assert tree(shop.corpus.root) == before


@sync
async def test_drafts_and_undo_keep_the_scorecard_fields(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await fill_scorecard(pilot)
        await pilot.press("down")
        await settle(pilot)
        assert cell(app, "cart-total-cents", "marks").startswith(EDITED_MARK)
        assert app.screen.query_one("#form-invariants", TextArea).text == ""  # the next candidate's own
        await pilot.press("up")
        await settle(pilot)
        assert app.screen.query_one("#form-invariants", TextArea).text == INVARIANTS
        assert app.screen.query_one("#form-allowed_paths", TextArea).text == "src/shop/\n!src/shop/vendored/"
        await pilot.press("a")
        await settle(pilot)
        assert shop.corpus.ids("cases") == ["cart-total-cents"]
        await pilot.press("u")
        await settle(pilot)
        assert shop.corpus.ids("cases") == []
        assert app.screen.query_one("#form-risk_flags", Input).value == "payments, auth"
        assert app.screen.query_one("#form-invariants", TextArea).text == INVARIANTS
        assert cell(app, "cart-total-cents", "marks").startswith(EDITED_MARK)


@sync
async def test_quitting_keeps_a_half_typed_invariant_and_says_why_it_cannot_be_saved(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await pilot.press("5")
        await type_into(pilot, "#form-invariants", "imports@soon: python -c 'import shop'")
        await pilot.press("down", "q")
        await settle(pilot)
        assert isinstance(app.screen, QuitModal) and app.screen.unsaved == ["cart-total-cents"]
        await pilot.click("#save")
        await settle(pilot)
        assert isinstance(app.screen, MessageModal) and app.return_code is None
        assert "the timeout after '@' must be a whole number of seconds, found 'soon'" in app.screen.body
        await pilot.press("enter", "up")
        await settle(pilot)
        assert app.screen.query_one("#form-invariants", TextArea).text == "imports@soon: python -c 'import shop'"


@sync
async def test_a_case_shows_its_fields_and_saves_them_edited(shop: Shop) -> None:
    path = shop.candidate("cart-total-cents") / "case.yaml"
    path.write_text(path.read_text() + "allowed_paths: [src/shop/]\nrisk_flags: [payments]\ninvariants:\n"
                    "  - name: imports\n    command: python -c 'import shop'\n    timeout: 15\n"
                    "  - name: two-lines\n    command: |\n      cd src\n      python -c 'import shop'\n")
    stored = shop.corpus.load("cart-total-cents", "candidates")
    shop.corpus.write(replace(stored.case, prompt=CLEAN + "\n"), stored.files, "cases")
    async with review(shop, kind="cases") as (app, pilot):
        await pilot.press("5")
        area = app.screen.query_one("#form-invariants", TextArea)
        assert area.text == "imports@15: python -c 'import shop'\ntwo-lines: cd src\n  python -c 'import shop'"
        assert app.screen.query_one("#form-allowed_paths", TextArea).text == "src/shop/"
        assert not cell(app, "cart-total-cents", "marks").startswith(EDITED_MARK)  # loading changed nothing
        await type_into(pilot, "#form-allowed_paths", "src/shop/cart.py")
        await pilot.press("a")
        await settle(pilot)
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert case.allowed_paths == ("src/shop/cart.py",)
    assert case.invariants == (Invariant("imports", "python -c 'import shop'", 15),
                               Invariant("two-lines", "cd src\npython -c 'import shop'\n"))
    assert "    command: |\n" in (shop.corpus.root / "cases" / "cart-total-cents" / "case.yaml").read_text()
