"""The leakage lint: what in a draft prompt gives the answer away, or must never ship at all.

Pure: `find_leaks(prompt, case, files)` looks only at its arguments (plus an optional `in_base` probe that
tells whether an identifier already exists at the base revision). The review screen runs it on every
keystroke and `authoring lint` over every active case.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from authoring.evidence import IDENTIFIER, Evidence, evidence_for, normalize
from authoring.sensitive import sensitive_matches
from corpus import Case, CaseFiles

LEAK_KINDS = ("commit", "test-name", "grader-path", "oracle-identifier", "copied-line", "reference")
"""Findings an author may override with a written justification."""
NEVER_SHIP_KINDS = ("secret", "email", "token", "internal-host", "draft")
"""Findings no justification overrides."""

RULES = {
    "commit": "a commit hash: any prefix of the base, fix or bug-introducing commits, or any hex run that looks "
              "like one",
    "test-name": "a fail-to-pass or pass-to-pass test id, or a test name or description from the grader files",
    "grader-path": "the path or distinctive file name of a hidden grader file",
    "oracle-identifier": "a snake_case or camelCase name that only the oracle's added lines use (and that does "
                         "not exist at the base revision, when the repository is at hand)",
    "copied-line": "a line copied from the oracle diff (added or removed) or from a grader file",
    "reference": "an issue, pull request, ticket or advisory reference, or a link to one or to a commit",
    "secret": "a credential found by detect-secrets (keys, tokens, passwords, private keys, public IPs)",
    "email": "an email address outside the reserved example domains",
    "token": "a bearer token or a random-looking token",
    "internal-host": "an intranet host name, a single-label URL host, or a private network address",
    "draft": "the miner's DRAFT marker: the prompt has not been rewritten yet",
}
"""One line per kind of finding, for the help screen and the design notes."""

HEX_RUN = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{7,64}(?![0-9A-Za-z])")
FORGE_URL = re.compile(r"\bhttps?://[^\s<>()\[\]`'\"]*/(?:-/)?(?:issues|pull|pulls|merge_requests|commit|commits|"
                       r"compare|browse|tickets?|changes|show_bug\.cgi)\b[^\s<>()\[\]`'\"]*", re.IGNORECASE)
HASH_REF = re.compile(r"(?<![\w&#/])(?:[\w.-]+/[\w.-]+)?#\d+\b")
WORD_REF = re.compile(r"\b(?:issue|bug|ticket|pr|pull request|merge request|mr|gh)[\s-]?#?\d+\b", re.IGNORECASE)
TICKET = re.compile(r"\b([A-Z][A-Z0-9]{1,9})-\d+\b")
NOT_TICKETS = frozenset({"UTF", "SHA", "ISO", "RFC", "PEP", "TLS", "SSL", "AES", "HTTP", "HTTPS", "IPV", "MD",
                         "ES", "ECMA", "ANSI", "IEEE", "UTC", "GMT", "CP", "WIN", "LATIN", "IBM", "KOI8", "ASCII"})
DRAFT_MARKER = re.compile(r"^\s*DRAFT\b")
CHANGE_ID = re.compile(r"\bChange-Id:\s*I[0-9a-f]{8,40}\b", re.IGNORECASE)
MIN_COPIED_PROMPT = 24
"""A prompt line at least this long found inside a diff line is a copy (shorter ones are coincidence)."""


@dataclass(frozen=True)
class Finding:
    """One thing in a prompt that leaks the answer or must not ship."""

    kind: str
    """One of LEAK_KINDS or NEVER_SHIP_KINDS."""
    reason: str
    """Why it must go, in words an author can act on."""
    line: int
    """1-based line of the prompt."""
    column: int
    """1-based column where the finding starts."""
    end_column: int
    """1-based column just past its end."""
    text: str
    """The offending text."""

    @property
    def overridable(self) -> bool:
        """Leaks may be approved with a justification; secrets and personal data never."""
        return self.kind in LEAK_KINDS

    def describe(self) -> str:
        """`LINE:COL: kind: reason: 'text'` for a terminal line or a list entry."""
        text = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return f"{self.line}:{self.column}: {self.kind}: {self.reason}: {text!r}"


InBase = Callable[[str], bool]


def find_leaks(prompt: str, case: Case, files: CaseFiles, in_base: InBase | None = None) -> list[Finding]:
    """Every finding in prompt for case, sorted by position; one per span and kind."""
    evidence = evidence_for(case, files)
    found: dict[tuple[str, int, int, int], Finding] = {}
    for number, line in enumerate(prompt.splitlines(), start=1):
        for kind, start, end, reason in _line_matches(line, evidence, in_base):
            key = (kind, number, start, end)
            found.setdefault(key, Finding(kind, reason, number, start + 1, end + 1, line[start:end]))
    return _drop_nested(sorted(found.values(), key=lambda f: (f.line, f.column, -f.end_column, f.kind)))


def blocking(findings: list[Finding]) -> list[Finding]:
    """The findings that no justification can override."""
    return [finding for finding in findings if not finding.overridable]


def _drop_nested(findings: list[Finding]) -> list[Finding]:
    """A match inside a longer one says nothing new (`test_cart` inside `tests/test_cart.py`).

    Exceptions: a copied line spans the whole line, and what is inside it still needs naming; and nothing
    hides a finding that must never ship.
    """
    kept: list[Finding] = []
    for finding in findings:
        if not any((k.kind == finding.kind or (k.kind != "copied-line" and finding.overridable))
                   and k.line == finding.line
                   and k.column <= finding.column and finding.end_column <= k.end_column for k in kept):
            kept.append(finding)
    return kept


def _line_matches(line: str, evidence: Evidence, in_base: InBase | None) -> Iterator[tuple[str, int, int, str]]:
    yield from _commits(line, evidence)
    yield from _identifiers(line, evidence, in_base)
    yield from _plain_texts(line, evidence)
    yield from _copied(line, evidence)
    yield from _references(line)
    yield from sensitive_matches(line)
    if match := DRAFT_MARKER.match(line):
        yield "draft", match.start(), len(line.rstrip()), "the miner's draft marker; rewrite the prompt, then remove it"


def _commits(line: str, evidence: Evidence) -> Iterator[tuple[str, int, int, str]]:
    for match in HEX_RUN.finditer(line):
        token = match.group().lower()
        known = next((label for sha, label in evidence.commits.items() if sha.startswith(token)), None)
        if known:
            yield "commit", match.start(), match.end(), f"names {known}; the workspace has no history to explain it"
        elif re.search(r"\d", token) and re.search(r"[a-f]", token):
            yield "commit", match.start(), match.end(), "looks like a commit hash, which points at the fix"


def _identifiers(line: str, evidence: Evidence, in_base: InBase | None) -> Iterator[tuple[str, int, int, str]]:
    for match in IDENTIFIER.finditer(line):
        name = match.group()
        if name in evidence.test_names:
            yield "test-name", match.start(), match.end(), f"names {evidence.test_names[name]}"
        if name in evidence.oracle_identifiers and not (in_base and in_base(name)):
            path = evidence.oracle_identifiers[name]
            yield ("oracle-identifier", match.start(), match.end(),
                   f"only the oracle's added lines in {path} use this name; it gives the fix away")


def _plain_texts(line: str, evidence: Evidence) -> Iterator[tuple[str, int, int, str]]:
    for table, kind in ((evidence.test_texts, "test-name"), (evidence.grader_paths, "grader-path")):
        for text, reason in table.items():
            for start in _occurrences(line, text):
                yield kind, start, start + len(text), f"names {reason}"


def _occurrences(line: str, text: str) -> Iterator[int]:
    """Where text occurs in line as a whole token (not inside a longer name or path)."""
    start = line.find(text)
    while start >= 0:
        before = line[start - 1] if start else " "
        after = line[start + len(text)] if start + len(text) < len(line) else " "
        if not (before.isalnum() or before in "_-") and not (after.isalnum() or after in "_"):
            yield start
        start = line.find(text, start + 1)


def _copied(line: str, evidence: Evidence) -> Iterator[tuple[str, int, int, str]]:
    normal = normalize(line)
    if not normal:
        return
    offset = len(line) - len(line.lstrip())
    bare = normalize(normal.lstrip("-*>+ ").strip("`"))
    for diff_line, where in evidence.diff_lines.items():
        if diff_line in normal or (len(bare) >= MIN_COPIED_PROMPT and bare in diff_line):
            yield "copied-line", offset, len(line.rstrip()), f"copied from {where}"
            return


def _references(line: str) -> Iterator[tuple[str, int, int, str]]:
    for match in FORGE_URL.finditer(line):
        yield "reference", match.start(), match.end(), "links an issue, pull request or commit that holds the fix"
    for pattern in (HASH_REF, WORD_REF, CHANGE_ID):
        for match in pattern.finditer(line):
            yield "reference", match.start(), match.end(), "an issue or pull request reference leads to the fix"
    for match in TICKET.finditer(line):
        if match.group(1) not in NOT_TICKETS:
            yield "reference", match.start(), match.end(), "a ticket reference leads to the fix"
