"""Go: `func TestX(t *testing.T)`; `go test ./pkg -run`, a package whose testdata/ alone changed whole;
`go mod download`."""

from __future__ import annotations

import re

from corpus.languages.base import (
    Command,
    RepoHints,
    SetupFiles,
    TestRef,
    no_interpreter,
    quote,
    ref_id,
    setup_when,
)
from corpus.languages.testids import brace_tests

NAME = "go"
SUFFIXES: tuple[str, ...] = (".go",)
TEST_GLOBS: tuple[str, ...] = ("testdata/", "*_test.go")
BUILD_GLOBS: tuple[str, ...] = ("go.mod", "go.work")
LOCK_FILES: tuple[str, ...] = ("go.sum",)
DEPENDENCY_GLOBS: tuple[str, ...] = ("go.mod", *LOCK_FILES)
GRADER_FILES: tuple[str, ...] = ()
SETUP_FILES = SetupFiles(present=("go.mod",))
interpreter = no_interpreter
setup = setup_when("go.mod", "go mod download")
TESTDATA = "testdata"
"""The directory Go's tooling ignores as a package and keeps a package's test fixtures in."""
GO_TEST = re.compile(r"^func\s+(Test\w*)\s*\(\s*\w+\s+\*testing\.T\s*\)")


def _starts(text: list[str]) -> list[tuple[int, str]]:
    return [(index, match.group(1)) for index, line in enumerate(text) if (match := GO_TEST.match(line))]


def tests(path: str, content: bytes, section: bytes) -> set[TestRef]:
    """The test functions holding a changed line."""
    return brace_tests(path, content, section, _starts)


def owns(path: str, hints: RepoHints) -> bool:
    """A file of no language under a testdata/ directory, in a fix of Go sources: fixtures (golden files,
    inputs) of the Go package above it."""
    return TESTDATA in path.split("/")[:-1] and any(source.endswith(".go") for source in hints.source_paths)


def _package(path: str) -> str:
    """The package a Go test path belongs to: its directory, or the one holding its testdata/."""
    parts = path.split("/")[:-1]
    if TESTDATA in parts:
        parts = parts[:parts.index(TESTDATA)]
    return "./" + "/".join(parts) if parts else "."


def command(files: list[str], refs: list[TestRef], hints: RepoHints) -> Command:
    """go test of the test files' packages, filtered to the tests changed; `go test ./...` when none."""
    tests = {_package(p) for p in files if p.endswith(".go")}
    names = sorted({ref.name for ref in refs})
    run = f" -run {quote('^(' + '|'.join(names) + ')$')}" if names else ""
    line = f"go test {' '.join(map(quote, sorted(tests)))}{run}" if tests else ""
    # A package whose test data alone changed runs whole: a -run filter for other packages' tests would run
    # none of its tests, and pass.
    data = sorted({_package(p) for p in files if not p.endswith(".go")} - tests)
    whole = f"go test {' '.join(map(quote, data))}" if data else ""
    return Command(" && ".join(part for part in (line, whole) if part) or "go test ./...",
                   tuple(ref_id(ref) for ref in refs))

