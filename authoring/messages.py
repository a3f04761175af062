"""Messages that workers post back to the review screen."""

from __future__ import annotations

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
    """The leakage findings of one prompt text; stale when the text has changed since."""

    def __init__(self, case_id: str, prompt: str, findings: list[Finding]) -> None:
        super().__init__()
        self.case_id = case_id
        self.prompt = prompt
        self.findings = findings

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FindingsReady)


class WordingFindingsReady(Message):
    """The leakage findings of the further wordings as typed; stale when the text has changed since."""

    def __init__(self, case_id: str, text: str, findings: list[Finding]) -> None:
        super().__init__()
        self.case_id = case_id
        self.text = text
        self.findings = findings

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, WordingFindingsReady)


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
