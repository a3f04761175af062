"""Messages that workers post back to the review screen."""

from __future__ import annotations

from collections.abc import Callable

from textual.message import Message

from authoring.leaks import Finding
from authoring.queue import LeakCount
from authoring.verifying import VerifyOutcome


class VerifyProgress(Message):
    """A line of progress from a running verify; a newer one replaces an older one still queued."""

    def __init__(self, case_id: str, text: str) -> None:
        super().__init__()
        self.case_id = case_id
        self.text = text

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, VerifyProgress)


class VerifyFinished(Message):
    """A verify finished with a verdict (ERROR included: it never raises)."""

    def __init__(self, outcome: VerifyOutcome) -> None:
        super().__init__()
        self.outcome = outcome


class FindingsReady(Message):
    """The leakage findings of one text of an editor, found by its checker; stale when the text or the checker
    (the open case) has changed since."""

    def __init__(self, checker: Callable[[str], list[Finding]], text: str, findings: list[Finding]) -> None:
        super().__init__()
        self.checker = checker
        self.text = text
        self.findings = findings

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FindingsReady)


class LeaksCounted(Message):
    """The leak findings of one queue row's prompt, counted in the background."""

    def __init__(self, case_id: str, count: LeakCount | None) -> None:
        super().__init__()
        self.case_id = case_id
        self.count = count


class GraderDiffReady(Message):
    """The fix's diff of the grader files, read from the source repository."""

    def __init__(self, case_id: str, diff: str) -> None:
        super().__init__()
        self.case_id = case_id
        self.diff = diff
