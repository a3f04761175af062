"""One commit's patch split into file sections, each with its path, new blob and what kind of change it is."""

from __future__ import annotations

import re
from typing import NamedTuple

INDEX_LINE = re.compile(rb"^index ([0-9a-f]+)\.\.([0-9a-f]+)(?: (\d+))?")
MODE_LINE = re.compile(rb"^(?:new file|deleted file|new|old) mode (\d+)")
ESCAPES = {ord("a"): 7, ord("b"): 8, ord("t"): 9, ord("n"): 10, ord("v"): 11, ord("f"): 12, ord("r"): 13,
           ord('"'): 34, ord("\\"): 92}
GITLINK = b"160000"
ZERO = re.compile(rb"^0+$")
SECTION = b"\ndiff --git "


class FileDiff(NamedTuple):
    """One file's section of a commit's patch."""

    path: bytes
    """Repository path as raw bytes."""
    text: bytes
    """The section, from its `diff --git` line to the next one (applies with git apply)."""
    new_blob: str | None
    """Blob id of the fix version; None when the file was deleted."""
    deleted: bool
    """The fix deleted the file."""
    binary: bool
    """A binary patch (or a binary file that differs)."""
    gitlink: bool
    """A submodule (gitlink) entry rather than a file."""
    added_lines: int
    """Lines added."""
    deleted_lines: int
    """Lines deleted."""


def unquote_c(raw: bytes) -> bytes:
    """Undo git's C-style quoting of a path (the quotes themselves already removed)."""
    out = bytearray()
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == 92 and index + 1 < len(raw):  # backslash
            nxt = raw[index + 1]
            if 48 <= nxt <= 55:
                out.append(int(raw[index + 1:index + 4], 8) & 0xFF)
                index += 4
                continue
            out.append(ESCAPES.get(nxt, nxt))
            index += 2
            continue
        out.append(char)
        index += 1
    return bytes(out)


def header_path(line: bytes) -> bytes:
    """The path named by a `diff --git a/P b/P` header (renames are off, so both sides name the same path)."""
    rest = line[len(b"diff --git "):].rstrip(b"\n")
    if rest.startswith(b'"'):
        end = 1
        while end < len(rest) and not (rest[end] == 34 and rest[end - 1] != 92):
            end += 1
        return unquote_c(rest[1:end])[2:]
    length = (len(rest) - 5) // 2
    return rest[2:2 + length]


def parse_section(text: bytes) -> FileDiff:
    """Describe one file section (its bytes from `diff --git` up to the next section)."""
    first_end = text.find(b"\n") + 1
    path = header_path(text[:first_end])
    hunks = text.find(b"\n@@", first_end - 1)
    header = text[first_end:] if hunks < 0 else text[first_end:hunks + 1]
    new_blob: str | None = None
    deleted = binary = gitlink = False
    for line in header.split(b"\n"):
        if line.startswith(b"index "):
            match = INDEX_LINE.match(line)
            if match:
                new_blob = None if ZERO.match(match.group(2)) else match.group(2).decode()
                gitlink = gitlink or match.group(3) == GITLINK
        elif line.startswith(b"deleted file mode"):
            deleted = True
            gitlink = gitlink or line.rstrip().endswith(GITLINK)
        elif (mode := MODE_LINE.match(line)) and mode.group(1) == GITLINK:
            gitlink = True
        elif line.startswith((b"GIT binary patch", b"Binary files ")):
            binary = True
    added = removed = 0
    if hunks >= 0:
        added, removed = text.count(b"\n+", hunks), text.count(b"\n-", hunks)
    return FileDiff(path, text, None if deleted else new_blob, deleted, binary, gitlink, added, removed)


def split_sections(patch: bytes) -> list[FileDiff]:
    """Split one commit's patch into file sections."""
    starts = [0] if patch.startswith(SECTION[1:]) else []
    position = patch.find(SECTION)
    while position >= 0:
        starts.append(position + 1)
        position = patch.find(SECTION, position + 1)
    if not starts:  # an empty diff
        return []
    return [parse_section(patch[start:end]) for start, end in zip(starts, [*starts[1:], len(patch)], strict=True)]
