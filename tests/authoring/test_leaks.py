"""The leakage lint, table-driven: each kind of finding, and clean prompts that must stay clean."""

from __future__ import annotations

from dataclasses import replace

import pytest

from authoring.leaks import LEAK_KINDS, NEVER_SHIP_KINDS, Finding, blocking, find_leaks
from corpus import Case, CaseFiles, Grader, Provenance

BASE = "d745cda1a3f127c17f8dab870270f854b801c717"
FIX = "4f5d98757921f80b689cbd6358af3a08cf05e205"
INTRODUCED = "9c0ffee1234567890abcdef1234567890abcdef1"
ORACLE = b"""diff --git a/src/shop/cart.py b/src/shop/cart.py
index e6556ef..26a3da6 100644
--- a/src/shop/cart.py
+++ b/src/shop/cart.py
@@ -1,2 +1,6 @@
 def total(prices):
-    return int(sum(prices))
+    return round_half_up(sum(prices))
+
+
+def round_half_up(amount):
+    return float(int(amount * 100 + 0.5)) / 100
"""
GRADER = b"""from shop.cart import total


def test_empty():
    assert total([]) == 0


def test_total_keeps_cents():
    assert total([1.25, 2.50]) == 3.75
"""
CASE = Case(id="cart-total-cents", title="Cart total drops cents", prompt="-", base_commit=BASE, fix_commit=FIX,
            grader=Grader(command="pytest", junit="junit.xml",
                          fail_to_pass=("tests/test_cart.py::test_total_keeps_cents",)),
            mined=Provenance(introducing_commits=(INTRODUCED,),
                             message="Round cart totals half up instead of truncating them\n\nThe total used int(), "
                                     "which drops the fractional cents of every sum.\n\nFixes #12\n"))
FILES = CaseFiles.of(ORACLE, {"tests/test_cart.py": GRADER, "tests/fixtures/prices.json": b"[]\n"})

LEAKS: list[tuple[str, str, list[tuple[str, str]]]] = [
    ("fix commit prefix", "Regressed in 4f5d987.", [("commit", "4f5d987")]),
    ("full base sha", f"Start from {BASE}", [("commit", BASE)]),
    ("introducing commit", "Broken since 9c0ffee12", [("commit", "9c0ffee12")]),
    ("unknown hash", "Reverting ab12cd34ef fixes it", [("commit", "ab12cd34ef")]),
    ("fail-to-pass id", "Make tests/test_cart.py::test_total_keeps_cents pass",
     [("test-name", "tests/test_cart.py::test_total_keeps_cents")]),
    ("fail-to-pass name", "test_total_keeps_cents fails", [("test-name", "test_total_keeps_cents")]),
    ("grader test name", "Like test_empty, but with items", [("test-name", "test_empty")]),
    ("grader path", "See tests/test_cart.py", [("grader-path", "tests/test_cart.py")]),
    ("grader basename", "the fixture prices.json is wrong", [("grader-path", "prices.json")]),
    ("oracle identifier", "Add a round_half_up helper", [("oracle-identifier", "round_half_up")]),
    ("copied added line", "    return float(int(amount * 100 + 0.5)) / 100",
     [("copied-line", "return float(int(amount * 100 + 0.5)) / 100")]),
    ("copied removed line", "The code says `return int(sum(prices))` today.",
     [("copied-line", "The code says `return int(sum(prices))` today.")]),
    ("copied grader line", "assert total([1.25, 2.50]) == 3.75", [("copied-line", "assert total([1.25, 2.50]) == 3.75")]),
    ("issue hash", "Reported in #12.", [("reference", "#12")]),
    ("cross-repo issue", "Same as acme/shop#40", [("reference", "acme/shop#40")]),
    ("issue words", "See issue 12 and PR #13", [("reference", "issue 12"), ("reference", "PR #13")]),
    ("ticket", "Tracked as PROJ-7", [("reference", "PROJ-7")]),
    ("pull request url", "https://github.com/acme/shop/pull/13",
     [("reference", "https://github.com/acme/shop/pull/13")]),
    ("gitlab mr url", "https://gitlab.com/acme/shop/-/merge_requests/4",
     [("reference", "https://gitlab.com/acme/shop/-/merge_requests/4")]),
    ("aws key", "key AKIAIOSFODNN7EXAMPLE", [("secret", "AKIAIOSFODNN7EXAMPLE")]),
    ("password", "password = 'hunter2hunter2'", [("secret", "hunter2hunter2")]),
    ("private key", "-----BEGIN RSA PRIVATE KEY-----", [("secret", "-----BEGIN RSA PRIVATE KEY-----")]),
    ("slack token", "xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx",
     [("secret", "xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx")]),
    ("credentials in url", "postgres://admin:s3cr3tpass@db.example.com/app", [("secret", "s3cr3tpass")]),
    ("email", "Ask dana.reyes@acme.io", [("email", "dana.reyes@acme.io")]),
    ("bearer token", "Authorization: Bearer abcdefghijklmnop", [("token", "abcdefghijklmnop")]),
    ("random token", "session q8Zt3vLp0XwKr7Nd2MhB5sYc expired", [("token", "q8Zt3vLp0XwKr7Nd2MhB5sYc")]),
    ("internal suffix", "The API at billing.corp answers 500", [("internal-host", "billing.corp")]),
    ("corp label", "call api.corp.acme.com", [("internal-host", "api.corp.acme.com")]),
    ("single-label url", "http://jenkins:8080/job/shop", [("internal-host", "jenkins")]),
    ("local url", "open https://printer.local/queue", [("internal-host", "printer.local")]),
    ("private address", "the cache at 10.1.2.3 is stale", [("internal-host", "10.1.2.3")]),
    ("draft marker", "DRAFT — rewrite before approving:", [("draft", "DRAFT — rewrite before approving:")]),
    ("draft marker mid-line", "Totals drop cents. draft - Rewrite before approving",
     [("draft", "draft - Rewrite before approving")]),
    ("draft marker on a later line", "Totals drop cents.\n\n  DRAFT: say which totals", [("draft", "  DRAFT")]),
    ("draft word before a dash", "Totals drop cents (DRAFT — check)", [("draft", "DRAFT")]),
    ("retold subject", "Round cart totals half up instead of truncating them.",
     [("commit-message", "Round cart totals half up instead of truncating them.")]),
    ("retold body, rewrapped", "The total used int(),\nwhich drops the fractional cents of every sum.",
     [("commit-message", "The total used int(),"), ("commit-message", "which drops the fractional cents of every sum.")]),
    ("issue word and number", "Broken since issue 832", [("reference", "issue 832")]),
    ("gh reference", "GH-832 again", [("reference", "GH-832")]),
    ("issue url without scheme", "see github.com/acme/shop/issues/832", [("reference", "github.com/acme/shop/issues/832")]),
    ("gitlab merge request", "merged as !12", [("reference", "!12")]),
    ("advisory", "as in GHSA-abcd-efgh-ijkl", [("reference", "GHSA-abcd-efgh-ijkl")]),
]

CLEAN = [
    "The cart total drops cents: three items at 1.25 each come to 3, not 3.75.",
    "Totals should keep two decimal places and round half up.",
    "Fix the bug in src/shop/cart.py so totals are exact.",
    "Use threading.local if state must be per thread; text is UTF-8 and times are ISO-8601 UTC.",
    "A TestCase is not needed; write tests as you see fit, and run the existing tests.",
    "Mail support@example.com or visit https://docs.python.org/3/library/decimal.html for rounding.",
    "Serve on localhost:8000 or 127.0.0.1; documentation addresses like 192.0.2.1 are fine.",
    "The total() function returns an int; it should return a float.",
    "Quantities up to 1000000 items, prices like 19.99, and SHA-256 digests are valid input.",
    "def total(prices):",
    "Status.DRAFT documents must not be published.",
    "Draft a receipt when the cart is empty.",
    "Cart totals drop their cents; they must round half up.",
    "Read docs/issues.md for the conventions.",
]


@pytest.mark.parametrize(("prompt", "expected"), [(p, e) for _, p, e in LEAKS], ids=[n for n, _, _ in LEAKS])
def test_leak_is_found(prompt: str, expected: list[tuple[str, str]]) -> None:
    findings = find_leaks(prompt, CASE, FILES)
    assert [(f.kind, f.text) for f in findings] == expected
    for finding in findings:
        assert prompt.splitlines()[finding.line - 1][finding.column - 1:finding.end_column - 1] == finding.text
        assert finding.reason


@pytest.mark.parametrize("prompt", CLEAN)
def test_clean_prompt_is_not_flagged(prompt: str) -> None:
    assert find_leaks(prompt, CASE, FILES) == []


HOLDOUT_LEAKS = [
    ("retold subject, holdout", "Round cart totals half up instead of truncating them.",
     [("holdout-message", "Round cart totals half up instead of truncating them.")]),
]
"""What a holdout case's prompt may not hold that another case's may, with a justification."""


@pytest.mark.parametrize(("prompt", "expected"), [(p, e) for _, p, e in HOLDOUT_LEAKS],
                         ids=[n for n, _, _ in HOLDOUT_LEAKS])
def test_a_holdout_case_may_not_retell_the_message_whatever_the_justification(
        prompt: str, expected: list[tuple[str, str]]) -> None:
    findings = find_leaks(prompt, replace(CASE, holdout=True), FILES)
    assert [(f.kind, f.text) for f in findings] == expected
    assert blocking(findings) == findings
    assert [f.kind for f in find_leaks(prompt, CASE, FILES)] == ["commit-message"]


def test_every_kind_is_covered_by_the_table() -> None:
    covered = {kind for _, _, expected in [*LEAKS, *HOLDOUT_LEAKS] for kind, _ in expected}
    assert covered == set(LEAK_KINDS) | set(NEVER_SHIP_KINDS)


def test_positions_are_lines_and_columns() -> None:
    prompt = "The total is wrong.\n\nIt came with  4f5d987 and\nsee #12.\n"
    assert find_leaks(prompt, CASE, FILES) == [
        Finding("commit", "names the fix commit; the workspace has no history to explain it", 3, 15, 22, "4f5d987"),
        Finding("reference", "an issue or pull request reference leads to the fix", 4, 5, 8, "#12"),
    ]


def test_identifier_known_at_base_is_not_an_oracle_leak() -> None:
    prompt = "Add a round_half_up helper"
    assert find_leaks(prompt, CASE, FILES, in_base=lambda name: name == "round_half_up") == []


def test_nested_matches_report_the_longest_but_never_hide_a_secret() -> None:
    findings = find_leaks("tests/test_cart.py and https://github.com/a/b/issues/1?token=AKIAIOSFODNN7EXAMPLE",
                          CASE, FILES)
    assert [(f.kind, f.text) for f in findings] == [
        ("grader-path", "tests/test_cart.py"),
        ("reference", "https://github.com/a/b/issues/1?token=AKIAIOSFODNN7EXAMPLE"),
        ("secret", "AKIAIOSFODNN7EXAMPLE"),
    ]


def test_only_leaks_are_overridable() -> None:
    findings = find_leaks("See #12 and mail dana@acme.io", CASE, FILES)
    assert [f.kind for f in findings] == ["reference", "email"]
    assert [f.kind for f in blocking(findings)] == ["email"]


def test_binary_and_malformed_oracles_do_not_break_the_lint() -> None:
    binary = CaseFiles.of(b"diff --git a/logo.png b/logo.png\nGIT binary patch\nliteral 3\nKcmZ?l\n\n", {})
    assert find_leaks("Fix the logo", CASE, binary) == []
    broken = CaseFiles.of(b"@@ nonsense\n+new_helper_name()\n", {})
    assert [f.kind for f in find_leaks("call new_helper_name", CASE, broken)] == ["oracle-identifier"]
