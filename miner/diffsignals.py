"""What a fix's diff shows beside its size: a changed condition or return in the source, and a test that now
asserts another value. Read from the hunks of the second pass's sections, for any language."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

CONDITION = re.compile(rb"\s*(?:\}\s*)?(?:if|elif|else\s+if|unless|while|until|switch|case|when|return|raise|throw)"
                       rb"\b(?!\s*=[^=])")
"""A line of source (matched from its second byte, after the diff's mark) whose change changes behaviour: a condition, a return, a raise (not an assignment to a
variable of such a name)."""
DEFINITION = re.compile(rb"\s*(?:(?:pub(?:\([^)]*\))?|export|async|public|private|protected|static|final|abstract|"
                        rb"override|def|func|fn|function|class|struct|impl|module|interface|enum|trait)\b)")
"""The first line of a new function, method or type: the added lines that follow it are new code."""
ASSERTION = re.compile(rb"assert|expect|should|\bwant|\brefute|\.to(?:Be|Equal)\b|\bt\.(?:Error|Fatal)", re.IGNORECASE)
"""A line of a test that asserts a value (assert, assertEqual, expect(...), want:, t.Errorf, ...)."""


CHANGED = re.compile(rb"^(?:@@|[-+]).*", re.MULTILINE)
"""A hunk's header or one of its removed or added lines (context lines are never looked at)."""


def _changed(text: bytes) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of every hunk header and changed line of a diff section, after its file header."""
    start = text.find(b"\n@@")
    if start >= 0:
        for match in CHANGED.finditer(text, start + 1):
            yield match.start(), match.group(0)


def behaviour_lines(sections: Iterable[bytes]) -> int:
    """Condition, return and raise lines the source sections changed: every one removed, and every one added
    but those of a new function (a run of added lines from the first line that defines one on)."""
    count = 0
    for text in sections:
        defining, end = False, -1
        for offset, line in _changed(text):
            first = line[:1]
            if first != b"+" or offset != end + 1:  # a header, a removed line, or the start of another run
                defining = False
            end = offset + len(line)
            if first == b"@":
                continue
            if first == b"+" and DEFINITION.match(line, 1):
                defining = True
            elif not defining and CONDITION.match(line, 1):
                count += 1
    return count


def assertion_lines(sections: Iterable[bytes]) -> int:
    """Assertions the test sections changed: in each hunk, as many as it both removes and adds (the test now
    expects another value), none for an assertion only added (a new test) or only removed."""
    count = 0
    for text in sections:
        removed = added = 0
        for _, line in _changed(text):
            first = line[:1]
            if first == b"@":
                count += min(removed, added)
                removed = added = 0
            elif ASSERTION.search(line, 1):
                if first == b"-":
                    removed += 1
                else:
                    added += 1
        count += min(removed, added)
    return count
