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
from authoring.retelling import retelling
from authoring.sensitive import sensitive_matches
from corpus import Case, CaseFiles
from corpus.references import DRAFT_PATTERN, find_references

LEAK_KINDS = ("commit", "test-name", "grader-path", "oracle-identifier", "copied-line", "reference",
              "commit-message")
"""Findings an author may override with a written justification."""
NEVER_SHIP_KINDS = ("secret", "email", "token", "internal-host", "draft", "holdout-message")
"""Findings no justification overrides."""

RULES = {
    "commit": "a commit hash: any prefix of the base, fix or bug-introducing commits, or any hex run that looks "
              "like one",
    "test-name": "a fail-to-pass or pass-to-pass test id, or a test name or description from the grader files",
    "grader-path": "the path or distinctive file name of a hidden grader file",
    "oracle-identifier": "a snake_case or camelCase name that only the oracle's added lines use (and that does "
                         "not exist at the base revision, when the repository is at hand)",
    "copied-line": "a line copied from the oracle diff (added or removed) or from a grader file",
    "reference": "an issue, pull request, ticket or advisory reference, or a link to one or to a commit "
                 "(corpus.references, the rule the miner's scrub applies)",
    "commit-message": "a prompt that largely repeats the fix commit's message (half of its 3-word runs come from "
                      "the message, or it holds 60% of the message's); the message says how it was fixed",
    "secret": "a credential found by detect-secrets (keys, tokens, passwords, private keys, public IPs)",
    "email": "an email address outside the reserved example domains",
    "token": "a bearer token or a random-looking token",
    "internal-host": "an intranet host name, a single-label URL host, or a private network address",
    "draft": "the miner's DRAFT marker, anywhere in the prompt: the prompt has not been rewritten yet",
    "holdout-message": "a holdout case's prompt that retells the fix commit's message (as commit-message): the "
                       "history is public, so an agent may have seen the text, and no justification overrides it",
}
"""One line per kind of finding, for the help screen and the design notes."""

HEX_RUN = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{7,64}(?![0-9A-Za-z])")
WHOLE_LINE_KINDS = ("copied-line", "commit-message", "holdout-message")
"""Findings that span a whole line and so hide none of the findings inside it."""
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
    wording: str = "prompt"
    """The wording it is in: `prompt`, or the id of one of the case's further wordings."""

    @property
    def overridable(self) -> bool:
        """Leaks may be approved with a justification; secrets and personal data never."""
        return self.kind in LEAK_KINDS

    def describe(self) -> str:
        """`LINE:COL: kind: reason: 'text'` for a terminal line or a list entry."""
        text = self.text if len(self.text) <= 60 else self.text[:57] + "..."
        return f"{self.line}:{self.column}: {self.kind}: {self.reason}: {text!r}"


InBase = Callable[[str], bool]


def find_leaks(prompt: str, case: Case, files: CaseFiles, in_base: InBase | None = None,
               fix_message: str | None = None) -> list[Finding]:
    """Every finding in prompt for case, sorted by position; one per span and kind.

    fix_message is the fix commit's message; without it, the one the miner recorded in the case's provenance.
    """
    evidence = evidence_for(case, files)
    found: dict[tuple[str, int, int, int], Finding] = {}
    lines = prompt.splitlines()
    for number, line in enumerate(lines, start=1):
        for kind, start, end, reason in _line_matches(line, evidence, in_base):
            key = (kind, number, start, end)
            found.setdefault(key, Finding(kind, reason, number, start + 1, end + 1, line[start:end]))
    message = fix_message if fix_message is not None else (case.mined.message if case.mined else "")
    retold = "holdout-message" if case.holdout else "commit-message"
    for number, start, end, reason in _retold(lines, message):
        found.setdefault((retold, number, start, end),
                         Finding(retold, reason, number, start + 1, end + 1, lines[number - 1][start:end]))
    return _drop_nested(sorted(found.values(), key=lambda f: (f.line, f.column, -f.end_column, f.kind)))


def blocking(findings: list[Finding]) -> list[Finding]:
    """The findings that no justification can override."""
    return [finding for finding in findings if not finding.overridable]


def _drop_nested(findings: list[Finding]) -> list[Finding]:
    """A match inside a longer one says nothing new (`test_cart` inside `tests/test_cart.py`).

    Exceptions: a copied or retold line spans the whole line, and what is inside it still needs naming; and
    nothing hides a finding that must never ship.
    """
    kept: list[Finding] = []
    for finding in findings:
        if not any((k.kind == finding.kind or (k.kind not in WHOLE_LINE_KINDS and finding.overridable))
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
    for match in DRAFT_PATTERN.finditer(line):
        yield "draft", match.start(), match.end(), "the miner's draft marker; rewrite the prompt, then remove it"


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
    for reference in find_references(line):
        yield "reference", reference.start, reference.end, REFERENCE_REASONS[reference.kind]


REFERENCE_REASONS = {
    "link": "links an issue, pull request or commit that holds the fix",
    "issue": "an issue or pull request reference leads to the fix",
    "ticket": "a ticket reference leads to the fix",
    "change-id": "a change id leads to the review of the fix",
}


def _retold(lines: list[str], message: str) -> Iterator[tuple[int, int, int, str]]:
    """(1-based line, start, end, reason) of each prompt line that retells the fix commit's message."""
    found = retelling("\n".join(lines), message) if message.strip() else None
    if found is None:
        return
    reason = (f"retells the fix commit's message ({found.prompt_share:.0%} of the prompt, "
              f"{found.message_share:.0%} of the message): say what is wrong, not how it was fixed")
    for index in found.lines:
        line = lines[index] if index < len(lines) else ""
        start = len(line) - len(line.lstrip())
        yield index + 1, start, max(start, len(line.rstrip())), reason
