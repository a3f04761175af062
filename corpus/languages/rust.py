"""Rust: `#[test]` functions; `cargo test`, with `--test` for the integration test files of tests/; `cargo fetch`."""

from __future__ import annotations

import re

from corpus.languages.base import (
    Command,
    RepoHints,
    SetupFiles,
    TestRef,
    no_interpreter,
    owns_nothing,
    quote,
    ref_id,
    setup_when,
)
from corpus.languages.testids import annotated, brace_tests

NAME = "rust"
SUFFIXES: tuple[str, ...] = (".rs",)
TEST_GLOBS: tuple[str, ...] = ("tests.rs", "*_test.rs", "*_tests.rs")
"""Unit-test modules kept in their own file (integration tests live in tests/, which every language shares)."""
BUILD_GLOBS: tuple[str, ...] = ("Cargo.toml", "build.rs", "rust-toolchain*")
LOCK_FILES: tuple[str, ...] = ("Cargo.lock",)
DEPENDENCY_GLOBS: tuple[str, ...] = ("Cargo.toml", *LOCK_FILES)
GRADER_FILES: tuple[str, ...] = ()
SETUP_FILES = SetupFiles(present=("Cargo.toml",))
owns = owns_nothing
interpreter = no_interpreter
setup = setup_when("Cargo.toml", "cargo fetch")
RUST_ATTR = re.compile(r"^\s*#\[(?:\w+::)*test\b")
RUST_FN = re.compile(r"\bfn\s+(\w+)")


def _starts(text: list[str]) -> list[tuple[int, str]]:
    return [(index, name) for index, line in enumerate(text)
            if RUST_ATTR.match(line) and (name := annotated(text, index, RUST_FN)) is not None]


def tests(path: str, content: bytes, section: bytes) -> set[TestRef]:
    """The `#[test]` functions holding a changed line."""
    return brace_tests(path, content, section, _starts)


def command(files: list[str], refs: list[TestRef], hints: RepoHints) -> Command:
    """cargo test of the integration test files changed, filtered to the tests changed."""
    integration = sorted({p.rsplit("/", 1)[-1][:-3] for p in files if p.startswith("tests/") and p.endswith(".rs")
                          and p.count("/") == 1})
    targets = "".join(f" --test {quote(name)}" for name in integration)
    names = sorted({ref.name for ref in refs})
    return Command(f"cargo test{targets}" + (f" -- {' '.join(map(quote, names))}" if names else ""),
                   tuple(ref_id(ref) for ref in refs))

