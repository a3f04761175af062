"""Approve, reject, save and undo over a real corpus: the files on disk are the assertion."""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from authoring.decisions import LeakRefused, approve, reject, save, skip, undo
from authoring.draft import Draft, draft_from
from authoring.gitinfo import base_probe, patch_id, source_repo
from corpus import Rejection, UsageError
from tests.testing.shopfactory import Shop, tree

CLEAN = "Cart totals lose their cents: 1.25 + 2.50 comes to 3 instead of 3.75. Totals must keep cents.\n"
NOW = datetime(2024, 3, 1, 12, 0, tzinfo=UTC)


def draft(shop: Shop, candidate: str, **changes: object) -> Draft:
    """The prefilled draft of a candidate with a clean prompt, then changes."""
    stored = shop.corpus.load(candidate, "candidates")
    return replace(draft_from(stored.case, shop.corpus.config.defaults), **{"prompt": CLEAN, **changes})


def test_approve_writes_the_case_and_removes_the_candidate(shop: Shop) -> None:
    decision = approve(shop.corpus, "cart-total-cents", draft(shop, "cart-total-cents", tags=("money",)))
    assert decision.describe() == "approved cart-total-cents as cases/cart-total-cents (advisory: the gate warns on it, never blocks)"
    assert not shop.candidate("cart-total-cents").exists()
    stored = shop.corpus.load("cart-total-cents", "cases")
    base, fix = shop.fixes["cart-total-cents"]
    assert (stored.case.prompt, stored.case.owner, stored.case.tags, stored.case.trigger_paths) == (
        CLEAN, "team-shop", ("money",), ("src/shop/cart.py",))
    assert (stored.case.base_commit, stored.case.fix_commit, stored.case.leak_override) == (base, fix, None)
    assert stored.case.mined is not None and stored.case.mined.score == 0.92
    assert stored.files.grader_files[0][0] == "tests/test_cart.py"


def test_approve_refuses_leaks_without_justification_and_writes_nothing(shop: Shop) -> None:
    before = tree(shop.corpus.root)
    with pytest.raises(LeakRefused) as refused:
        approve(shop.corpus, "cart-total-cents", draft(shop, "cart-total-cents", prompt="Add round_half_up.\n"))
    assert [f.kind for f in refused.value.findings] == ["oracle-identifier"]
    assert str(refused.value).startswith("approval refused: 1 leakage finding(s)")
    assert tree(shop.corpus.root) == before


def test_approve_with_justification_stores_it(shop: Shop) -> None:
    approve(shop.corpus, "cart-total-cents", draft(shop, "cart-total-cents", prompt="Add round_half_up.\n"),
            override="  The helper name is part of the public API request.  ")
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert case.leak_override == "The helper name is part of the public API request."


def test_no_justification_overrides_a_secret(shop: Shop) -> None:
    with pytest.raises(LeakRefused) as refused:
        approve(shop.corpus, "cart-total-cents",
                draft(shop, "cart-total-cents", prompt="Totals drop cents; ask dana@acme.io.\n"), override="ok")
    assert [f.kind for f in refused.value.blocking] == ["email"]
    assert shop.candidate("cart-total-cents").exists()


def test_identifier_existing_at_base_is_not_a_leak(shop: Shop) -> None:
    prompt = "Tax is one unit too high; round it with round_half_up like cart totals.\n"
    with pytest.raises(LeakRefused):
        approve(shop.corpus, "tax-of-zero", draft(shop, "tax-of-zero", prompt=prompt))
    probe = base_probe(source_repo(shop.corpus), shop.fixes["tax-of-zero"][0])
    approve(shop.corpus, "tax-of-zero", draft(shop, "tax-of-zero", prompt=prompt), in_base=probe)
    assert shop.corpus.load("tax-of-zero", "cases").case.leak_override is None


def test_approve_refuses_a_candidate_changed_since_opened(shop: Shop) -> None:
    stored = shop.corpus.load("discount-percent", "candidates")
    path = stored.directory / "case.yaml"
    path.write_text(path.read_text().replace("Fix percent discounts", "Fix percent discounts (edited)"))
    os.utime(path, ns=(stored.mtime_ns + 10**9, stored.mtime_ns + 10**9))
    before = tree(shop.corpus.root)
    with pytest.raises(UsageError, match="changed on disk since it was opened; reload it, nothing was written"):
        approve(shop.corpus, "discount-percent", draft(shop, "discount-percent"), expect_mtime_ns=stored.mtime_ns)
    assert tree(shop.corpus.root) == before


def test_approve_refuses_an_existing_case_id(shop: Shop) -> None:
    approve(shop.corpus, "cart-total-cents", draft(shop, "cart-total-cents"))
    with pytest.raises(UsageError, match="cases/cart-total-cents already exists"):
        approve(shop.corpus, "tax-of-zero", draft(shop, "tax-of-zero", id="cart-total-cents"))


def test_reject_records_the_fix_and_removes_the_candidate(shop: Shop) -> None:
    base, fix = shop.fixes["tax-of-zero"]
    pid = patch_id(source_repo(shop.corpus), base, fix)
    decision = reject(shop.corpus, "tax-of-zero", "  grader\n depends on  clock ", patch_id=pid, now=NOW)
    assert not shop.candidate("tax-of-zero").exists()
    assert shop.corpus.rejections() == (Rejection(fix, "grader depends on clock", "tax-of-zero", pid,
                                                  "2024-03-01T12:00:00+00:00"),)
    assert pid is not None and len(pid) == 40
    assert decision.describe() == "rejected tax-of-zero"


def test_reject_needs_a_reason(shop: Shop) -> None:
    with pytest.raises(UsageError, match="needs a reason"):
        reject(shop.corpus, "tax-of-zero", "   ")
    assert shop.candidate("tax-of-zero").exists()


@pytest.mark.parametrize("action", ["approve", "reject"])
def test_undo_restores_the_corpus_byte_for_byte(shop: Shop, action: str) -> None:
    rejected = shop.corpus.root / "rejected.yaml"
    rejected.write_text("# rejections, newest last\nrejected:\n  - fix_commit: " + "a" * 40 + "\n    reason: old\n")
    before = tree(shop.corpus.root)
    if action == "approve":
        decision = approve(shop.corpus, "cart-total-cents", draft(shop, "cart-total-cents"))
    else:
        decision = reject(shop.corpus, "cart-total-cents", "duplicate", now=NOW)
    assert tree(shop.corpus.root) != before
    undo(shop.corpus, decision)
    assert tree(shop.corpus.root) == before


def test_undo_skip_changes_nothing(shop: Shop) -> None:
    before = tree(shop.corpus.root)
    undo(shop.corpus, skip("tax-of-zero"))
    assert tree(shop.corpus.root) == before


def test_undo_refuses_after_the_case_was_edited(shop: Shop) -> None:
    decision = approve(shop.corpus, "cart-total-cents", draft(shop, "cart-total-cents"))
    path = shop.corpus.root / "cases" / "cart-total-cents" / "case.yaml"
    path.write_text(path.read_text().replace("owner: team-shop", "owner: lee"))
    after = tree(shop.corpus.root)
    with pytest.raises(UsageError, match="changed since approved cart-total-cents"):
        undo(shop.corpus, decision)
    assert tree(shop.corpus.root) == after


def test_save_keeps_comments_and_key_order_and_undo_restores(shop: Shop) -> None:
    approve(shop.corpus, "cart-total-cents", draft(shop, "cart-total-cents"))
    path = shop.corpus.root / "cases" / "cart-total-cents" / "case.yaml"
    path.write_text("# reviewed by lee\n" + path.read_text().replace("owner: team-shop", "owner: team-shop  # pager"))
    before = tree(shop.corpus.root)
    stored = shop.corpus.load("cart-total-cents", "cases")
    edited = replace(draft_from(stored.case, shop.corpus.config.defaults), title="Cart total keeps cents")
    decision = save(shop.corpus, "cart-total-cents", edited, expect_mtime_ns=stored.mtime_ns)
    text = path.read_text()
    assert text.startswith("# reviewed by lee\nid: cart-total-cents\ntitle: Cart total keeps cents\n")
    assert "owner: team-shop  # pager\n" in text
    undo(shop.corpus, decision)
    assert tree(shop.corpus.root) == before


def test_save_refuses_a_file_changed_on_disk(shop: Shop) -> None:
    approve(shop.corpus, "cart-total-cents", draft(shop, "cart-total-cents"))
    stored = shop.corpus.load("cart-total-cents", "cases")
    path = stored.directory / "case.yaml"
    path.write_text(path.read_text() + "# another terminal\n")
    os.utime(path, ns=(stored.mtime_ns + 10**9, stored.mtime_ns + 10**9))
    before = tree(shop.corpus.root)
    with pytest.raises(UsageError, match="changed on disk since it was opened"):
        save(shop.corpus, "cart-total-cents", draft_from(stored.case, shop.corpus.config.defaults),
             expect_mtime_ns=stored.mtime_ns)
    assert tree(shop.corpus.root) == before
