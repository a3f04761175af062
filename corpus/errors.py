"""The one error hierarchy and the one set of exit codes; the CLI edge maps an error to its code."""

from __future__ import annotations

from enum import IntEnum
from pathlib import Path


class ExitCode(IntEnum):
    """What every `miner`, `authoring` and `runner` command exits with (DESIGN.md, "Exit codes")."""

    OK = 0
    """Done, and the answer is yes: PASS, every case VALID, every trial scored, every case stable."""
    FAILED = 1
    """Done, and the answer is no (a case not VALID, a trial in error, a lint finding), or the harness failed."""
    WARN = 2
    """A person should look before trusting the result: compare WARN, flakes FLAKY."""
    BAD_INPUT = 3
    """Bad arguments or input files (click usage errors included); nothing was written."""
    BLOCK = 4
    """The gate blocks or refuses: compare BLOCK, flakes with too few trials to label a case."""
    INTERRUPTED = 130
    """Ctrl-C; a run stays resumable."""


class HindcastError(Exception):
    """Something the user can act on; never shown with a traceback."""

    exit_code = ExitCode.FAILED

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(HindcastError):
    """Bad arguments or bad input files."""

    exit_code = ExitCode.BAD_INPUT


class CorpusError(UsageError):
    """A corpus file is malformed; names the file, the field and the line where known."""

    def __init__(self, path: Path | str, message: str, *, field: str | None = None, line: int | None = None):
        where = str(path)
        if line is not None:
            where += f":{line}"
        detail = f"{field}: {message}" if field else message
        super().__init__(f"{where}: {detail}")
        self.path = Path(path)
        self.field = field
        self.line = line


class GitError(UsageError):
    """A git command failed or the repository is not usable (a path or revision the user gave)."""


class WorkspaceError(HindcastError):
    """A trial workspace could not be built or broke an isolation invariant."""


class WriteError(HindcastError, OSError):
    """A file or directory could not be written (a full disk, a read-only or refused path); names the path.

    Also an OSError, so code that treats a failed write as an OSError keeps doing so."""

    def __init__(self, path: Path | str, reason: str, errno: int | None = None) -> None:
        HindcastError.__init__(self, f"cannot write {path}: {reason}")
        self.path = Path(path)
        self.reason = reason
        self.errno = errno
