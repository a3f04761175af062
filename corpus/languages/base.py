"""What a language module provides (`Language`), the values its functions take and give, and the defaults a
language without that facet uses."""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, runtime_checkable

if TYPE_CHECKING:
    import datetime

    from corpus.interpreters import Installed


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


@dataclass(frozen=True)
class RepoHints:
    """What the fix revision says about the build: the files a language's command reads, and the sources."""

    file_content: Callable[[str], bytes | None] = lambda path: None
    """Fix-version content of a test file, or of a root file a language names (GRADER_FILES); None when absent."""
    source_paths: tuple[str, ...] = ()
    """The source paths the fix changed (a Go package's testdata/ goes with Go sources)."""
    grep: Callable[[str], tuple[str, ...]] = lambda pattern: ()
    """The fix revision's files whose content matches an extended regular expression (`git grep -E`), sorted."""


class Command(NamedTuple):
    """One language's part of a grader: its command ("" for none) and the ids of its tests."""

    command: str
    """Shell command, or "" when the language has none for these files."""
    test_ids: tuple[str, ...]
    """The tests the fix added or changed, in the framework's naming."""
    junit: str | None = None
    """JUnit XML the command writes; its test ids are then the grader's fail_to_pass."""


@dataclass(frozen=True)
class SetupFiles:
    """The files of a base commit a language's setup looks at; the miner reads these and no others."""

    read: tuple[str, ...] = ()
    """Root files whose content it reads."""
    present: tuple[str, ...] = ()
    """Root files whose presence alone counts (never read)."""
    read_matching: str = ""
    """A regular expression of more root file names whose content it reads ("" for none). It is matched inside
    raw tree objects too, so it has no capturing group and matches no NUL (`[^\\0\\n]` where a name would have
    `.`)."""
    directories: tuple[tuple[str, str], ...] = ()
    """(directory, regular expression of file names): the files directly in it whose content it reads."""


class BaseFiles(Protocol):
    """The files of a base commit that the miner read (those of `SetupFiles`), as a language's setup asks."""

    def has(self, path: str) -> bool:
        """Whether the base has the file."""

    def text(self, path: str) -> str | None:
        """The file's content as text (invalid UTF-8 replaced), or None when absent or not read."""

    def parsed(self, path: str, parse: Callable[[str], Any]) -> Any:
        """parse(the file's text), worked out once per content and parser; None when the file is not read."""

    def paths(self) -> list[str]:
        """Every path looked at, sorted."""


@runtime_checkable
class Language(Protocol):
    """Everything the miner and the runner know of a language; each module of `corpus.languages` is one."""

    NAME: str
    """Its name: it orders the parts of a grader command and names its part of a setup's origin."""
    SUFFIXES: tuple[str, ...]
    """The file name endings of its test files (which language a test file is in)."""
    TEST_GLOBS: tuple[str, ...]
    """Gitignore-style rules of its test files (`corpus.testfiles`), beside the directories all share."""
    BUILD_GLOBS: tuple[str, ...]
    """Gitignore-style rules of its build and configuration files (the miner's "build" paths)."""
    LOCK_FILES: tuple[str, ...]
    """Names of its dependency lock files (a commit of only these is bulk)."""
    DEPENDENCY_GLOBS: tuple[str, ...]
    """Gitignore-style rules of the files whose content decides what its setup installs: the environment cache
    keys an environment on them."""
    GRADER_FILES: tuple[str, ...]
    """Root files of the fix its grader command reads (`RepoHints.file_content`)."""
    SETUP_FILES: SetupFiles
    """The files of the base its setup looks at."""

    def tests(self, path: str, content: bytes, section: bytes, /) -> set[TestRef]:
        """The tests in the fix version (content) of path that the diff section added or changed."""

    def owns(self, path: str, hints: RepoHints, /) -> bool:
        """Whether a test file no language's SUFFIXES claim is its own (fixtures of its tests)."""

    def command(self, files: list[str], refs: list[TestRef], hints: RepoHints, /) -> Command:
        """Its grader command for these test files and the tests they changed."""

    def interpreter(self, files: BaseFiles, installed: Installed, committed: datetime.date | None, /
                    ) -> tuple[str | None, str] | None:
        """The Python version its tests run on, from what the base declares (committed: the fix's commit date,
        when known), and the origin line saying why; None when they need no Python."""

    def setup(self, files: BaseFiles, python: str | None, /) -> tuple[str | None, tuple[str, ...]]:
        """Its setup command for the base (None for none), for the case's Python, and the origin lines saying
        why (`command: ...`, then one `setup: ...` line per step of test preparation it added)."""


def owns_nothing(path: str, hints: RepoHints) -> bool:
    """`Language.owns` of a language whose test files all have its SUFFIXES."""
    return False


def no_interpreter(files: BaseFiles, installed: Installed, committed: datetime.date | None) -> None:
    """`Language.interpreter` of a language whose tests need no Python."""
    return


def setup_when(marker: str, install: str) -> Callable[[BaseFiles, str | None], tuple[str | None, tuple[str, ...]]]:
    """`Language.setup` of a language whose one install command applies when the base has its marker file."""

    def setup(files: BaseFiles, python: str | None) -> tuple[str | None, tuple[str, ...]]:
        if files.has(marker):
            return install, (f"command: {install} ({marker})",)
        return None, (f"command: none (no {marker})",)

    return setup


def quote(value: str) -> str:
    """A shell word."""
    return shlex.quote(value)


def ref_id(ref: TestRef) -> str:
    """A test's id for review: path::Class::name."""
    return "::".join((ref.path, *ref.scope, ref.name))
