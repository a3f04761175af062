"""Whether a prompt largely repeats the fix commit's message, which says how the bug was fixed.

Texts are compared as sets of word shingles: runs of SHINGLE consecutive words (lower-cased, punctuation dropped),
taken within a paragraph so the subject and body of a message do not run into each other, after the references
(`corpus.references`) and the miner's draft marker are removed. The prompt retells the message when at least
PROMPT_SHARE of its shingles come from the message, or when it holds at least MESSAGE_SHARE of the message's
shingles. Messages shorter than MIN_MESSAGE_WORDS words are not compared: "Fix typo" says nothing a prompt could
give away, and the few shingles it has would match by chance.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from corpus.references import DRAFT_PATTERN, remove_references

SHINGLE = 3
"""Words per shingle: three in a row rarely repeat by chance, two do."""
PROMPT_SHARE = 0.5
"""Share of the prompt's shingles found in the message from which the prompt retells it."""
MESSAGE_SHARE = 0.6
"""Share of the message's shingles found in the prompt from which the prompt retells it."""
MIN_MESSAGE_WORDS = 5
"""Messages with fewer words are not compared."""
MIN_SHARED = 2
"""At least this many shingles must be shared (one alone is a common phrase)."""
WORD = re.compile(r"[a-z0-9]+(?:['_][a-z0-9]+)*")
TRAILER = re.compile(r"^\s*[A-Za-z][\w-]*-by:.*$|^\s*(?:change-id|bug|fixes|closes|refs|link):.*$",
                     re.IGNORECASE | re.MULTILINE)
PARAGRAPH = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class Retelling:
    """How much of a prompt comes from the fix commit's message, and which lines."""

    prompt_share: float
    """Share of the prompt's shingles that are in the message."""
    message_share: float
    """Share of the message's shingles that are in the prompt."""
    lines: tuple[int, ...]
    """0-based prompt lines holding a shingle of the message (the first non-empty line when none alone does)."""


def shingles(text: str) -> set[tuple[str, ...]]:
    """The word shingles of text, paragraph by paragraph."""
    out: set[tuple[str, ...]] = set()
    for paragraph in PARAGRAPH.split(text):
        words = WORD.findall(paragraph.lower())
        out.update(tuple(words[i:i + SHINGLE]) for i in range(len(words) - SHINGLE + 1))
    return out


def retelling(prompt: str, message: str) -> Retelling | None:
    """How prompt repeats message, or None when it does not (or the message is too short to tell)."""
    message = remove_references(TRAILER.sub("", message))
    if len(WORD.findall(message.lower())) < MIN_MESSAGE_WORDS:
        return None
    cleaned = DRAFT_PATTERN.sub(lambda match: "\n" * match.group().count("\n"), prompt)
    theirs, ours = shingles(message), shingles(cleaned)
    shared = theirs & ours
    if len(shared) < MIN_SHARED:
        return None
    prompt_share, message_share = len(shared) / len(ours), len(shared) / len(theirs)
    if prompt_share < PROMPT_SHARE and message_share < MESSAGE_SHARE:
        return None
    lines = tuple(_lines_holding(cleaned, shared)) or _first_line(cleaned)
    return Retelling(prompt_share, message_share, lines)


def _lines_holding(text: str, shared: set[tuple[str, ...]]) -> Iterator[int]:
    for number, line in enumerate(text.splitlines()):
        if shingles(line) & shared:
            yield number


def _first_line(text: str) -> tuple[int, ...]:
    return next(((number,) for number, line in enumerate(text.splitlines()) if line.strip()), (0,))
