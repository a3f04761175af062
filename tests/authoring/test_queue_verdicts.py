"""The review queue shows each candidate's last verdict, sorts VALID first and filters by verdict."""

from __future__ import annotations

from textual.widgets import Input

from authoring.app import make_app
from authoring.queue import arrange, cycle_verdict_filter, read_queue
from authoring.verifying import runner_verifier
from authoring.widgets.queue_table import QueueTable
from corpus.verdicts import RecordedVerdict, write_candidate_verdict, write_case_verdicts
from tests.authoring.test_review_actions import queue, review
from tests.testing.pilothelpers import settle, sync
from tests.testing.shopfactory import TODAY, Shop

SCORE_ORDER = ["cart-total-cents", "discount-percent", "tax-of-zero"]
"""The shop's candidates by score: 0.92, 0.71, 0.45."""


def record(shop: Shop) -> None:
    """tax-of-zero VALID (a feature), cart-total-cents INVALID, discount-percent never verified."""
    write_candidate_verdict(shop.candidate("tax-of-zero"), RecordedVerdict("VALID", feature=True))
    write_candidate_verdict(shop.candidate("cart-total-cents"), RecordedVerdict("INVALID", "baseline passes"))


def cells(shop_app: object, case_id: str) -> str:
    table = shop_app.screen.query_one(QueueTable)  # type: ignore[attr-defined]
    return str(table.get_cell(case_id, "verdict"))


def test_rows_carry_the_recorded_verdicts_and_valid_sorts_first(shop: Shop) -> None:
    record(shop)
    (shop.candidate("discount-percent") / "verification.json").write_text("{not json")  # unreadable: unverified
    rows = read_queue(shop.corpus)
    assert {r.id: (r.verdict, r.feature, r.verdict_word) for r in rows} == {
        "cart-total-cents": ("INVALID", False, "invalid"), "discount-percent": (None, False, "unverified"),
        "tax-of-zero": ("VALID", True, "feature")}
    assert [r.id for r in arrange(rows)] == ["tax-of-zero", "discount-percent", "cart-total-cents"]
    assert [r.id for r in arrange(rows, "id")] == sorted(SCORE_ORDER)  # the other sorts ignore verdicts
    assert [r.id for r in arrange(rows, needle="is:valid")] == ["tax-of-zero"]
    assert [r.id for r in arrange(rows, needle="is:feature")] == ["tax-of-zero"]
    assert [r.id for r in arrange(rows, needle="is:unverified")] == ["discount-percent"]
    assert [r.id for r in arrange(rows, needle="cart is:invalid")] == ["cart-total-cents"]
    assert [r.id for r in arrange(rows, needle="tax is:invalid")] == []
    assert [r.id for r in arrange(rows, needle="is:error")] == []


def test_cases_read_verification_json(shop: Shop) -> None:
    (shop.corpus.root / "cases").mkdir()
    (shop.corpus.root / "cases" / "a-case").mkdir()
    (shop.corpus.root / "cases" / "a-case" / "case.yaml").write_text("id: a-case\ntitle: A case\n")
    write_case_verdicts(shop.corpus.root, {"a-case": RecordedVerdict("ERROR", "setup failed")}, "f" * 64, "now")
    [row] = read_queue(shop.corpus, "cases")
    assert (row.id, row.verdict) == ("a-case", "ERROR")


def test_the_verdict_filter_cycles() -> None:
    seen, needle = [], "cart"
    for _ in range(8):
        needle = cycle_verdict_filter(needle)
        seen.append(needle)
    assert seen == ["cart is:valid", "cart is:feature", "cart is:mixed", "cart is:unverified", "cart is:invalid",
                    "cart is:error", "cart", "cart is:valid"]


@sync
async def test_the_queue_shows_sorts_and_filters_by_verdict(shop: Shop) -> None:
    record(shop)
    async with review(shop) as (app, pilot):
        assert queue(app) == ["tax-of-zero", "discount-percent", "cart-total-cents"]
        assert [cells(app, c) for c in queue(app)] == ["FEATURE", "·", "INVALID"]
        await pilot.press("f")
        await settle(pilot)
        assert queue(app) == ["tax-of-zero"]
        assert app.screen.query_one("#filter", Input).value == "is:valid"
        assert "filter “is:valid”" in str(app.screen.query_one("#bar").render())
        await pilot.press("f", "f", "f")  # feature, mixed, unverified
        await settle(pilot)
        assert queue(app) == ["discount-percent"]
        await pilot.press("f", "f", "f")
        await settle(pilot)
        assert queue(app) == ["tax-of-zero", "discount-percent", "cart-total-cents"]
        assert not app.screen.query_one("#filter", Input).has_class("-shown")


@sync
async def test_verify_now_puts_its_verdict_in_the_queue(shop: Shop) -> None:
    app = make_app(shop.corpus.root, today=TODAY, verifier=runner_verifier)
    command = "PYTHONPATH=src python -m pytest -q -p no:cacheprovider tests/test_discount.py"
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("down")
        await settle(pilot)
        await pilot.press("5")
        app.screen.query_one("#form-grader_command", Input).value = command
        await pilot.press("v")
        await settle(pilot)
        assert queue(app)[0] == "discount-percent" and cells(app, "discount-percent") == "VALID"
        assert app.screen.query_one(QueueTable).selected_id() == "discount-percent"
