"""What the test finders of the language modules share: the lines a diff section changed, and brace blocks."""

from __future__ import annotations

import re
from collections.abc import Callable

from corpus.languages.base import TestRef

HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def changed_lines(section: bytes) -> set[int]:
    """1-based line numbers in the new file that the diff section added or changed.

    A deletion marks the line that now stands where it was; blank lines belong to no test. The hunks are
    read directly (a few comparisons per line) rather than through a general patch parser, because every
    test file of every candidate goes through here.
    """
    lines: set[int] = set()
    target, removed, in_hunk = 0, False, False
    for line in section.split(b"\n"):
        first = line[:1]
        if first == b"@" and (hunk := HUNK.match(line)):
            if removed:
                lines.add(max(target, 1))
            target, removed, in_hunk = int(hunk.group(1)), False, True
            continue
        if not in_hunk:
            continue
        if first == b"+":
            if line[1:].strip():
                lines.add(target)
            removed = False
            target += 1
        elif first == b"-":
            removed = removed or bool(line[1:].strip())
        elif first == b" ":
            if removed:
                lines.add(target)
                removed = False
            target += 1
        elif first == b"\\":
            continue
        else:
            in_hunk = False
    if removed:
        lines.add(max(target - 1, 1))
    return lines


def changed_text(content: bytes, section: bytes) -> tuple[list[str], set[int]]:
    """The fix version's lines (decoded, bad bytes replaced) and the 1-based numbers of those the section
    changed; no lines at all when it changed none (the file is then not decoded)."""
    lines = changed_lines(section)
    return (content.decode("utf-8", "replace").split("\n"), lines) if lines else ([], lines)


def indent(line: str) -> int:
    """The width of a line's leading whitespace."""
    return len(line) - len(line.lstrip())


def _block_end(text: list[str], start: int) -> int:
    """Index of the line closing the brace block that opens at or after text[start]."""
    depth, opened = 0, False
    for index in range(start, len(text)):
        for char in text[index]:
            if char == "{":
                depth, opened = depth + 1, True
            elif char == "}":
                depth -= 1
                if opened and depth <= 0:
                    return index
    return len(text) - 1


def brace_tests(path: str, content: bytes, section: bytes, starts: Callable[[list[str]], list[tuple[int, str]]],
                scope: tuple[str, ...] = ()) -> set[TestRef]:
    """The tests of a brace language whose blocks hold a changed line (the innermost one when they nest).

    starts(lines) gives (index of the line a test starts on, its name) for the file; its block runs to the
    brace that closes the first one opened from there.
    """
    text, lines = changed_text(content, section)
    blocks = [(start, _block_end(text, start), name) for start, name in starts(text)]
    found: set[TestRef] = set()
    for number in lines:
        index = number - 1
        owners = [(start, name) for start, end, name in blocks if start <= index <= end]
        if owners:
            start, name = max(owners)
            found.add(TestRef(path, name, scope, start + 1))
    return found


def annotated(text: list[str], index: int, name: re.Pattern[str]) -> str | None:
    """The name of what an annotation or attribute line at index marks: the first line after it that is not
    another one, searched for name, at most five lines on."""
    for ahead in range(index + 1, min(index + 6, len(text))):
        if text[ahead].lstrip().startswith(("@", "#[")):
            continue
        if method := name.search(text[ahead]):
            return method.group(1)
        break
    return None
