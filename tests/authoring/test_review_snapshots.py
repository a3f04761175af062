"""Snapshots of the review screens at 80x24 (update with `pytest --snapshot-update`, then look at them)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from authoring.app import make_app
from authoring.verifying import Progress, VerifyOutcome
from corpus import Corpus
from corpus.store import Kind
from corpus.verdicts import RecordedVerdict, write_candidate_verdict
from tests.testing.pilothelpers import settle
from tests.testing.shopfactory import TODAY, Shop

Compare = Callable[..., bool]


def never_verify(corpus: Corpus, case_id: str, kind: Kind, progress: Progress) -> VerifyOutcome:
    raise AssertionError("snapshots never verify")


def steps(*keys: str, prompt: str | None = None, wordings: str | None = None,
          ) -> Callable[[Pilot[Any]], Awaitable[None]]:
    """Settle the app (workers done, no blinking cursor), optionally set the prompt and the wordings, then press
    keys."""

    async def run_before(pilot: Pilot[Any]) -> None:
        await settle(pilot)
        for selector, text in (("#prompt-text", prompt), ("#wordings-text", wordings)):
            if text is not None:
                pilot.app.screen.query_one(selector, TextArea).load_text(text)
                await settle(pilot)
        for key in keys:
            await pilot.press(key)
            await settle(pilot)
        for widget in [*pilot.app.screen.query(TextArea), *pilot.app.screen.query(Input)]:
            widget.cursor_blink = False

    return run_before


SCREENS = {
    "facts": steps(),
    "oracle": steps("2"),
    "grader": steps("3"),
    "prompt_findings": steps("4", prompt="Totals drop cents since 4f5d987 (#12).\nAdd round_half_up; "
                                         "ask dana@acme.io.\n"),
    "case_form": steps("5"),
    "wordings": steps("6", wordings="=== terse\nTotals drop their cents.\n\n=== helper\nAdd round_half_up.\n"),
    "help": steps("question_mark"),
    "reject_modal": steps("r"),
    "override_modal": steps("a", prompt="Totals drop cents (#12).\n"),
    "refused_modal": steps("a"),
    "filtered": steps("slash", "t", "a", "x", "enter"),
    "editing": steps("e"),
    "marks": steps("e", "x", "escape", "down", "s"),
    "quit_modal": steps("e", "x", "escape", "q"),
}


@pytest.mark.parametrize("name", SCREENS)
def test_screen(shop: Shop, snap_compare: Compare, name: str) -> None:
    app = make_app(shop.corpus.root, today=TODAY, verifier=never_verify)
    assert snap_compare(app, terminal_size=(80, 24), run_before=SCREENS[name])


@pytest.mark.parametrize("name", ["verdicts", "verdict_filter"])
def test_queue_with_verdicts(shop: Shop, snap_compare: Compare, name: str) -> None:
    write_candidate_verdict(shop.candidate("tax-of-zero"), RecordedVerdict("VALID", feature=True))
    write_candidate_verdict(shop.candidate("discount-percent"), RecordedVerdict("VALID"))
    write_candidate_verdict(shop.candidate("cart-total-cents"), RecordedVerdict("ERROR", "setup failed"))
    app = make_app(shop.corpus.root, today=TODAY, verifier=never_verify)
    run_before = steps() if name == "verdicts" else steps("f", "f")
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)


SCORECARD_FIELDS = ("policy: blocking\nallowed_paths: [src/shop/, '!src/shop/vendored/']\nrisk_flags: [payments]\n"
                    "invariants:\n  - {name: imports, command: python -c 'import shop'}\n"
                    "  - {name: empty-total, command: \"python -c 'from shop.cart import total; assert total([]) == 0'\","
                    " timeout: 30}\ninvariant_policy: blocking\n")


def test_case_form_scorecard_fields(shop: Shop, snap_compare: Compare) -> None:
    """The Case tab scrolled to its end: allowed paths, risk flags, invariants and the invariant policy."""
    path = shop.candidate("cart-total-cents") / "case.yaml"
    path.write_text(path.read_text() + SCORECARD_FIELDS)
    show_tab = steps("5")

    async def run_before(pilot: Pilot[Any]) -> None:
        await show_tab(pilot)
        pilot.app.screen.query_one("#form").scroll_end(animate=False)
        await settle(pilot)

    app = make_app(shop.corpus.root, today=TODAY, verifier=never_verify)
    assert snap_compare(app, terminal_size=(80, 24), run_before=run_before)
