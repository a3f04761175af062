"""The review screen's wordings tab: the further wordings of a case, typed under `=== ID` lines, their leaks found
as the author types, written on approval and shown again when the case is reviewed."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Label, TabbedContent, TextArea

from authoring.screens.modals import MessageModal
from authoring.widgets.prompt_editor import PromptEditor
from corpus.model import Wording
from tests.authoring.test_review_actions import CLEAN, queue, review, type_prompt
from tests.testing.pilothelpers import settle, sync
from tests.testing.shopfactory import Shop, tree

TERSE = "Totals drop their cents."


async def type_wordings(pilot: Pilot[None], text: str) -> None:
    """Show the wordings tab and edit it (`e`), replace its text (typing the first key, pasting the rest), go back to the queue."""
    await pilot.press("6", "e")
    area = pilot.app.screen.query_one("#wordings-text", TextArea)
    assert area.has_focus
    area.select_all()
    await pilot.press(text[0])
    area.insert(text[1:])
    await settle(pilot)
    await pilot.press("escape")


@sync
async def test_wordings_are_typed_checked_and_approved(shop: Shop) -> None:
    async with review(shop) as (app, pilot):
        await type_prompt(pilot, CLEAN)
        await type_wordings(pilot, f"=== terse\n{TERSE}\n\n=== helper\nTotals go\nthrough round_half_up.")
        assert app.screen.query_one(TabbedContent).active == "wordings"
        editor = app.screen.query_one("#wordings-editor", PromptEditor)
        assert [(f.wording, f.line, f.column, f.kind) for f in editor.findings] == [
            ("helper", 6, 9, "oracle-identifier")]
        assert str(editor.query_one("#findings-title", Label).render()) == "Findings: 1"
        assert app.screen.query_one("#editor", PromptEditor).findings == []  # the prompt itself is clean
        before = tree(shop.corpus.root)
        await type_wordings(pilot, f"{TERSE}\n=== helper\nMore words.")
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, MessageModal)
        assert "start each wording with a line `=== ID`" in app.screen.body
        await pilot.press("enter")
        assert tree(shop.corpus.root) == before
        await type_wordings(pilot, f"=== terse\n{TERSE}")
        assert editor.findings == []
        await pilot.press("a")
        await settle(pilot)
        assert queue(app) == ["discount-percent", "tax-of-zero"]
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert (case.prompt, case.prompts) == (CLEAN + "\n", (Wording("terse", TERSE + "\n"),))
    async with review(shop, "cases") as (app, pilot):
        assert app.screen.query_one("#wordings-text", TextArea).text == f"=== terse\n{TERSE}"
        await type_wordings(pilot, f"=== terse\n{TERSE}\n\n=== story\nA customer paid 3 for 3.75 of goods.")
        await pilot.press("a")  # on a case, approve saves it
        await settle(pilot)
    assert [w.id for w in shop.corpus.load("cart-total-cents", "cases").case.prompts] == ["terse", "story"]
