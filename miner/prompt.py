"""The draft task prompt, title and id of a candidate, scrubbed of what would leak the hidden grader."""

from __future__ import annotations

import re
from collections.abc import Iterable

from corpus.references import DRAFT_MARKER, remove_references

__all__ = ["DRAFT_MARKER", "candidate_id", "describing_message", "draft_prompt", "scrub", "title_of"]
TRAILER = re.compile(r"^\s*(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|"
                     r"suggested-by|helped-by|cc|change-id|bug|fixes|closes|resolves|refs|see-also|pr-url|"
                     r"pr|git-svn-id|reviewed-on|link)\s*:.*$"
                     r"|^\s*\(?cherry picked from commit [0-9a-f]+\)?\s*$"
                     r"|^\s*(fix(es|ed)?|close[sd]?|resolve[sd]?|refs?|see)\s*:?\s*"
                     r"((#|GH-)\d+|[A-Z][A-Z0-9]+-\d+|https?://\S+)([\s,]+((#|GH-)\d+|[A-Z][A-Z0-9]+-\d+|https?://\S+))*"
                     r"\.?\s*$", re.IGNORECASE | re.MULTILINE)
URL = re.compile(r"<?https?://\S+>?")
HASH = re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,64}\b")
TEST_NAME = re.compile(r"`?\b(?:test_\w+|Test[A-Z]\w*|\w+_test|\w+Tests?\b(?=\s*[.#(])|should[A-Z]\w*)`?(?:\(\))?")
REVERT_LINE = re.compile(r"^This reverts commit .*$", re.MULTILINE)
MERGE_SUBJECT = re.compile(r"^Merge (pull request|branch|remote-tracking branch)\b", re.IGNORECASE)
BLANKS = re.compile(r"\n{3,}")
DANGLING = re.compile(r"(?m)^([ \t]*(?:[*-][ \t]+)?)[,;:][ \t]*")
SPACES = re.compile(r"[ \t]{2,}")
SLUG_CHARS = re.compile(r"[^a-z0-9]+")
WORD = re.compile(r"[`'\"(\[]*[\w./-]+[`'\")\],;:.]*")


def _leaky_tokens(test_paths: Iterable[str], test_names: Iterable[str]) -> dict[str, str]:
    """Words that name a hidden test file or test, with what each becomes."""
    tokens: dict[str, str] = {}
    for path in test_paths:
        base = path.rsplit("/", 1)[-1]
        for name in (path, base, base.rsplit(".", 1)[0] if "." in base else base):
            if len(name) >= 4:
                tokens[name] = "the tests"
    for name in test_names:
        if len(name) >= 4:
            tokens.setdefault(name, "a test")
    return tokens


def scrub(text: str, *, test_paths: Iterable[str] = (), test_names: Iterable[str] = ()) -> str:
    """Remove commit hashes, URLs, issue and ticket references (`corpus.references`, the rule the leak lint
    applies), test file paths and test names from text."""
    if "This reverts commit" in text:
        text = REVERT_LINE.sub("", text)
    text = TRAILER.sub("", text)
    text = URL.sub("", text)
    leaky = _leaky_tokens(test_paths, test_names)
    if any(token in text for token in leaky):  # the word-by-word pass only when one is there
        def replace(match: re.Match[str]) -> str:
            word = match.group(0)
            core = word.strip("`'\"()[],;:.")
            return word.replace(core, leaky[core]) if core in leaky else word

        text = WORD.sub(replace, text)
        phrases = [name for name in leaky if " " in name]
        for phrase in phrases:
            text = text.replace(phrase, leaky[phrase])
    lowered = text.lower()
    # Each of these patterns needs a word a cheap search finds first; most messages have none of them.
    if "test" in lowered or "should" in text:
        text = TEST_NAME.sub("a test", text)
    text = HASH.sub("an earlier commit", text)
    text = remove_references(text)
    text = DANGLING.sub(r"\1", text.replace("()", "").replace("[]", ""))
    lines = [SPACES.sub(" ", line).rstrip() for line in text.splitlines()]
    return BLANKS.sub("\n\n", "\n".join(lines)).strip()


def describing_message(message: str, is_merge: bool) -> str:
    """The part of a message that describes the change (a merge's body carries the pull request title)."""
    message = message.replace("\r\n", "\n").strip()
    if is_merge and MERGE_SUBJECT.match(message):
        body = message.split("\n", 1)[1].strip() if "\n" in message else ""
        return body or message
    return message


def draft_prompt(message: str, *, is_merge: bool = False, test_paths: Iterable[str] = (),
                 test_names: Iterable[str] = ()) -> str:
    """A draft task prompt from a commit message, clearly marked for an author to rewrite."""
    text = scrub(describing_message(message, is_merge), test_paths=test_paths, test_names=test_names)
    body = text or "(the commit message said nothing usable; describe the bug)"
    return f"{DRAFT_MARKER}\n\n{body}\n"


def title_of(message: str, is_merge: bool = False) -> str:
    """A one-line title: the subject of the describing message, hashes and URLs removed."""
    subject = describing_message(message, is_merge).split("\n", 1)[0]
    subject = SPACES.sub(" ", HASH.sub("", URL.sub("", subject))).strip()
    return (subject or "untitled fix")[:200]


def candidate_id(subject: str, sha: str, taken: set[str] | None = None) -> str:
    """A slug from the subject plus a short sha, unique among taken, matching ^[a-z0-9][a-z0-9-]{0,79}$."""
    slug = SLUG_CHARS.sub("-", subject.lower()).strip("-")
    words, total = [], 0
    for word in slug.split("-"):
        if total + len(word) + 1 > 48:
            break
        words.append(word)
        total += len(word) + 1
    stem = "-".join(w for w in words if w) or "fix"
    taken = taken or set()
    for width in range(7, 41):
        case_id = f"{stem}-{sha[:width]}"
        if case_id not in taken:
            return case_id
    return f"{stem}-{sha}"[:80]
