"""The one error hierarchy. The CLI edge turns these into a one-line message and an exit code."""

from __future__ import annotations

from pathlib import Path


class HindcastError(Exception):
    """Something the user can act on; never shown with a traceback."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(HindcastError):
    """Bad arguments or bad input files."""

    exit_code = 2


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


class GitError(HindcastError):
    """A git command failed or the repository is not usable."""

    exit_code = 2


class WorkspaceError(HindcastError):
    """A trial workspace could not be built or broke an isolation invariant."""


class GradingError(HindcastError):
    """The harness could not establish a grading result."""
