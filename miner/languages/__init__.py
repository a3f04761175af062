"""One module per language: which tests a fix added or changed, and the grader command that runs them."""

from __future__ import annotations

from typing import Protocol

from miner.grader_command import Command, RepoHints, Suggestion, ref_id
from miner.languages import go, java, js, python, ruby, rust
from miner.testids import TestRef


class Language(Protocol):
    """What each language module provides."""

    NAME: str
    """Its name, which also orders the parts of a grader command."""
    SUFFIXES: tuple[str, ...]
    """The file name endings of its tests."""
    BUILD_FILES: tuple[str, ...]
    """Files at the repository's root its command reads (`RepoHints.file_content`)."""

    def tests(self, path: str, content: bytes, section: bytes, /) -> set[TestRef]:
        """The tests in the fix version (content) of path that the diff section added or changed."""

    def command(self, files: list[str], refs: list[TestRef], hints: RepoHints, /) -> Command:
        """Its grader command for these test files and the tests they changed."""


LANGUAGES: tuple[Language, ...] = (go, java, js, python, ruby, rust)
UNKNOWN = "other"
"""The name of test files of no known language."""


def language_of(path: str) -> Language | None:
    """The language a test file belongs to, by its name's ending."""
    for language in LANGUAGES:
        if path.endswith(language.SUFFIXES):
            return language
    return None


def tests_changed(path: str, content: bytes, section: bytes) -> list[TestRef]:
    """The tests in path that a diff section added or changed, sorted."""
    language = language_of(path)
    return sorted(language.tests(path, content, section)) if language is not None else []


def suggest(test_files: list[str], refs: list[TestRef], hints: RepoHints | None = None) -> Suggestion:
    """A grader command for the test files a fix added or changed (deleted ones excluded): each language's
    command, joined with &&; a placeholder that fails when there is none."""
    hints = hints or RepoHints()
    by_name = {language.NAME: language for language in LANGUAGES}
    files_of: dict[str, list[str]] = {}
    for path in test_files:
        language = language_of(path)
        if language is None and go.owns_fixture(path, hints):
            language = go
        files_of.setdefault(language.NAME if language else UNKNOWN, []).append(path)
    refs_of: dict[str, list[TestRef]] = {}
    for ref in refs:
        language = language_of(ref.path)
        refs_of.setdefault(language.NAME if language else UNKNOWN, []).append(ref)
    commands: list[str] = []
    junit: str | None = None
    fail_to_pass: tuple[str, ...] = ()
    test_ids: list[str] = []
    for name in sorted(files_of):
        found = refs_of.get(name, [])
        if name not in by_name:
            test_ids += [ref_id(ref) for ref in found]
            continue
        part = by_name[name].command(files_of[name], found, hints)
        test_ids += part.test_ids
        if part.command:
            commands.append(part.command)
        if part.junit is not None:
            junit, fail_to_pass = part.junit, part.test_ids
    if not commands:
        listed = " ".join(sorted(test_files))[:200]
        return Suggestion(f"exit 1  # no grader command inferred for: {listed}", None, (), tuple(test_ids),
                          inferred=False)
    if len(commands) > 1:
        # JUnit ids only decide when pytest is the whole command.
        junit, fail_to_pass = None, ()
    return Suggestion(" && ".join(commands), junit, fail_to_pass, tuple(test_ids))
