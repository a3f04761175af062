"""Which test functions a fix added or changed, found from its diff hunks and the fix version of each test file."""

from __future__ import annotations

import bisect
import functools
import itertools
import re
from dataclasses import dataclass
from typing import Literal

Language = Literal["python", "go", "js", "java", "rust", "ruby", "other"]

GO_TEST = re.compile(r"^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)")
GO_FUNC = re.compile(r"^func\s")
JS_TEST = re.compile(r"""\b(?:it|test)(?:\.only|\.skip|\.concurrent|\.each\s*\(.*?\))?\s*\(\s*(['"`])(.+?)\1""")
JAVA_ANNOTATION = re.compile(r"^\s*@(?:Test|ParameterizedTest|RepeatedTest|TestFactory)\b")
JAVA_METHOD = re.compile(r"\b(?:fun\s+|void\s+|\w+\s+)?`?([A-Za-z_]\w*)`?\s*\(")
RUST_ATTR = re.compile(r"^\s*#\[(?:\w+::)*test\b")
RUST_FN = re.compile(r"\bfn\s+(\w+)")
RUBY_EXAMPLE = re.compile(r"""^(\s*)(?:it|specify|scenario|example|test)\b\s*\(?\s*(?:(['"])(.*?)\2)?""")
RUBY_DEF = re.compile(r"^(\s*)def\s+(test_\w+)")
JS_SUFFIXES = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")


@dataclass(frozen=True, order=True)
class TestRef:
    """A test function the fix added or changed."""

    path: str
    """The test file."""
    name: str
    """The test's name as its framework selects it (function, method or example description)."""
    scope: tuple[str, ...] = ()
    """Enclosing classes (Python) or the class name (Java)."""
    line: int = 0
    """1-based line of the test's definition in the fix version."""


def language_of(path: str) -> Language:
    """The test framework family a file belongs to, by extension."""
    if path.endswith(".py"):
        return "python"
    if path.endswith(".go"):
        return "go"
    if path.endswith(JS_SUFFIXES):
        return "js"
    if path.endswith((".java", ".kt")):
        return "java"
    if path.endswith(".rs"):
        return "rust"
    if path.endswith(".rb"):
        return "ruby"
    return "other"


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


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


PY_NAME = re.compile(r"[ \t]+(\w+)")


@functools.cache
def _closer(indent: int) -> re.Pattern[str]:
    """The newline before a line that ends a block opened at indent: code no deeper than it (closing brackets
    do not count). Starting with a literal newline keeps the search fast."""
    return re.compile(rf"\n[ \t]{{0,{indent}}}[^\s#)\]}}]")


Header = tuple[int, int, str, str]
"""(offset of the line, indent, "def" | "class", name)."""


def _header_before(text: str, end: int, keywords: tuple[str, ...] = ("def ", "class ")) -> Header | None:
    """The last def/class line (of the given keywords) that starts before end, found backwards with rfind."""
    while end > 0:
        hit, keyword = max((text.rfind(word, 0, end), word) for word in keywords)
        if hit < 0:
            return None
        line_start = text.rfind("\n", 0, hit) + 1
        prefix = text[line_start:hit]
        if prefix.strip() in ("", "async") and (name := PY_NAME.match(text, hit + len(keyword) - 1)):
            return line_start, len(prefix) - len(prefix.lstrip()), keyword.strip(), name.group(1)
        end = hit
    return None


def _quote_positions(text: str) -> list[int]:
    """Offsets of every triple quote (both kinds), to tell whether a position is inside a docstring."""
    positions = []
    for mark in ('"""', "'''"):
        position = text.find(mark)
        while position >= 0:
            positions.append(position)
            position = text.find(mark, position + 3)
    return sorted(positions)


def _python(path: str, text: str, rows: list[str], lines: set[int]) -> set[TestRef]:
    """Enclosing test functions (and their classes) of the changed lines.

    From a changed line, def/class headers are found backwards with rfind; a header encloses the line when
    no line between them is indented no deeper than the header (a regex that skips from newline to newline,
    docstrings skipped). Lines inside the same nearest header share its answer, so most lines cost one rfind.
    """
    if "def test" not in text:
        return set()
    lengths = list(itertools.accumulate(map(len, rows), initial=0))
    ends: dict[int, int] = {}
    answers: dict[int, tuple[str, int, tuple[str, ...]] | None] = {}
    quotes: list[int] | None = None

    def inside_string(position: int) -> bool:
        nonlocal quotes
        if quotes is None:
            quotes = _quote_positions(text) if ('"""' in text or "'''" in text) else []
        return bisect.bisect_left(quotes, position) % 2 == 1

    def block_end(header: Header) -> int:
        start, indent = header[0], header[1]
        if start not in ends:
            position, closer, end = text.find("\n", start), _closer(indent), len(text)
            while position >= 0 and (hit := closer.search(text, position)) is not None:
                if not inside_string(hit.start()):
                    end = hit.start() + 1
                    break
                position = hit.end()
            ends[start] = end
        return ends[start]

    def walk(offset: int, cursor: int) -> tuple[str, int, tuple[str, ...]] | None:
        test: tuple[str, int] | None = None
        scope: list[str] = []
        ceiling = 10**6
        while (header := _header_before(text, cursor, ("class ",) if test else ("def ", "class "))) is not None:
            if header[1] < ceiling:
                if offset < block_end(header):
                    if test is None and header[2] == "def" and header[3].startswith("test"):
                        test = (header[3], text.count("\n", 0, header[0]) + 1)
                    elif test is not None and header[2] == "class":
                        scope.insert(0, header[3])
                # A header line closes every earlier block indented at least as deep, enclosing or not.
                ceiling = header[1]
                if ceiling == 0:
                    break
            cursor = header[0]
        return (test[0], test[1], tuple(scope)) if test else None

    found: set[TestRef] = set()
    nearest: Header | None = None
    previous = -1
    for number in sorted(lines):
        row = min(number, len(lengths) - 1) - 1
        offset = lengths[row] + row
        cursor = offset + len(rows[row]) if row < len(rows) else offset
        # Changed lines come in runs: the nearest header only moves when one lies between two changes.
        if previous < 0 or text.find("def ", previous, cursor) >= 0 or text.find("class ", previous, cursor) >= 0:
            nearest = _header_before(text, cursor)
        previous = cursor
        if nearest is not None and offset < block_end(nearest):
            if nearest[0] not in answers:
                answers[nearest[0]] = walk(offset, cursor)
            answer = answers[nearest[0]]
        else:
            answer = walk(offset, cursor)
        if answer is not None:
            found.add(TestRef(path, answer[0], answer[2], answer[1]))
    return found


def _past_decorators(text: list[str], lines: set[int]) -> set[int]:
    """A changed decorator line stands for the def below it."""
    out = set()
    for number in lines:
        index = min(number, len(text)) - 1
        while 0 <= index < len(text) - 1 and text[index].lstrip().startswith("@"):
            index += 1
        out.add(index + 1)
    return out


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


def _brace_language(path: str, text: list[str], lines: set[int], language: Language) -> set[TestRef]:
    starts: list[tuple[int, str]] = []
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0]
    for index, line in enumerate(text):
        if language == "go" and (match := GO_TEST.match(line)):
            starts.append((index, match.group(1)))
        elif language == "js" and (js := JS_TEST.search(line)):
            starts.append((index, js.group(2)))
        elif language in ("java", "rust") and (JAVA_ANNOTATION.match(line) if language == "java"
                                               else RUST_ATTR.match(line)):
            pattern = JAVA_METHOD if language == "java" else RUST_FN
            for ahead in range(index + 1, min(index + 6, len(text))):
                if text[ahead].lstrip().startswith(("@", "#[")):
                    continue
                if method := pattern.search(text[ahead]):
                    starts.append((index, method.group(1)))
                break
    found: set[TestRef] = set()
    scope = (stem,) if language == "java" else ()
    blocks = [(start, _block_end(text, start), name) for start, name in starts]
    for number in lines:
        index = number - 1
        owners = [(start, name) for start, end, name in blocks if start <= index <= end]
        if language == "go" and not owners:
            continue
        if owners:
            start, name = max(owners)
            found.add(TestRef(path, name, scope, start + 1))
    return found


def _ruby(path: str, text: list[str], lines: set[int]) -> set[TestRef]:
    found: set[TestRef] = set()
    for number in lines:
        index = min(number, len(text)) - 1
        own = _indent(text[index]) if 0 <= index < len(text) and text[index].strip() else 10**6
        for cursor in range(index, -1, -1):
            line = text[cursor]
            if not line.strip():
                continue
            match = RUBY_DEF.match(line) or RUBY_EXAMPLE.match(line)
            if match and (_indent(line) < own or cursor == index):
                name = match.group(2) if RUBY_DEF.match(line) else (match.group(3) or "example")
                found.add(TestRef(path, name, (), cursor + 1))
                break
            if _indent(line) < own:
                own = _indent(line)
                if own == 0:
                    break
    return found


def tests_changed(path: str, new_content: bytes, section: bytes) -> list[TestRef]:
    """The tests in path that a diff section added or changed, sorted."""
    language = language_of(path)
    if language == "other":
        return []
    lines = changed_lines(section)
    if not lines:
        return []
    decoded = new_content.decode("utf-8", "replace")
    rows = decoded.split("\n")
    if language == "python":
        found = _python(path, decoded, rows, _past_decorators(rows, lines))
    elif language == "ruby":
        found = _ruby(path, rows, lines)
    else:
        found = _brace_language(path, rows, lines, language)
    return sorted(found)
