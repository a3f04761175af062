"""What in a text points at the fix: issue, pull request and ticket references, forge links, the draft marker.

One rule for two packages: the miner scrubs these from the draft prompt it writes (`remove_references`), and the
authoring leak lint reports what is left of them in the prompt an author approves (`find_references`), so a
reference the miner lets through is always one the lint names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

ReferenceKind = Literal["link", "issue", "ticket", "change-id"]

FORGE_URL = re.compile(
    r"(?:\bhttps?://|(?<![\w./@-])(?:www\.)?(?=[\w-]+(?:\.[\w-]+)+/))[^\s<>()\[\]`'\"]*/(?:-/)?"
    r"(?:issues|pull|pulls|merge_requests|commit|commits|compare|browse|tickets?|changes|show_bug\.cgi|"
    r"security/advisories)\b[^\s<>()\[\]`'\"]*", re.IGNORECASE)
"""A link, with or without its scheme, to an issue, pull or merge request, ticket, commit or advisory."""
HASH_REF = re.compile(r"(?<![\w&#/])(?:[\w.-]+/[\w.-]+)?#\d+\b")
"""`#12`, `owner/repo#12`."""
WORD_REF = re.compile(r"\b(?:issues?|bugs?|tickets?|prs?|pull[\s-]?requests?|merge[\s-]?requests?|mrs?|gh)"
                      r"(?:[\s-]*(?:no\.?|number)\s*)?[\s:-]*#?\d+\b", re.IGNORECASE)
"""`issue 832`, `Bug #4`, `pull request 12`, `PR #3`, `GH-832`, `issue no. 7`."""
MERGE_REQUEST = re.compile(r"(?:(?<=\s)|(?<=\()|^)!\d+\b", re.MULTILINE)
"""A GitLab merge request, `!12`."""
ADVISORY = re.compile(r"\bGHSA(?:-[0-9a-z]{4}){3}\b|\bCVE-\d{4}-\d{4,}\b", re.IGNORECASE)
"""A GitHub security advisory or a CVE id."""
TICKET = re.compile(r"\b([A-Z][A-Z0-9]{1,9})-\d+\b")
"""A ticket key such as `PROJ-7` (also `GH-4`)."""
NOT_TICKETS = frozenset({"UTF", "SHA", "ISO", "RFC", "PEP", "TLS", "SSL", "AES", "HTTP", "HTTPS", "IPV", "MD",
                         "ES", "ECMA", "ANSI", "IEEE", "UTC", "GMT", "CP", "WIN", "LATIN", "IBM", "KOI8", "ASCII"})
"""Prefixes of standards and encodings, which look like ticket keys but name no ticket."""
CHANGE_ID = re.compile(r"\bChange-Id:\s*I[0-9a-f]{8,40}\b", re.IGNORECASE)
"""A Gerrit Change-Id."""
BETWEEN = re.compile(r"\s*(?:,|;|&|/|\band\b|\bor\b)?\s*", re.IGNORECASE)
"""What may join two references into one list (`#4, #5 and GH-6`): removed with them."""
EMPTIED = re.compile(r"^[ \t]*[.,;:()\[\]&-]+[ \t]*$\n?", re.MULTILINE)
"""A line left with nothing but punctuation once its references are gone."""
LEAD_IN = re.compile(r"(?:\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?|see|in|for)\s*:?\s*)$", re.IGNORECASE)
"""A word that only introduces the reference right after it (`Fixes #12`): it goes with the reference."""

DRAFT_MARKER = "DRAFT — rewrite before approving:"
"""The line the miner puts above every draft prompt; a prompt holding it has not been rewritten."""
DRAFT_PATTERN = re.compile(r"(?i:draft\s*[—–-]*\s*rewrite\s+before\s+approving:?)"
                           r"|(?<![\w.])DRAFT\b(?=\s*[—–:-])|^[ \t>*#-]*DRAFT\b", re.MULTILINE)
"""The marker anywhere in a text (any case, any dash), or the word DRAFT (upper case) at a line's start or before
a dash or colon; `Status.DRAFT` and the verb "Draft" are not it."""

_RULES: tuple[tuple[ReferenceKind, re.Pattern[str], str, bool], ...] = (
    ("link", FORGE_URL, "/", False), ("change-id", CHANGE_ID, ":", False), ("issue", ADVISORY, "-", False),
    ("issue", WORD_REF, "", True), ("issue", HASH_REF, "#", True), ("issue", MERGE_REQUEST, "!", True),
    ("ticket", TICKET, "-", True))
"""(kind, pattern, a character every match holds, whether every match holds a digit): a text without them
is not searched (most commit messages hold no `#`, `!` or digit; the searches are most of a scan's scoring)."""
DIGIT = re.compile(r"\d")


@dataclass(frozen=True)
class Reference:
    """One span of a text that points at the fix."""

    kind: ReferenceKind
    """link, issue (issue, pull or merge request, advisory), ticket or change-id."""
    start: int
    """Offset of its first character."""
    end: int
    """Offset just past its last character."""
    text: str
    """The span itself."""


def find_references(text: str) -> list[Reference]:
    """Every reference in text, in order; where two overlap the longer one is kept."""
    found: list[Reference] = []
    digits = DIGIT.search(text) is not None
    for kind, pattern, held, digit in _RULES:
        if (held and held not in text) or (digit and not digits):
            continue
        for match in pattern.finditer(text):
            if pattern is TICKET and match.group(1) in NOT_TICKETS:
                continue
            found.append(Reference(kind, match.start(), match.end(), match.group()))
    found.sort(key=lambda r: (r.start, -r.end))
    kept: list[Reference] = []
    for reference in found:
        if not kept or reference.start >= kept[-1].end:
            kept.append(reference)
    return kept


def remove_references(text: str) -> str:
    """text without its references, each with the word that introduces it and brackets left around it empty."""
    spans: list[tuple[int, int]] = []
    for reference in find_references(text):
        start, end = reference.start, reference.end
        if spans and BETWEEN.fullmatch(text, spans[-1][1], start):
            spans[-1] = (spans[-1][0], end)
            continue
        lead = LEAD_IN.search(text, spans[-1][1] if spans else 0, start)
        if lead and lead.end() == start:
            start = lead.start()
        spans.append((start, end))
    out, last = [], 0
    for start, end in spans:
        if start == 0 or text[start - 1] == "\n":  # the line now starts after the reference
            while end < len(text) and text[end] in " \t":
                end += 1
        kept = text[last:start]
        if end == len(text) or text[end] in ".,;:)\n":
            kept = kept.rstrip(" \t")  # no space left hanging before the punctuation that followed
        out.append(kept)
        last = end
    out.append(text[last:])
    return EMPTIED.sub("", re.sub(r"\(\s*[,;]?\s*\)|\[\s*\]", "", "".join(out)))
