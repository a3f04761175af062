"""A case's further wordings as an author types them (one text, each wording under a `=== ID` line), their leak
findings, and adding one to a case (`authoring add-prompt`)."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from authoring.leaks import Finding, InBase, blocking, find_leaks
from corpus import Case, CaseFiles, Corpus, HindcastError, UsageError
from corpus.layout import Kind
from corpus.model import Wording
from corpus.wordings import check_wording, next_id

HEADER = re.compile(r"^=== *(\S*) *$")
"""The line that starts a wording in the typed text: `=== terse`."""


@dataclass(frozen=True)
class Section:
    """One wording of the typed text, as typed."""

    id: str
    """The id on its `===` line."""
    line: int
    """0-based line of the typed text where its body starts."""
    text: str
    """Its body, without the blank lines around it."""


def format_wordings(prompts: tuple[Wording, ...]) -> str:
    """The wordings as the review screen shows them: `=== ID`, the text, a blank line between two."""
    return "\n\n".join(f"=== {w.id}\n{w.text.strip(chr(10))}" for w in prompts)


def sections(text: str) -> list[Section]:
    """The wordings of a typed text, leniently (what comes before the first `===` line is left out)."""
    found: list[Section] = []
    current: tuple[str, int, list[str]] | None = None
    for number, line in enumerate(text.splitlines()):
        header = HEADER.match(line)
        if header:
            if current is not None:
                found.append(_section(*current))
            current = (header.group(1), number + 1, [])
        elif current is not None:
            current[2].append(line)
    if current is not None:
        found.append(_section(*current))
    return found


def _section(wording_id: str, start: int, lines: list[str]) -> Section:
    while lines and not lines[0].strip():
        lines.pop(0)
        start += 1
    while lines and not lines[-1].strip():
        lines.pop()
    return Section(wording_id, start, "\n".join(lines))


def parse_wordings(text: str, case: Case, what: str = "wordings") -> tuple[Wording, ...]:
    """The typed wordings, checked against case's prompt and each other (UsageError naming what)."""
    for line in text.splitlines():
        if HEADER.match(line):
            break
        if line.strip():
            raise UsageError(f"{what}: start each wording with a line `=== ID` (e.g. `=== terse`)")
    checked = replace(case, prompts=())
    for section in sections(text):
        wording = check_wording(checked, section.id, section.text, what)
        checked = replace(checked, prompts=(*checked.prompts, wording))
    return checked.prompts


def wording_leaks(prompts: tuple[Wording, ...], case: Case, files: CaseFiles, in_base: InBase | None = None,
                  fix_message: str | None = None) -> list[Finding]:
    """Every finding in each wording, each naming its wording."""
    return [replace(finding, wording=wording.id) for wording in prompts
            for finding in find_leaks(wording.text, case, files, in_base, fix_message)]


def typed_leaks(text: str, case: Case, files: CaseFiles, in_base: InBase | None = None,
                fix_message: str | None = None) -> list[Finding]:
    """The findings of the typed wordings, at their lines of the typed text (the review screen selects them)."""
    found = []
    for section in sections(text):
        for finding in find_leaks(section.text, case, files, in_base, fix_message):
            found.append(replace(finding, line=finding.line + section.line, wording=section.id))
    return found


class WordingRefused(HindcastError):
    """A new wording refused for its leak findings: never-shippable ones, or leaks without a justification."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        self.blocking = blocking(findings)
        kind = ("that must never ship (secrets, personal data, internal hosts, the draft marker)" if self.blocking
                else "of leakage; fix them or give a written justification (--override)")
        super().__init__(f"wording refused: {len(self.blocking or findings)} finding(s) {kind}")


def add_wording(corpus: Corpus, case_id: str, text: str, *, wording_id: str | None = None,
                kind: Kind = "cases", override: str | None = None, in_base: InBase | None = None,
                fix_message: str | None = None) -> Wording:
    """Add a wording to a case, linted like its prompt: never-shippable findings refuse it, leak findings too
    unless override justifies them (stored as the case's leak_override); a candidate's is linted when it is
    approved, as its prompt is. Returns the wording."""
    stored = corpus.load(case_id, kind)
    case = stored.case
    wording = check_wording(case, wording_id or next_id(case), text, "--file")
    findings = wording_leaks((wording,), case, stored.files, in_base, fix_message)
    justification = (override or "").strip()
    if kind == "cases" and (blocking(findings) or (findings and not justification)):
        raise WordingRefused(findings)
    changed = replace(case, prompts=(*case.prompts, wording))
    if kind == "cases" and findings and justification:
        changed = replace(changed, leak_override=justification)
    corpus.write(changed, stored.files, kind, expect_mtime_ns=stored.mtime_ns)
    return wording


def where(finding: Finding) -> str:
    """Where a finding is: `prompt` or `wording ID`."""
    return "prompt" if finding.wording == "prompt" else f"wording {finding.wording}"

