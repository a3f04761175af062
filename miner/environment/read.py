"""The base commit's build and dependency files, through long-lived `git cat-file --batch` processes.

Which files: those every registered language's `SetupFiles` names (`Wanted`). Per base: its root tree and the
directories they name (Python's `.github/workflows` and `requirements/`; trees list names and blob ids), asked for
AHEAD bases at a time by one process and read CHUNK at a time; then the contents of the few files inference
reads whose blob ids are new, asked for at once for the whole chunk from a second process (so the trees asked
ahead stay in flight) and read as each base needs them. Lockfiles and other files whose presence is all that
counts are never read."""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from corpus.languages import LANGUAGES
from corpus.languages.base import SetupFiles
from miner.gitbatch import CatFile

AHEAD = 256
"""Bases whose trees are asked for before the first of them is read: git answers whenever it is scheduled.
Their requests (~150 bytes each) stay below a default 64 KiB pipe, so asking never blocks on a git that is
itself blocked writing answers not yet read."""
CHUNK = 32
"""Bases read at once (see `BaseReader.listing`)."""
FETCHING = 512
"""Blob ids asked for ahead at most: their requests (~65 bytes each) stay below a default 64 KiB pipe, so
asking never blocks on a git blocked writing contents not yet read."""
MAX_BLOB = 1 << 20
"""Files larger than this are not read (no build file of a real project is)."""
KEEP = 256
"""Trees, file contents and parsed files kept for reuse (each kind): the most recently used. Bases come in
history order, so the ones reused are recent; the memory held does not grow with the history scanned."""

Key = tuple[tuple[str, str], ...]
"""(path, blob id) of every file inference looks at: equal keys give equal inferences."""
K = TypeVar("K")
V = TypeVar("V")


class Recent(Generic[K, V]):
    """A memo that keeps only its `size` (default KEEP) most recently used entries."""

    def __init__(self, size: int | None = None) -> None:
        self.size = KEEP if size is None else size
        self.entries: dict[K, V] = {}

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def get(self, key: K) -> V | None:
        """The value (now the most recently used), or None."""
        entries = self.entries
        if key not in entries:
            return None
        value = entries[key] = entries.pop(key)
        return value

    def put(self, key: K, value: V) -> V:
        """Remember value (the oldest entry goes when there are too many); returns it."""
        entries = self.entries
        entries.pop(key, None)
        entries[key] = value
        if len(entries) > self.size:
            del entries[next(iter(entries))]
        return value


@dataclass(frozen=True)
class Wanted:
    """The files of a base inference looks at: every language's `SetupFiles` together."""

    read: frozenset[str]
    """Root files whose content is read."""
    present: frozenset[str]
    """Root files whose presence alone counts (never read)."""
    read_matching: re.Pattern[str] | None
    """More root file names whose content is read."""
    directories: tuple[tuple[str, re.Pattern[str]], ...]
    """(directory, file names): the files directly in it whose content is read."""
    root_names: bytes
    """A regular expression of every root name looked at, for raw tree objects."""

    def reads(self, name: str) -> bool:
        """Whether a root file's content is read."""
        matching = self.read_matching
        return name in self.read or (matching is not None and matching.fullmatch(name) is not None)


@functools.cache
def wanted(rules: tuple[SetupFiles, ...]) -> Wanted:
    """The files these languages' setups look at together."""
    read = frozenset(name for rule in rules for name in rule.read)
    present = frozenset(name for rule in rules for name in rule.present) - read
    patterns = [rule.read_matching for rule in rules if rule.read_matching]
    directories: dict[str, list[str]] = {}
    for rule in rules:
        for directory, pattern in rule.directories:
            directories.setdefault(directory, []).append(pattern)
    names = [re.escape(name.encode()) for name in sorted(read | present)] + [p.encode() for p in patterns]
    return Wanted(read, present, _either(patterns) if patterns else None,
                  tuple((directory, _either(found)) for directory, found in directories.items()), b"|".join(names))


def _either(patterns: list[str]) -> re.Pattern[str]:
    """One expression matching what any of patterns matches."""
    return re.compile("|".join(f"(?:{pattern})" for pattern in patterns))


@dataclass(frozen=True)
class ReadFiles:
    """The files of one base commit that inference looks at (`corpus.languages.base.BaseFiles`)."""

    key: Key
    """(path, blob id) of every such file, sorted."""
    contents: dict[str, bytes]
    """Content by path of the files read (present in key, readable, small enough)."""
    parsed_by_blob: Recent[tuple[str, str], Any] = field(default_factory=Recent)
    """(parser name, blob id) -> what the parser made of that blob, shared by every base of a scan (the
    recently used ones)."""

    def has(self, path: str) -> bool:
        """Whether the base has the file."""
        return any(name == path for name, _ in self.key)

    def text(self, path: str) -> str | None:
        """The file's content as text (invalid UTF-8 replaced), or None when absent or not read."""
        content = self.contents.get(path)
        return None if content is None else content.decode("utf-8", "replace")

    def parsed(self, path: str, parse: Callable[[str], Any]) -> Any:
        """parse(the file's text), worked out once per blob and parser; None when the file is not read."""
        oid = next((oid for name, oid in self.key if name == path), None)
        if oid is None or path not in self.contents:
            return None
        memo = (parse.__qualname__, oid)
        if memo in self.parsed_by_blob:
            return self.parsed_by_blob.get(memo)
        return self.parsed_by_blob.put(memo, parse(self.contents[path].decode("utf-8", "replace")))

    def paths(self) -> list[str]:
        """Every path looked at, sorted."""
        return [name for name, _ in self.key]


@functools.cache
def _tree_entry(hash_size: int) -> re.Pattern[bytes]:
    """One entry of a raw tree object: mode, name, object id (binary, hash_size bytes)."""
    return re.compile(rb"(\d+) ([^\0]*)\0(.{%d})" % hash_size, re.DOTALL)


def parse_tree(content: bytes, hash_size: int) -> list[tuple[str, str, str]]:
    """(mode, name, object id) of each entry of a raw tree object. Entries follow each other with nothing
    between, so matching one after another from the start reads each exactly once."""
    return [(mode.decode(), name.decode("utf-8", "surrogateescape"), oid.hex())
            for mode, name, oid in _tree_entry(hash_size).findall(content)]


@functools.cache
def _root_entry(hash_size: int, names: bytes) -> re.Pattern[bytes]:
    """One entry of a raw root tree, with the name and object id captured when it is a regular file
    inference looks at (names: `Wanted.root_names`), left empty otherwise."""
    return re.compile(rb"(?:100\d{3} (%s)\0(.{%d})|\d+ [^\0]*\0.{%d})" % (names, hash_size, hash_size), re.DOTALL)


def _root_blobs(found: tuple[str, bytes] | None, hash_size: int, names: bytes) -> list[tuple[str, str]]:
    """(name, blob id) of the root files inference looks at, from a root tree answer: every other entry is
    passed over without being decoded (root trees differ from commit to commit, so none is kept)."""
    if found is None or found[0] != "tree":
        return []
    return [(name.decode("utf-8", "surrogateescape"), oid.hex())
            for name, oid in _root_entry(hash_size, names).findall(found[1]) if name]


def _blobs(found: tuple[str, bytes] | None, hash_size: int,
           trees: Recent[bytes, list[tuple[str, str]]]) -> list[tuple[str, str]]:
    """(name, blob id) of the regular files of a tree answer (none when it is missing or not a tree); trees
    holds the ones parsed recently, by content."""
    if found is None or found[0] != "tree":
        return []
    content = found[1]
    listed = trees.get(content)
    if listed is None:
        listed = trees.put(content, [(name, oid) for mode, name, oid in parse_tree(content, hash_size)
                                     if mode.startswith("100")])
    return listed


class BaseReader:
    """Reads `ReadFiles` of base commits from one cat-file process; file contents are kept by blob id."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.wanted = wanted(tuple(language.SETUP_FILES for language in LANGUAGES.values()))
        self.catfile = CatFile(repo)
        self.contents_catfile: CatFile | None = None  # a second process: trees asked ahead stay in flight
        self.blobs: Recent[str, bytes | None] = Recent()
        """Blob id -> its content (None when missing or too large to be read), the recently used ones."""
        self.parsed: Recent[tuple[str, str], Any] = Recent()
        self.trees: Recent[bytes, list[tuple[str, str]]] = Recent()
        self.expected: deque[str] = deque()
        self.asked: deque[tuple[str, list[str]]] = deque()
        self.asked_bases: set[str] = set()
        self.listed: dict[str, tuple[Key, list[tuple[str, str]]]] = {}
        self.fetching: dict[str, None] = {}
        """Blob ids asked of the contents process and not read yet, in the order asked."""

    def expect(self, bases: Iterable[str]) -> None:
        """Bases about to be asked for, in order: their trees are asked for AHEAD at a time, so git answers
        while the scan works."""
        self.expected.extend(bases)
        self._ask_ahead()

    def _ask(self, bases: list[str]) -> None:
        """Ask for the trees of bases in one write (each write lets another thread take the interpreter)."""
        directories = [directory for directory, _ in self.wanted.directories]
        names = {base: [f"{base}^{{tree}}", *(f"{base}:{directory}" for directory in directories)] for base in bases}
        self.catfile.request(name for base in bases for name in names[base])
        for base in bases:
            self.asked.append((base, names[base]))
            self.asked_bases.add(base)

    def _ask_ahead(self) -> None:
        """Top the bases asked for up to AHEAD once fewer than half that are outstanding."""
        if len(self.asked) > AHEAD // 2:
            return
        bases: list[str] = []
        while self.expected and len(self.asked) + len(bases) < AHEAD:
            base = self.expected.popleft()
            if base not in self.asked_bases and base not in self.listed and base not in bases:
                bases.append(base)
        if bases:
            self._ask(bases)

    def _collect(self) -> list[tuple[str, str]]:
        """Read the oldest outstanding answer into listed; returns the files of it whose content is read."""
        base, names = self.asked.popleft()
        self.asked_bases.discard(base)
        self.listed[base] = listing = self._listing(base, self.catfile.collect(names), names)
        return listing[1]

    def listing(self, base: str) -> tuple[Key, list[tuple[str, str]]]:
        """The key of base's files, and the (path, blob id) of those whose content is read.

        A base not read yet is read with the CHUNK bases asked after it (answered by now: they were asked
        together), and the contents of their files not read before are asked for at once: one round trip
        to git for a run of bases, not one for each base with a new file."""
        if base not in self.listed:
            if base not in self.asked_bases:
                self._ask([base])
            reads = []
            while base not in self.listed:
                reads.append(self._collect())
            reads += [self._collect() for _ in range(min(CHUNK, len(self.asked)))]
            oids = list(dict.fromkeys(oid for read in reads for _, oid in read
                                      if oid not in self.blobs and oid not in self.fetching))
            if oids and len(self.fetching) + len(oids) <= FETCHING:
                self._fetch(oids)
        self._ask_ahead()
        return self.listed.pop(base)

    def _listing(self, base: str, answers: dict[str, tuple[str, bytes] | None],
                 names: list[str]) -> tuple[Key, list[tuple[str, str]]]:
        hash_size = len(base) // 2
        key: list[tuple[str, str]] = []
        read: list[tuple[str, str]] = []
        wanted = self.wanted
        for name, oid in _root_blobs(answers.get(names[0]), hash_size, wanted.root_names):
            if wanted.reads(name):
                read.append((name, oid))
            elif name in wanted.present:
                key.append((name, oid))
        for (directory, pattern), asked in zip(wanted.directories, names[1:], strict=True):
            read += [(f"{directory}/{name}", oid) for name, oid in _blobs(answers.get(asked), hash_size, self.trees)
                     if pattern.fullmatch(name)]
        return tuple(sorted(key + read)), read

    def _fetch(self, oids: list[str]) -> None:
        """Ask the contents process for blobs (not asked for already), to be read in order by `_fetched`."""
        if self.contents_catfile is None:
            self.contents_catfile = CatFile(self.repo)
        self.contents_catfile.request(oids)
        self.fetching.update(dict.fromkeys(oids))

    def _fetched(self) -> tuple[str, bytes | None]:
        """Read the oldest blob asked for (None when missing, not a blob or too large) and keep it."""
        assert self.contents_catfile is not None
        oid = next(iter(self.fetching))
        del self.fetching[oid]
        found = self.contents_catfile.collect([oid])[oid]
        ok = found is not None and found[0] == "blob" and len(found[1]) <= MAX_BLOB
        return oid, self.blobs.put(oid, found[1] if ok and found is not None else None)

    def contents(self, read: list[tuple[str, str]]) -> dict[str, bytes]:
        """The content of each (path, blob id), by path: kept ones, then those asked for ahead, then the
        rest in one round trip."""
        known = {oid: self.blobs.get(oid) for _, oid in read if oid in self.blobs}
        missing = [oid for oid in dict.fromkeys(oid for _, oid in read) if oid not in known
                   and oid not in self.fetching]
        if missing:
            self._fetch(missing)
        waiting = {oid for _, oid in read if oid not in known}
        while waiting:
            oid, content = self._fetched()
            if oid in waiting:
                known[oid] = content
                waiting.discard(oid)
        return {path: content for path, oid in read if (content := known.get(oid)) is not None}

    def files(self, base: str) -> tuple[Key, Callable[[], ReadFiles]]:
        """The key of base's files, and how to read them (only needed when the key is new)."""
        key, read = self.listing(base)
        return key, lambda: ReadFiles(key, self.contents(read), self.parsed)

    def close(self) -> None:
        """End the cat-file processes."""
        try:
            self.catfile.close()
        finally:
            if self.contents_catfile is not None:
                self.contents_catfile.close()
