"""`authoring lint`: the leakage and secret checks over every active case, one line per finding."""

from __future__ import annotations

from dataclasses import dataclass

from authoring.gitinfo import base_probe, fix_message, source_repo
from authoring.leaks import Finding, find_leaks
from authoring.wordingtext import where, wording_leaks
from corpus import Corpus
from corpus.layout import CASE_FILE


@dataclass(frozen=True)
class LintFinding:
    """A finding in one case's prompt."""

    case_id: str
    """The case."""
    finding: Finding
    """What was found."""
    overridden: bool
    """True when the case's leak_override justifies it (it is then not reported)."""

    def line(self) -> str:
        """`cases/<id>/case.yaml: prompt LINE:COL: kind: reason: 'text'` (`wording ID LINE:COL...` for a finding in
        one of its further wordings, LINE counted in that wording's text)."""
        return f"cases/{self.case_id}/{CASE_FILE}: {where(self.finding)} {self.finding.describe()}"


@dataclass(frozen=True)
class LintReport:
    """The findings over a corpus's active cases."""

    cases: int
    """How many active cases were checked."""
    findings: list[LintFinding]
    """Every finding, overridden ones included."""

    @property
    def reported(self) -> list[LintFinding]:
        """The findings no leak_override justifies."""
        return [item for item in self.findings if not item.overridden]


def lint_corpus(corpus: Corpus) -> LintReport:
    """Every finding in every active case's prompt and further wordings.

    A case approved with a written leak_override has its leakage findings marked overridden; findings that
    must never ship (secrets, personal data, internal hosts) are reported whatever the override says.
    """
    repo = source_repo(corpus)
    out: list[LintFinding] = []
    active = corpus.load_all("cases", active_only=True)
    for stored in active:
        case = stored.case
        probe, message = base_probe(repo, case.base_commit), fix_message(repo, case)
        for finding in [*find_leaks(case.prompt, case, stored.files, probe, message),
                        *wording_leaks(case.prompts, case, stored.files, probe, message)]:
            out.append(LintFinding(case.id, finding, bool(case.leak_override) and finding.overridable))
    return LintReport(len(active), out)
