"""A prompt that retells the fix commit's message is a leak; the miner's draft minus its marker is the usual case.

The repository is real and the candidates come from `miner scan`, so each message is the one git holds.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from authoring.bulk import Changes, set_fields
from authoring.decisions import LeakRefused, approve
from authoring.draft import draft_from
from authoring.gitinfo import fix_message, source_repo
from authoring.leaks import find_leaks
from authoring.lint import lint_corpus
from authoring.retelling import retelling
from corpus import Corpus
from corpus.references import DRAFT_PATTERN, find_references
from miner.scan import ScanOptions, scan
from tests.testing.gitrepo import GitRepo, git_init

CART = "def total(prices):\n    return int(sum(prices))\n"
CART_FIXED = "def total(prices):\n    return round(sum(prices), 2)\n"
TAX = "def tax(amount):\n    return amount * 0.2 + 1\n"
TAX_FIXED = "def tax(amount):\n    return amount * 0.2\n"
PARSE = "def parse(text):\n    return text.split(',')\n"
PARSE_FIXED = "def parse(text):\n    return text.split(',') if text else []\n"
DISCOUNT = "def apply(price, percent):\n    return price - percent\n"
DISCOUNT_FIXED = "def apply(price, percent):\n    return price - price * percent / 100\n"
MESSAGES = {
    "cart": "Fix cart total dropping cents (issue 832)\n\nThe total was truncated with int(), so 1.25 and 2.50 "
            "came to 3.\nSee github.com/acme/shop/issues/832 and GH-832.\n",
    "tax": "Stop adding a unit of tax to every amount\n\nReported in #833: tax(0) returned 1 instead of 0.\n",
    "parse": "Parse an empty string as an empty list\n\nparse('') returned [''] which broke the importer.\n"
             "Closes https://github.com/acme/shop/pull/44\n",
    "discount": "Fix percent discounts",
}


def grader_test(module: str, name: str, call: str, expected: str) -> str:
    return f"from shop.{module} import {call.split('(')[0]}\n\n\ndef test_{name}():\n    assert {call} == {expected}\n"


def build(path: Path) -> GitRepo:
    repo = git_init(path)
    repo.commit({"src/shop/__init__.py": "", "src/shop/cart.py": CART, "src/shop/tax.py": TAX,
                 "src/shop/parse.py": PARSE, "src/shop/discount.py": DISCOUNT}, "Initial shop")
    repo.commit({"src/shop/cart.py": CART_FIXED,
                 "tests/test_cart.py": grader_test("cart", "keeps_cents", "total([1.25, 2.50])", "3.75")},
                MESSAGES["cart"])
    repo.commit({"src/shop/tax.py": TAX_FIXED, "tests/test_tax.py": grader_test("tax", "zero", "tax(0)", "0")},
                MESSAGES["tax"])
    repo.commit({"src/shop/parse.py": PARSE_FIXED,
                 "tests/test_parse.py": grader_test("parse", "empty", "parse('')", "[]")}, MESSAGES["parse"])
    repo.commit({"src/shop/discount.py": DISCOUNT_FIXED,
                 "tests/test_discount.py": grader_test("discount", "percent", "apply(200, 10)", "180")},
                MESSAGES["discount"])
    return repo


@pytest.fixture(scope="module")
def mined(tmp_path_factory: pytest.TempPathFactory) -> Corpus:
    root = tmp_path_factory.mktemp("retelling")
    build(root / "repo")
    scan(ScanOptions(repo=root / "repo", corpus=root / "evals"))
    return Corpus.open(root / "evals")


def by_message(corpus: Corpus) -> dict[str, str]:
    """label -> candidate id."""
    ids = {}
    for stored in corpus.load_all("candidates"):
        assert stored.case.mined is not None
        label = next(k for k, m in MESSAGES.items() if stored.case.mined.message.strip() == m.strip())
        ids[label] = stored.case.id
    return ids


def without_marker(prompt: str) -> str:
    """The miner's draft with its DRAFT line deleted, as an author in a hurry would approve it."""
    return "\n".join(line for line in prompt.splitlines() if not DRAFT_PATTERN.search(line)).strip() + "\n"


def test_the_scrubbed_draft_keeps_no_reference(mined: Corpus) -> None:
    assert set(by_message(mined)) == set(MESSAGES)
    for stored in mined.load_all("candidates"):
        assert find_references(stored.case.prompt) == [], stored.case.prompt
        for leak in ("832", "833", "GH-", "github.com", "/pull/"):
            assert leak not in stored.case.prompt


def test_the_draft_minus_its_marker_is_refused_when_it_retells_the_message(mined: Corpus) -> None:
    ids = by_message(mined)
    kinds = {}
    for label, case_id in ids.items():
        stored = mined.load(case_id, "candidates")
        prompt = without_marker(stored.case.prompt)
        kinds[label] = sorted({f.kind for f in find_leaks(prompt, stored.case, stored.files)})
    # "Fix percent discounts" is too short a message to tell a retelling from a description.
    assert kinds == {"cart": ["commit-message"], "tax": ["commit-message"], "parse": ["commit-message"],
                     "discount": []}
    stored = mined.load(ids["cart"], "candidates")
    draft = replace(draft_from(stored.case, mined.config.defaults), prompt=without_marker(stored.case.prompt))
    with pytest.raises(LeakRefused) as refused:
        approve(mined, ids["cart"], draft)
    assert {f.kind for f in refused.value.findings} == {"commit-message"}
    assert mined.ids("cases") == []


def test_a_rewritten_prompt_is_not_a_retelling(mined: Corpus) -> None:
    stored = mined.load(by_message(mined)["cart"], "candidates")
    prompt = "A cart of items priced 1.25 and 2.50 totals 3 instead of 3.75: cents go missing.\n"
    assert find_leaks(prompt, stored.case, stored.files) == []


def test_the_message_comes_from_git_when_the_provenance_has_none(mined: Corpus) -> None:
    ids = by_message(mined)
    stored = mined.load(ids["tax"], "candidates")
    assert stored.case.mined is not None
    bare = replace(stored.case, mined=replace(stored.case.mined, message=""), id="tax-case",
                   prompt="Stop adding a unit of tax to every amount.\n")
    mined.write(bare, stored.files, "cases")
    try:
        repo = source_repo(mined)
        assert (fix_message(repo, bare) or "").strip() == MESSAGES["tax"].strip()
        assert fix_message(repo, stored.case) is None  # the provenance's message is the one to use
        [finding] = lint_corpus(mined).findings
        assert (finding.case_id, finding.finding.kind) == ("tax-case", "commit-message")
    finally:
        mined.remove("tax-case", "cases")


def test_a_candidate_made_holdout_cannot_ship_its_draft_retold_whatever_the_override(mined: Corpus) -> None:
    case_id = by_message(mined)["cart"]
    before = (mined.root / "candidates" / case_id / "case.yaml").read_text()
    set_fields(mined, [case_id], "candidates", Changes(holdout=True))
    try:
        stored = mined.load(case_id, "candidates")
        assert stored.case.holdout
        draft = replace(draft_from(stored.case, mined.config.defaults), prompt=without_marker(stored.case.prompt))
        with pytest.raises(LeakRefused) as refused:
            approve(mined, case_id, draft, override="the message says nothing the tests do not")
        assert {f.kind for f in refused.value.findings} == {"holdout-message"} and refused.value.blocking
        assert mined.ids("cases") == []
    finally:
        (mined.root / "candidates" / case_id / "case.yaml").write_text(before)


def test_lint_reports_a_holdout_case_that_retells_its_message_despite_its_override(mined: Corpus) -> None:
    stored = mined.load(by_message(mined)["tax"], "candidates")
    retold = replace(stored.case, id="tax-holdout", holdout=True, leak_override="reviewed: the message is vague",
                     prompt="Stop adding a unit of tax to every amount.\n")
    mined.write(retold, stored.files, "cases")
    try:
        report = lint_corpus(mined)
        assert [(f.case_id, f.finding.kind, f.overridden) for f in report.findings] == [
            ("tax-holdout", "holdout-message", False)]
        assert report.reported == report.findings
        mined.write(replace(retold, holdout=False), stored.files, "cases")
        assert [(f.finding.kind, f.overridden) for f in lint_corpus(mined).findings] == [("commit-message", True)]
    finally:
        mined.remove("tax-holdout", "cases")


@pytest.mark.parametrize(("prompt", "message", "retold"), [
    ("Fix cart total dropping cents.", "Fix cart total dropping cents", True),
    ("Fix it", "Fix it now please", False),  # too short a message
    ("Totals are wrong. " * 10 + "Fix cart total dropping cents.", "Fix cart total dropping cents", True),
    ("The cart total is wrong when prices have cents.", "Fix cart total dropping cents\n\nUse round()", False),
    (("Fix cart total dropping cents, and describe it well: prices like 1.25 and 2.50 come to 3, which loses "
     "the cents a customer expects to pay."), "Fix cart total dropping cents\n\nThe total was truncated by int()",
     False),
])
def test_the_similarity_rule(prompt: str, message: str, retold: bool) -> None:
    assert (retelling(prompt, message) is not None) is retold
