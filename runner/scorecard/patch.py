"""A git patch read into per-file changes (unidiff), and each text file's content after the patch, rebuilt from
its content before it."""

from __future__ import annotations

import codecs
from dataclasses import dataclass
from typing import Literal

from unidiff.errors import UnidiffParseError
from unidiff.patch import Hunk, PatchedFile, PatchSet

Status = Literal["added", "deleted", "modified", "renamed"]


class PatchReadError(ValueError):
    """The patch is not a diff unidiff can read."""


@dataclass(frozen=True)
class HunkLines:
    """One hunk's removed and added lines (text, newline stripped)."""

    removed: tuple[str, ...]
    """Lines the hunk removes."""
    added: tuple[str, ...]
    """Lines the hunk adds."""

    @property
    def whitespace_only(self) -> bool:
        """True when the hunk changes only whitespace: the same text once spaces are taken out."""
        if not self.removed and not self.added:
            return False
        return _squeeze(self.removed) == _squeeze(self.added)


@dataclass(frozen=True)
class FileChange:
    """What a patch does to one path."""

    path: str
    """The path after the patch (before it, for a deleted file)."""
    old_path: str | None
    """The path before a rename or copy, else None."""
    status: Status
    """added, deleted, modified or renamed."""
    binary: bool
    """True for a binary change (no hunks)."""
    hunks: tuple[HunkLines, ...]
    """The text hunks."""
    patched: PatchedFile | None = None
    """unidiff's record, to rebuild the content after the patch."""

    @property
    def lines(self) -> int:
        """Lines added plus lines removed."""
        return sum(len(h.removed) + len(h.added) for h in self.hunks)

    @property
    def added_lines(self) -> tuple[str, ...]:
        """Every line the change adds."""
        return tuple(line for h in self.hunks for line in h.added)

    @property
    def removed_lines(self) -> tuple[str, ...]:
        """Every line the change removes."""
        return tuple(line for h in self.hunks for line in h.removed)

    def after(self, before: bytes | None) -> bytes | None:
        """The file's content after the patch, rebuilt from before (None: deleted, binary, or not rebuildable)."""
        if self.status == "deleted" or self.binary:
            return None
        if self.patched is None:  # a rename paired from a deletion and an addition: the same content
            return before if self.status == "renamed" else None
        return rebuild(b"" if self.status == "added" else before or b"", self.patched)


def _squeeze(lines: tuple[str, ...]) -> str:
    return "".join("".join(line.split()) for line in lines)


def _strip(name: str) -> str:
    """A diff header's path without its a/ or b/ prefix, git's C-style quoting ("a/caf\\303\\251.py") undone."""
    if len(name) >= 2 and name[0] == name[-1] == '"':
        raw = codecs.escape_decode(name[1:-1].encode("utf-8", "surrogateescape"))[0]
        name = raw.decode("utf-8", "surrogateescape")
    return name[2:] if name.startswith(("a/", "b/")) else name


def read_patch(patch: bytes) -> tuple[FileChange, ...]:
    """Every file a `git diff` patch changes, in patch order; PatchReadError when it is not a readable diff."""
    if not patch.strip():
        return ()
    text = patch.decode("utf-8", "surrogateescape")
    try:
        files = PatchSet(text)
    except (UnidiffParseError, UnicodeError) as exc:
        raise PatchReadError(f"not a readable diff: {exc}") from None
    out = []
    for f in files:
        if f.is_added_file:
            status: Status = "added"
        elif f.is_removed_file:
            status = "deleted"
        elif f.is_rename:
            status = "renamed"
        else:
            status = "modified"
        path = _strip(f.source_file if status == "deleted" else f.target_file)
        old = _strip(f.source_file) if status == "renamed" else None
        hunks = tuple(_hunk(h) for h in f)
        out.append(FileChange(path, old, status, bool(f.is_binary_file), hunks, f))
    return pair_renames(out)


def pair_renames(changes: list[FileChange]) -> tuple[FileChange, ...]:
    """A deleted text file and an added one of the same content, as the rename a diff without rename detection
    shows as two changes (the rename keeps the added file's place)."""
    deleted = {c.removed_lines: c for c in changes if c.status == "deleted" and not c.binary and c.hunks}
    out: list[FileChange] = []
    paired: set[str] = set()
    for change in changes:
        source = deleted.get(change.added_lines) if change.status == "added" and change.hunks else None
        if source is not None and source.path not in paired:
            paired.add(source.path)
            out.append(FileChange(change.path, source.path, "renamed", False, ()))
        else:
            out.append(change)
    return tuple(c for c in out if not (c.status == "deleted" and c.path in paired))


def _hunk(hunk: Hunk) -> HunkLines:
    removed = tuple(line.value.rstrip("\r\n") for line in hunk if line.is_removed)
    added = tuple(line.value.rstrip("\r\n") for line in hunk if line.is_added)
    return HunkLines(removed, added)


def rebuild(before: bytes, patched: PatchedFile) -> bytes | None:
    """Apply a file's hunks to its content before the patch; None when a hunk's context does not match."""
    source = before.decode("utf-8", "surrogateescape").splitlines(keepends=True)
    out: list[str] = []
    position = 0
    for hunk in patched:
        start = max(hunk.source_start - 1, 0) if hunk.source_length else hunk.source_start
        if start < position or start > len(source):
            return None
        out.extend(source[position:start])
        position = start
        previous_added = False
        for line in hunk:
            if line.line_type == "\\":  # "\ No newline at end of file" after the line it is about
                if previous_added and out:
                    out[-1] = out[-1].rstrip("\r\n")
                continue
            previous_added = line.is_added
            if line.is_context or line.is_removed:
                if position >= len(source) or source[position].rstrip("\r\n") != line.value.rstrip("\r\n"):
                    return None
                if line.is_context:
                    out.append(source[position])
                position += 1
            elif line.is_added:
                out.append(line.value if line.value.endswith("\n") else line.value + "\n")
    out.extend(source[position:])
    return "".join(out).encode("utf-8", "surrogateescape")
