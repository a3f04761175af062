"""The Python tests a fix added or changed, found on the test file's bytes."""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable

from corpus.languages.base import TestRef

HUNK_LINES = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@[^\n]*\n", re.MULTILINE)
PY_NAME = re.compile(rb"[ \t]+([\w\x80-\xff]+)")  # UTF-8 names too


def _line_start(data: bytes, line: int, known_line: int, known_offset: int) -> int:
    """Offset of a 1-based line, counted forward from a known (line, offset)."""
    if line < known_line:
        known_line, known_offset = 1, 0
    offset = known_offset
    for _ in range(line - known_line):
        found = data.find(b"\n", offset)
        if found < 0:
            return len(data)
        offset = found + 1
    return offset


def changed_offsets(data: bytes, section: bytes) -> list[tuple[int, int, int]]:
    """(1-based line, offset of its start, offset of its end) in the new file for every line the diff section
    added or changed, sorted; the same lines as `corpus.languages.testids.changed_lines`.

    Each hunk's new side (its context and added lines) is a slice of the new file, so the hunk is found with
    one search from the previous hunk and checked by counting the newlines in between: the file is never
    split into lines.
    """
    found: dict[int, tuple[int, int]] = {}
    known_line, known_offset = 1, 0
    heads = list(HUNK_LINES.finditer(section))
    for index, head in enumerate(heads):
        stop = heads[index + 1].start() if index + 1 < len(heads) else len(section)
        body = section[head.end():stop].split(b"\n")
        new: list[bytes] = []
        marks: list[int] = []  # indexes into new of changed lines (len(new) marks "the line after")
        removed = False
        for line in body:
            first = line[:1]
            if first == b"+":
                if line[1:].strip():
                    marks.append(len(new))
                new.append(line[1:])
                removed = False
            elif first == b" ":
                if removed:
                    marks.append(len(new))
                    removed = False
                new.append(line[1:])
            elif first == b"-":
                removed = removed or bool(line[1:].strip())
            elif first != b"\\":
                break
        if removed:
            marks.append(max(len(new) - 1, 0) if new else -1)
        if not marks:
            continue
        start_line = int(head.group(1))
        offset = _locate(data, start_line, b"\n".join(new), known_line, known_offset) if new else -1
        exact = offset >= 0  # the hunk's lines are the file's lines there, lengths included
        if not exact:
            offset = _line_start(data, max(start_line, 1), known_line, known_offset)
        known_line, known_offset = max(start_line, 1), offset
        position, row = offset, 0
        for mark in sorted(set(marks)):
            if mark < 0:  # a hunk that only deletes: the line now standing there
                found.setdefault(max(start_line, 1), (offset, _line_end(data, offset)))
                continue
            if exact:
                while row < mark:
                    position += len(new[row]) + 1
                    row += 1
                found.setdefault(start_line + mark, (position, position + len(new[row])))
            else:
                while row < mark and position < len(data):
                    position = _line_end(data, position) + 1
                    row += 1
                position = min(position, len(data))
                found.setdefault(start_line + mark, (position, _line_end(data, position)))
    return sorted((line, start, end) for line, (start, end) in found.items())


def _line_end(data: bytes, offset: int) -> int:
    """Offset of the newline ending the line at offset (len(data) for a last line without one)."""
    end = data.find(b"\n", offset)
    return len(data) if end < 0 else end


def _locate(data: bytes, line: int, text: bytes, known_line: int, known_offset: int) -> int:
    """Offset where text starts as line `line` of data, searching from a known (line, offset); -1 if not there."""
    if line < known_line:
        known_line, known_offset = 1, 0
    position = data.find(text, known_offset)
    while position >= 0:
        at = known_line + data.count(b"\n", known_offset, position)
        if at > line:
            return -1
        if at == line and (position == 0 or data[position - 1] == 10):
            return position
        position = data.find(text, position + 1)
    return -1


@functools.cache
def _closer(indent: int) -> re.Pattern[bytes]:
    """The newline before a line that ends a block opened at indent: code no deeper than it (closing brackets
    do not count). Starting with a literal newline keeps the search fast."""
    return re.compile(rb"\n[ \t]{0,%d}[^\s#)\]}]" % indent)


Header = tuple[int, int, bytes, bytes]
"""(offset of the line, indent, b"def" | b"class", name)."""


def _header_at(data: bytes, hit: int, word: bytes) -> Header | None:
    """The header whose keyword starts at hit, or None when the word there is not one (text, strings)."""
    line_start = data.rfind(b"\n", 0, hit) + 1
    prefix = data[line_start:hit]
    if prefix.strip() in (b"", b"async") and (name := PY_NAME.match(data, hit + len(word) - 1)):
        return line_start, len(prefix) - len(prefix.lstrip()), word.strip(), name.group(1)
    return None


def _header_before(data: bytes, end: int, in_string: Callable[[int], bool]) -> Header | None:
    """The last def/class line that starts before end, found backwards with rfind (a class only when it is
    nearer than the nearest def, so the search stays short); lines inside triple-quoted strings are text."""
    while end > 0:
        hit, word = data.rfind(b"def ", 0, end), b"def "
        nearer = data.rfind(b"class ", max(hit, 0), end)
        if nearer >= 0:
            hit, word = nearer, b"class "
        if hit < 0:
            return None
        if (header := _header_at(data, hit, word)) is not None and not in_string(header[0]):
            return header
        end = hit
    return None


def _next_header_word(data: bytes, start: int) -> int:
    """Offset of the next "def " or "class " at or after start (len(data) when none)."""
    end = data.find(b"def ", start)
    end = len(data) if end < 0 else end
    hit = data.find(b"class ", start, end)
    return end if hit < 0 else hit


class _Quotes:
    """Offsets of the triple quotes (both kinds) in a file, found only as far as asked: whether a position is
    inside a triple-quoted string is the parity of the quotes before it."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.positions: list[int] = []
        self.scanned = 0  # every quote starting before this offset is in positions
        self.resume = {b'"""': 0, b"'''": 0}

    def inside(self, position: int) -> bool:
        """Whether position lies inside a triple-quoted string."""
        if position > self.scanned:
            limit = position + 8192
            for mark, start in self.resume.items():
                # A quote starting before limit ends by limit + 2: bounded searches never read past that.
                while (hit := self.data.find(mark, start, limit + 2)) >= 0:
                    self.positions.append(hit)
                    start = hit + 3
                self.resume[mark] = max(start, limit)
            self.positions.sort()
            self.scanned = limit
        return bisect.bisect_left(self.positions, position) % 2 == 1


def _past_decorator(data: bytes, offset: int) -> int:
    """A changed decorator line stands for the def below it: the offset of that def's line."""
    while True:
        end = data.find(b"\n", offset)
        if end < 0 or not data[offset:end].lstrip().startswith(b"@"):
            return offset
        offset = end + 1


def tests(path: str, data: bytes, section: bytes) -> set[TestRef]:
    """Enclosing test functions (and their classes) of the changed lines, read from the bytes of the file.

    From a changed line, def/class headers are found backwards with rfind; a header encloses the line when
    no line between them is indented no deeper than the header (a regex that skips from newline to newline,
    docstrings skipped). Lines before the next def/class share the nearest header, so most lines cost a
    comparison or two.
    """
    if b"def test" not in data:
        return set()
    ends: dict[int, int] = {}
    answers: dict[int, tuple[bytes, int, tuple[bytes, ...]] | None] = {}
    classes: list[tuple[int, int, Header | None]] = []  # (low, high, h): h is the nearest class before (low, high]

    def class_before(end: int) -> Header | None:
        for low, high, known in classes:
            if low < end <= high:
                return known
        cursor, found = end, None
        while (hit := data.rfind(b"class ", 0, cursor)) >= 0:
            header = _header_at(data, hit, b"class ")
            if header is not None and not inside_string(header[0]):
                found = header
                break
            cursor = hit
        classes.append((found[0] if found else -1, end, found))
        return found

    quotes = _Quotes(data)

    def inside_string(position: int) -> bool:
        return quotes.inside(position)

    def block_end(header: Header) -> int:
        start, indent = header[0], header[1]
        if start not in ends:
            position, closer, end = data.find(b"\n", start), _closer(indent), len(data)
            while position >= 0 and (hit := closer.search(data, position)) is not None:
                if not inside_string(hit.start()):
                    end = hit.start() + 1
                    break
                position = hit.end()
            ends[start] = end
        return ends[start]

    parents: dict[int, Header | None] = {}

    def parent_of(header: Header) -> Header | None:
        """The nearest header before this one that is indented less: the only one that may enclose it.

        Answers are kept for every sibling passed on the way and reused to jump over whole runs of them, so
        the methods of a long class are walked once, not once per changed line.
        """
        if header[0] in parents:
            return parents[header[0]]
        siblings = [header[0]]
        candidate = _header_before(data, header[0], inside_string)
        while candidate is not None and candidate[1] >= header[1]:
            if candidate[1] == header[1]:
                siblings.append(candidate[0])
            if candidate[0] in parents:  # everything between it and its parent is indented deeper
                candidate = parents[candidate[0]]
            else:
                candidate = _header_before(data, candidate[0], inside_string)
        for start in siblings:
            parents[start] = candidate
        return candidate

    def walk(offset: int, nearest: Header) -> tuple[bytes, int, tuple[bytes, ...]] | None:
        header: Header | None = nearest
        while header is not None:
            if header[2] == b"def" and header[3].startswith(b"test") and offset < block_end(header):
                break
            if header[1] == 0:
                return None
            header = parent_of(header)
        if header is None:
            return None
        scope: list[bytes] = []
        ceiling, cursor = header[1], header[0]
        while ceiling > 0 and (enclosing := class_before(cursor)) is not None:
            if enclosing[1] < ceiling:
                if offset < block_end(enclosing):
                    scope.insert(0, enclosing[3])
                ceiling = enclosing[1]
            cursor = enclosing[0]
        return header[3], header[0], tuple(scope)

    found: dict[int, TestRef] = {}
    nearest: Header | None = None
    rescan = -1  # the nearest header holds for every cursor before this offset
    for number, offset, cursor in changed_offsets(data, section):
        if data[offset:cursor].lstrip()[:1] == b"@":
            moved = _past_decorator(data, offset)
            number += data.count(b"\n", offset, moved)
            offset, cursor = moved, _line_end(data, moved)
        # Changed lines come in runs: the nearest header only moves when a def or class lies between two.
        if cursor > rescan:
            nearest = _header_before(data, cursor, inside_string)
            rescan = _next_header_word(data, cursor)
        if nearest is None:
            continue
        if offset < block_end(nearest):
            if nearest[0] not in answers:
                answers[nearest[0]] = walk(offset, nearest)
            answer = answers[nearest[0]]
        else:
            answer = walk(offset, nearest)
        if answer is not None and answer[1] not in found:
            name, start, scope = answer  # the def's line is counted back from the changed line's
            found[start] = TestRef(path, name.decode("utf-8", "replace"),
                                   tuple(part.decode("utf-8", "replace") for part in scope),
                                   number - data.count(b"\n", start, offset))
    return set(found.values())
