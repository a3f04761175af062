"""A suggested grader command, and what the fix revision tells the language modules about its build."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from miner.testids import TestRef


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


@dataclass(frozen=True)
class RepoHints:
    """What the fix revision says about the build: the files a language's command reads, and the sources."""

    file_content: Callable[[str], bytes | None] = lambda path: None
    """Fix-version content of a test file, or of a build file a language names (BUILD_FILES); None when absent."""
    source_paths: tuple[str, ...] = ()
    """The source paths the fix changed (a Go package's testdata/ goes with Go sources)."""


class Command(NamedTuple):
    """One language's part of a grader: its command ("" for none) and the ids of its tests."""

    command: str
    """Shell command, or "" when the language has none for these files."""
    test_ids: tuple[str, ...]
    """The tests the fix added or changed, in the framework's naming."""
    junit: str | None = None
    """JUnit XML the command writes; its test ids are then the grader's fail_to_pass."""


def quote(value: str) -> str:
    """A shell word."""
    return shlex.quote(value)


def ref_id(ref: TestRef) -> str:
    """A test's id for review: path::Class::name."""
    return "::".join((ref.path, *ref.scope, ref.name))
