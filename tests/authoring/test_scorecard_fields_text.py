"""The typed forms of the scorecard fields: invariants on lines (`NAME[@SECONDS]: COMMAND`) and back."""

from __future__ import annotations

from dataclasses import replace

import pytest

from authoring.draft import apply_draft, draft_from
from authoring.scorecardfields import format_invariants, parse_invariant, parse_invariants_text, split_lines
from corpus import Defaults, UsageError
from corpus.model import Invariant
from tests.testing.shopfactory import Shop

ROUND_TRIP = (
    Invariant("imports", "python -c 'import shop'"),
    Invariant("with.dots_and-dashes", "python -c 'x = {\"a\": 1}; assert x[\"a\"] == 1'  # a: b=c @9", 45),
    Invariant("two-lines", "cd src\n  python -c 'import shop'\nexit 0"),
)


def test_invariants_survive_the_form_text() -> None:
    text = format_invariants(ROUND_TRIP)
    assert text.splitlines()[:2] == ["imports: python -c 'import shop'",
                                     ("with.dots_and-dashes@45: python -c 'x = {\"a\": 1}; assert x[\"a\"] == 1'"
                                     "  # a: b=c @9")]
    assert parse_invariants_text(text) == ROUND_TRIP


@pytest.mark.parametrize(("typed", "expected"), [
    ("imports=true", Invariant("imports", "true")),
    ("  imports @ 5 :  true ", Invariant("imports", "true", 5)),
    ("imports@30=python -c 'print(1)'", Invariant("imports", "python -c 'print(1)'", 30)),
    ("a: b=c", Invariant("a", "b=c")),
])
def test_one_invariant_typed(typed: str, expected: Invariant) -> None:
    assert parse_invariant(typed, "--invariant") == expected


def test_text_errors_name_the_line() -> None:
    with pytest.raises(UsageError, match=r"^invariants line 3: invariant 'b' has no command$"):
        parse_invariants_text("a: true\n\nb:\n")
    with pytest.raises(UsageError, match=r"^invariants line 1: a continued command needs an invariant above it"):
        parse_invariants_text("  true")
    with pytest.raises(UsageError, match=r"^invariants: invariant 'a' is given twice$"):
        parse_invariants_text("a: true\na: false")


def test_allowed_paths_are_one_per_line() -> None:
    assert split_lines(" src/shop/ \n\n!src/shop/vendored/\nsrc/shop/\nsrc/my dir/") == (
        "src/shop/", "!src/shop/vendored/", "src/my dir/")


def test_a_draft_keeps_the_fields_of_its_case(shop: Shop) -> None:
    case = shop.corpus.load("cart-total-cents", "candidates").case
    case = replace(case, policy="blocking", allowed_paths=("src/shop/",), risk_flags=("payments",),
                   invariants=ROUND_TRIP, invariant_policy="blocking")
    draft = draft_from(case, Defaults())
    assert (draft.allowed_paths, draft.risk_flags, draft.invariant_policy) == (("src/shop/",), ("payments",),
                                                                               "blocking")
    back = apply_draft(case, replace(draft, prompt="Cart totals lose their cents."))
    assert (back.allowed_paths, back.risk_flags, back.invariants, back.invariant_policy) == (
        case.allowed_paths, case.risk_flags, case.invariants, case.invariant_policy)
    with pytest.raises(UsageError, match=r"^invariant policy blocking: needs at least one invariant"):
        apply_draft(case, replace(draft, invariants=""))
    with pytest.raises(UsageError, match=r"^allowed path '\.\./x': must stay inside the repository$"):
        apply_draft(case, replace(draft, allowed_paths=("../x",)))
