"""A case's further wordings in the scriptable twins: add-prompt adds one linted like the prompt, lint checks every
wording, approve refuses a leaking wording."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from authoring.decisions import LeakRefused, approve
from authoring.draft import draft_from
from authoring.wordingtext import format_wordings, parse_wordings, sections, typed_leaks
from corpus.errors import ExitCode, UsageError
from corpus.model import Wording
from tests.authoring.test_authoring_cli import CLEAN, run
from tests.testing.shopfactory import Shop, tree

TERSE = "Totals drop their cents.\n"


def approved(shop: Shop, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    prompt = tmp_path / "prompt.md"
    prompt.write_text(CLEAN)
    root = str(shop.corpus.root)
    assert run(["approve", "cart-total-cents", "--corpus", root, "--prompt-file", str(prompt)], capsys)[0] == 0
    return root


def test_add_prompt_adds_a_wording_and_lint_checks_it(shop: Shop, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    root = approved(shop, tmp_path, capsys)
    wording = tmp_path / "terse.md"
    wording.write_text(TERSE)
    code, out, err = run(["add-prompt", "cart-total-cents", "--corpus", root, "--file", str(wording)], capsys)
    assert (code, out, err) == (0, ("added wording w2 to cases/cart-total-cents: 2 wordings; runs made before it "
                                   "compare with later ones only with --allow-dataset-change\n"), "")
    assert shop.corpus.load("cart-total-cents").case.prompts == (Wording("w2", TERSE),)
    before = tree(shop.corpus.root)
    wording.write_text("Totals must go through round_half_up.\n")
    code, out, err = run(["add-prompt", "cart-total-cents", "--corpus", root, "--file", str(wording), "--id",
                          "helper"], capsys)
    assert (code, out) == (ExitCode.FAILED, "")
    assert err.splitlines() == [
        (f"{wording}:1:24: oracle-identifier: only the oracle's added lines in src/shop/cart.py use this name; it "
        f"gives the fix away: 'round_half_up'"),
        ("authoring: error: wording refused: 1 finding(s) of leakage; fix them or give a written justification "
        "(--override)")]
    assert tree(shop.corpus.root) == before  # nothing written
    for args, message in ((["--id", "w2"], "--file id 'w2': case cart-total-cents has that wording already"),
                          (["--id", "prompt"], "--file id 'prompt': use up to 40 lowercase letters"),
                          (["--id", "x", "--candidate"], "candidates/cart-total-cents")):
        wording.write_text("Another way to put it.\n")
        code, out, err = run(["add-prompt", "cart-total-cents", "--corpus", root, "--file", str(wording), *args],
                             capsys)
        assert code == ExitCode.BAD_INPUT and message in err and len(err.splitlines()) == 1
    assert tree(shop.corpus.root) == before
    wording.write_text("Totals must go through round_half_up.\n")
    assert run(["add-prompt", "cart-total-cents", "--corpus", root, "--file", str(wording), "--id", "helper",
                "--override", "the helper is the API asked for"], capsys)[0] == 0
    case = shop.corpus.load("cart-total-cents").case
    assert [w.id for w in case.prompts] == ["w2", "helper"]
    assert case.leak_override == "the helper is the API asked for"
    # lint names the wording; the override justifies the leak, a secret in a wording never ships
    assert run(["lint", "--corpus", root], capsys)[:2] == (0, ("1 active case(s), no findings (1 leakage finding(s) "
                                                              "justified by leak_override)\n"))
    case_yaml = shop.corpus.root / "cases" / "cart-total-cents" / "case.yaml"
    case_yaml.write_text(case_yaml.read_text().replace("Totals drop their cents.", "Totals drop cents; ask "
                                                                                   "dana@acme.io."))
    code, out, _ = run(["lint", "--corpus", root], capsys)
    assert (code, out) == (1, ("cases/cart-total-cents/case.yaml: wording w2 1:24: email: an email address is "
                              "personal data: 'dana@acme.io'\n"))


def test_add_prompt_to_a_candidate_is_linted_on_approval(shop: Shop, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    root = str(shop.corpus.root)
    wording = tmp_path / "w.md"
    wording.write_text("Totals must go through round_half_up.\n")
    assert run(["add-prompt", "cart-total-cents", "--corpus", root, "--file", str(wording), "--candidate", "--id",
                "helper"], capsys)[0] == 0
    stored = shop.corpus.load("cart-total-cents", "candidates")
    draft = draft_from(stored.case, shop.corpus.config.defaults)
    assert draft.wordings == "=== helper\nTotals must go through round_half_up."
    before = tree(shop.corpus.root)
    with pytest.raises(LeakRefused, match="in the prompt and its wordings") as refused:
        approve(shop.corpus, "cart-total-cents", replace(draft, prompt=CLEAN))
    assert [(f.wording, f.kind) for f in refused.value.findings] == [("helper", "oracle-identifier")]
    assert tree(shop.corpus.root) == before
    decision = approve(shop.corpus, "cart-total-cents", replace(draft, prompt=CLEAN, wordings="=== terse\n" + TERSE))
    assert shop.corpus.load(str(decision.case_id)).case.prompts == (Wording("terse", TERSE),)


def test_typed_wordings_parse_and_find_leaks_at_their_lines(shop: Shop) -> None:
    case = shop.corpus.load("cart-total-cents", "candidates").case
    typed = "=== terse\n\nTotals drop cents.\n\n=== helper\nUse\nround_half_up.\n"
    assert [(s.id, s.line, s.text) for s in sections(typed)] == [("terse", 2, "Totals drop cents."),
                                                                  ("helper", 5, "Use\nround_half_up.")]
    assert parse_wordings(typed, case) == (Wording("terse", "Totals drop cents.\n"),
                                           Wording("helper", "Use\nround_half_up.\n"))
    assert format_wordings(parse_wordings(typed, case)) == "=== terse\nTotals drop cents.\n\n=== helper\nUse\nround_half_up."
    stored = shop.corpus.load("cart-total-cents", "candidates")
    assert [(f.wording, f.line, f.column, f.kind) for f in typed_leaks(typed, case, stored.files)] == [
        ("helper", 7, 1, "oracle-identifier")]
    for text, message in (("Totals drop cents.", "start each wording with a line `=== ID`"),
                          ("=== a\nSame.\n=== a\nOther.", "'a': case cart-total-cents has that wording"),
                          ("=== a\n\n=== b\nx", "wordings 'a': the text is empty"),
                          ("=== a\nSame.\n=== b\nSame.", "the same text as the wording 'a'")):
        with pytest.raises(UsageError, match=message):
            parse_wordings(text, case)
    assert parse_wordings("", case) == () and parse_wordings("\n\n", case) == ()
