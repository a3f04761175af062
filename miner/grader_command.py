"""The suggested grader command of a fix: each language's command for its test files, joined."""

from __future__ import annotations

from dataclasses import dataclass

from corpus.languages import LANGUAGES, language_of
from corpus.languages.base import Language, RepoHints, TestRef, ref_id

UNKNOWN = "other"
"""The name of test files of no known language."""


@dataclass(frozen=True)
class Suggestion:
    """A proposed grader: the command, its JUnit path when it writes one, and the tests the fix touched."""

    command: str
    """Shell command to run in the workspace."""
    junit: str | None
    """JUnit XML the command writes, when it writes one."""
    fail_to_pass: tuple[str, ...]
    """Test ids for the grader's fail_to_pass (only when junit is set)."""
    test_ids: tuple[str, ...]
    """Every test the fix added or changed, in the framework's own naming (for review)."""
    inferred: bool = True
    """False when no command could be inferred and the command is a placeholder that fails."""


def _owner(path: str, hints: RepoHints) -> Language | None:
    """The language of a test file: by its name's ending, else the one that owns it as a fixture."""
    language = language_of(path)
    if language is None:
        language = next((other for other in LANGUAGES.values() if other.owns(path, hints)), None)
    return language


def suggest(test_files: list[str], refs: list[TestRef], hints: RepoHints | None = None) -> Suggestion:
    """A grader command for the test files a fix added or changed (deleted ones excluded): each language's
    command, joined with && in the order of their names; a placeholder that fails when there is none."""
    hints = hints or RepoHints()
    files_of: dict[str, list[str]] = {}
    for path in test_files:
        language = _owner(path, hints)
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
        if name not in LANGUAGES:
            test_ids += [ref_id(ref) for ref in found]
            continue
        part = LANGUAGES[name].command(files_of[name], found, hints)
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
