"""A case's wordings: `prompts:` read and written, checked like the other fields, in the fingerprint only when set,
and the draw of each trial's wording from the seed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from corpus import CaseFiles, CorpusError, UsageError, case_fingerprint
from corpus.model import Wording
from corpus.wordings import check_wording, draw, draw_for, next_id, rotated_ids, wording_text, wordings
from tests.corpus.test_store import GOOD, write_case
from tests.testing.casefactory import make_case

WITH_PROMPTS = GOOD + """\
prompts:
  - id: terse
    text: |
      Cart totals are a cent off.
  - id: story
    text: A customer paid a cent too much for a cart of three items.
"""
FILES = CaseFiles.of(b"patch", {"t.py": b"test"})


def test_prompts_load_in_order_and_write_back_unchanged(tmp_path: Path) -> None:
    corpus = write_case(tmp_path, WITH_PROMPTS)
    stored = corpus.load("cart-rounding")
    case = stored.case
    assert case.prompts == (Wording("terse", "Cart totals are a cent off.\n"),
                            Wording("story", "A customer paid a cent too much for a cart of three items."))
    assert [w.id for w in wordings(case)] == ["prompt", "terse", "story"]
    assert rotated_ids(case) == ("prompt", "terse", "story")
    assert wording_text(case, "story").startswith("A customer") and wording_text(case, None) == case.prompt
    corpus.write(case, stored.files)
    assert (tmp_path / "cases" / "cart-rounding" / "case.yaml").read_text() == WITH_PROMPTS
    added = replace(case, prompts=(*case.prompts, check_wording(case, "w4", "Totals drop a cent.")))
    corpus.write(added, stored.files)
    assert corpus.load("cart-rounding").case.prompts[-1] == Wording("w4", "Totals drop a cent.\n")


BAD = [
    ("not a list", "prompts: one\n", "prompts: expected a list of wordings", 18),
    ("item not a mapping", "prompts: [just text]\n", "prompts[0]: expected a wording", 18),
    ("no id", "prompts:\n  - text: other words\n", "prompts[0].id: missing required field", None),
    ("no text", "prompts:\n  - id: terse\n", "prompts[0].text: missing required field", None),
    ("bad id", "prompts:\n  - {id: Terse Words, text: x}\n", "prompts[0].id: expected up to 40 lowercase", 19),
    ("the prompt's id", "prompts:\n  - {id: prompt, text: x}\n", "(not 'prompt')", 19),
    ("repeated id", "prompts:\n  - {id: a, text: x}\n  - {id: a, text: y}\n", "prompts[1].id: 'a' names an earlier",
     20),
    ("the prompt again", "prompts:\n  - {id: a, text: The cart total is off by a cent for some prices.}\n",
     "prompts[0].text: the same text as the wording 'prompt'", 19),
    ("unknown key", "prompts:\n  - {id: a, text: x, tone: dry}\n", "prompts[0].tone: unknown key", 19),
]


@pytest.mark.parametrize(("name", "tail", "message", "line"), BAD, ids=[b[0] for b in BAD])
def test_bad_prompts_name_file_field_and_line(tmp_path: Path, name: str, tail: str, message: str,
                                              line: int | None) -> None:
    corpus = write_case(tmp_path, GOOD + tail)
    with pytest.raises(CorpusError) as info:
        corpus.load("cart-rounding")
    assert message in str(info.value) and str(tmp_path) in str(info.value)
    if line is not None:
        assert info.value.line == line


def test_a_case_with_one_wording_keeps_its_fingerprint_and_each_wording_changes_it() -> None:
    case = make_case("a" * 40, "b" * 40)
    alone = case_fingerprint(case, FILES)
    # The fingerprint of a case with one wording, as it was before cases had wordings.
    assert alone == case_fingerprint(replace(case, prompts=()), FILES)
    terse = replace(case, prompts=(Wording("terse", "Sums are wrong.\n"),))
    prints = {alone, case_fingerprint(terse, FILES),
              case_fingerprint(replace(terse, prompts=(Wording("terse", "Sums are off.\n"),)), FILES),
              case_fingerprint(replace(terse, prompts=(Wording("short", "Sums are wrong.\n"),)), FILES),
              case_fingerprint(replace(terse, prompts=(*terse.prompts, Wording("more", "Adding fails.\n"))), FILES),
              case_fingerprint(replace(terse, prompts=(Wording("more", "Adding fails.\n"), *terse.prompts)), FILES)}
    assert len(prints) == 6


def test_draw_is_fixed_by_seed_and_trial_and_shares_trials_evenly() -> None:
    ids = ("prompt", "terse", "story")
    drawn = [draw(ids, "cart", 7, t) for t in range(1, 13)]
    assert drawn == [draw(ids, "cart", 7, t) for t in range(1, 13)]  # the same run, resumed, draws the same
    for block in range(4):  # every block of three trials gives each wording once
        assert sorted(drawn[block * 3:block * 3 + 3]) == sorted(ids)
    seeds = {tuple(draw(ids, "cart", seed, t) for t in range(1, 13)) for seed in range(10)}
    assert len(seeds) > 1  # the seed changes the order
    case = make_case("a" * 40, "b" * 40)
    assert draw_for(case, 7, 1) is None  # a case with one wording draws nothing
    assert draw_for(replace(case, prompts=(Wording("w2", "Sums.\n"),)), 7, 1) in ("prompt", "w2")


def test_a_new_wording_is_checked() -> None:
    case = make_case("a" * 40, "b" * 40, prompts=(Wording("w2", "Sums are wrong.\n"),))
    assert next_id(case) == "w3"
    assert check_wording(case, "w3", "Adding fails") == Wording("w3", "Adding fails\n")
    for wording_id, text, message in (("w2", "New words", "has that wording already"),
                                      ("prompt", "New words", "and not 'prompt'"),
                                      ("Bad Id", "New words", "lowercase"),
                                      ("w3", "  Sums are wrong.  ", "the same text as the wording 'w2'"),
                                      ("w3", "  \n", "the text is empty")):
        with pytest.raises(UsageError, match=message):
            check_wording(case, wording_id, text)
    with pytest.raises(UsageError, match="no wording 'nope'"):
        wording_text(case, "nope")
