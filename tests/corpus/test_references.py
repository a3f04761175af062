"""One reference rule for two packages: what the miner's scrub removes is exactly what the leak lint names."""

from __future__ import annotations

import pytest

from authoring.leaks import find_leaks
from corpus import Case, CaseFiles, Grader
from corpus.references import DRAFT_MARKER, DRAFT_PATTERN, find_references, remove_references
from miner.prompt import draft_prompt, scrub

REFERENCES = [
    ("#832", "issue"), ("acme/shop#832", "issue"), ("issue 832", "issue"), ("Issue #832", "issue"),
    ("issues 832", "issue"), ("bug 832", "issue"), ("PR 44", "issue"), ("PR #44", "issue"),
    ("pull request 44", "issue"), ("merge request 4", "issue"), ("GH-832", "issue"), ("gh 832", "issue"),
    ("issue no. 832", "issue"), ("!12", "issue"), ("GHSA-abcd-efgh-ijkl", "issue"), ("PROJ-77", "ticket"),
    ("CVE-2021-1234", "issue"), ("Change-Id: I0123456789abcdef", "change-id"),
    # No digit in these (nor in the line around them): a text is not skipped for lacking one.
    ("Change-Id: Iabcdefabcdef", "change-id"), ("https://github.com/acme/shop/compare/main...fix", "link"),
    ("https://github.com/acme/shop/issues/832", "link"), ("https://github.com/acme/shop/pull/44", "link"),
    ("github.com/acme/shop/issues/832", "link"), ("www.github.com/acme/shop/pull/44", "link"),
    ("https://gitlab.com/acme/shop/-/merge_requests/4", "link"), ("https://bugs.acme.org/show_bug.cgi?id=9", "link"),
    ("https://github.com/acme/shop/security/advisories/GHSA-abcd-efgh-ijkl", "link"),
]
NOT_REFERENCES = ["UTF-8", "ISO-8859-1", "SHA-256", "RFC-2616", "docs/issues.md", "3/4 of the items", "a & b",
                  "Wow! 12 items", "step 2", "python3.11", "src/shop/cart.py"]
CASE = Case(id="c", title="t", prompt="-", base_commit="0" * 40, fix_commit="1" * 40, grader=Grader(command="x"))
FILES = CaseFiles.of(b"", {})


@pytest.mark.parametrize(("text", "kind"), REFERENCES)
def test_each_reference_is_found_whole(text: str, kind: str) -> None:
    line = f"Totals break ({text}) on sums"
    [found] = find_references(line)
    assert (found.text, found.kind) == (text, kind)
    assert line[found.start:found.end] == text


@pytest.mark.parametrize("text", NOT_REFERENCES)
def test_look_alikes_are_not_references(text: str) -> None:
    assert find_references(f"Totals break on {text} today") == []
    assert remove_references(f"Totals break on {text} today") == f"Totals break on {text} today"


@pytest.mark.parametrize(("text", "kind"), REFERENCES)
def test_the_scrub_removes_what_the_lint_names(text: str, kind: str) -> None:
    line = f"Totals break on sums, see {text} for more."
    assert [(f.kind, f.text) for f in find_leaks(line, CASE, FILES)] == [("reference", text)]
    scrubbed = scrub(line)
    assert text not in scrubbed and find_references(scrubbed) == []
    assert find_leaks(scrubbed, CASE, FILES) == []
    assert scrubbed.startswith("Totals break on sums")


def test_lists_of_references_go_with_their_lead_in_and_leave_no_debris() -> None:
    message = ("Fix rounding (closes #4, #5 and GH-6)\n\nReported in #833: tax(0) returned 1.\n"
               "See github.com/acme/shop/issues/832 and PROJ-7.\nFixes issue 832 in the importer.\n")
    assert remove_references(message) == ("Fix rounding \n\nReported: tax(0) returned 1.\nin the importer.\n")
    assert scrub(message) == "Fix rounding\n\nReported: tax(0) returned 1.\nin the importer."


def test_the_miner_writes_the_marker_the_lint_refuses() -> None:
    prompt = draft_prompt("Fix cart totals dropping cents\n\nSee issue 832.\n")
    assert prompt.startswith(DRAFT_MARKER + "\n\n") and "832" not in prompt
    assert [m.group() for m in DRAFT_PATTERN.finditer(prompt)] == [DRAFT_MARKER]
    assert [f.kind for f in find_leaks(prompt, CASE, FILES) if not f.overridable] == ["draft"]


@pytest.mark.parametrize(("text", "marker"), [
    ("DRAFT — rewrite before approving:", "DRAFT — rewrite before approving:"),
    ("Cart totals. DRAFT - rewrite before approving", "DRAFT - rewrite before approving"),
    ("Cart totals. draft – Rewrite Before Approving:", "draft – Rewrite Before Approving:"),
    ("xDRAFT — rewrite before approving:", "DRAFT — rewrite before approving:"),
    ("  DRAFT", "  DRAFT"),
    ("> DRAFT notes", "> DRAFT"),
    ("Totals (DRAFT: check)", "DRAFT"),
    ("Cart totals.\nDRAFT", "DRAFT"),
])
def test_the_draft_marker_is_found_anywhere(text: str, marker: str) -> None:
    assert [m.group() for m in DRAFT_PATTERN.finditer(text)] == [marker]


@pytest.mark.parametrize("text", ["Status.DRAFT is the default", "Draft a receipt", "DRAFTS pile up",
                                  "the draft is saved", "a DRAFT document"])
def test_draft_words_that_are_not_the_marker(text: str) -> None:
    assert DRAFT_PATTERN.search(text) is None
