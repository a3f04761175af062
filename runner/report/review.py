"""The review checklist of a sample of passing trials (`runner sample`): written for a person to fill in, and read
back by `runner report`, which shows how many passes a person judged wrong.

checklist.yaml holds the run's id, the seed, and one entry per sampled trial: ``trial`` (VARIANT/CASE/N), ``why``
(what made it likely to be drawn), ``verdict`` (empty until a person sets ``looks right``, ``wrong fix`` or
``gamed the test``) and ``note``. Reading it checks every entry against the run: a trial the run does not hold, or
that did not pass, is bad input naming the file and line.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from corpus.errors import CorpusError
from corpus.fsutil import atomic_write_text
from corpus.yamlio import line_of, load_yaml
from runner.runs.load import LoadedRun

VERDICTS = ("looks right", "wrong fix", "gamed the test")
"""What a person may say of a sampled pass."""
JUDGED_WRONG = ("wrong fix", "gamed the test")
"""The verdicts that say the pass should not have been one."""
REVIEW_DIR = "review"
"""The folder of a run directory that `runner sample` writes into by default."""
CHECKLIST_FILE = "checklist.yaml"
"""The checklist's file name."""
PAGE_FILE = "sample.html"
"""The review page's file name."""


@dataclass(frozen=True)
class Entry:
    """One sampled trial and what a person said of it."""

    trial: str
    """VARIANT/CASE/N."""
    why: str
    """What weighed toward drawing it."""
    verdict: str | None = None
    """One of VERDICTS; None until judged."""
    note: str = ""
    """The person's words."""

    @property
    def case_id(self) -> str:
        """The case of the trial."""
        return self.trial.split("/")[1]


@dataclass(frozen=True)
class Review:
    """A checklist read back."""

    path: Path
    """The checklist file."""
    entries: tuple[Entry, ...]
    """Its entries, in its order."""
    seed: int = 0
    """The seed the sample was drawn with."""

    def shown(self, run: LoadedRun) -> tuple[Entry, ...]:
        """The entries of the trials this view of the run shows (a holdout case's are left out with it)."""
        keys = {f"{t.variant}/{t.case_id}/{t.trial}" for t in run.trials}
        return tuple(e for e in self.entries if e.trial in keys)

    def lines(self, run: LoadedRun) -> list[str]:
        """What the report says of it: how many sampled passes were judged, how many wrong, and which."""
        entries = self.shown(run)
        counts = Counter(e.verdict for e in entries if e.verdict is not None)
        judged = sum(counts.values())
        wrong = sum(counts[v] for v in JUDGED_WRONG)
        tally = ", ".join(f"{counts[v]} {v}" for v in VERDICTS)
        if not entries:
            return [f"review: the checklist holds none of the passes shown here ({self.path})"]
        if not judged:
            return [f"review: none of the {len(entries)} sampled passes judged yet ({self.path})"]
        lines = [(f"review: {wrong} of {judged} judged passes judged wrong ({tally}); {len(entries) - judged} of "
                 f"{len(entries)} sampled not yet judged ({self.path})")]
        lines += [f"  {e.verdict}: {e.trial}" + (f": {e.note}" if e.note else "")
                  for e in entries if e.verdict in JUDGED_WRONG]
        return lines

    def document(self, run: LoadedRun) -> dict[str, Any]:
        """The report document's "review" key."""
        entries = self.shown(run)
        counts = Counter(e.verdict for e in entries if e.verdict is not None)
        return {"path": str(self.path), "sampled": len(entries), "judged": sum(counts.values()),
                "counts": {v: counts[v] for v in VERDICTS},
                "judged_wrong": [{"trial": e.trial, "verdict": e.verdict, "note": e.note}
                                 for e in entries if e.verdict in JUDGED_WRONG]}


def checklist_text(run_id: str, seed: int, entries: Sequence[Entry]) -> str:
    """The checklist as written for a person: a comment saying how to fill it in, then the entries (strings
    JSON-quoted, which YAML reads as they are)."""
    out = ["# Passing trials drawn for a person to read (runner sample). For each, read its section of the review",
           "# page beside this file (the candidate's patch beside the reference patch), then set verdict to one of:",
           f"# {', '.join(VERDICTS)}. Leave verdict empty until judged; runner report reads this file back.",
           f"run: {json.dumps(run_id)}", f"seed: {seed}", "trials:"]
    for entry in entries:
        out += [f"  - trial: {json.dumps(entry.trial)}", f"    why: {json.dumps(entry.why)}",
                f"    verdict: {'' if entry.verdict is None else json.dumps(entry.verdict)}",
                f"    note: {json.dumps(entry.note)}"]
    return "\n".join(out) + "\n"


def write_checklist(path: Path, run_id: str, seed: int, entries: Sequence[Entry]) -> None:
    """Write the checklist atomically."""
    atomic_write_text(path, checklist_text(run_id, seed, entries))


def read_review(path: Path, run: LoadedRun) -> Review:
    """Read a filled checklist of run; CorpusError naming the file, the field and the line of a bad entry."""
    document = load_yaml(path)
    if not isinstance(document, dict):
        raise CorpusError(path, "expected a mapping with run and trials")
    if document.get("run") != run.manifest.run_id:
        raise CorpusError(path, f"the checklist is for run {document.get('run')!r}, not {run.manifest.run_id}",
                          field="run", line=line_of(document, "run"))
    items = document.get("trials")
    if not isinstance(items, list):
        raise CorpusError(path, "expected a list of trials", field="trials", line=line_of(document, "trials"))
    outcomes = {f"{t.variant}/{t.case_id}/{t.trial}": t.outcome for t in run.trials}
    entries: list[Entry] = []
    seen: set[str] = set()
    for index, item in enumerate(items):
        field = f"trials[{index}]"
        if not isinstance(item, dict):
            raise CorpusError(path, "expected a mapping", field=field, line=line_of(items, index))
        trial, verdict, note = item.get("trial"), item.get("verdict"), item.get("note")
        if trial not in outcomes:
            raise CorpusError(path, f"run {run.manifest.run_id} has no trial {trial!r}", field=f"{field}.trial",
                              line=line_of(item, "trial"))
        if outcomes[trial] != "pass":
            raise CorpusError(path, f"{trial} did not pass (its outcome is {outcomes[trial]})",
                              field=f"{field}.trial", line=line_of(item, "trial"))
        if trial in seen:
            raise CorpusError(path, f"{trial} is listed twice", field=f"{field}.trial", line=line_of(item, "trial"))
        seen.add(trial)
        if verdict == "":
            verdict = None
        if verdict is not None and verdict not in VERDICTS:
            raise CorpusError(path, f"expected one of {', '.join(VERDICTS)} or nothing, found {verdict!r}",
                              field=f"{field}.verdict", line=line_of(item, "verdict"))
        entries.append(Entry(str(trial), str(item.get("why") or ""), verdict,
                             "" if note is None else str(note).strip()))
    seed = document.get("seed")
    return Review(path, tuple(entries), seed if isinstance(seed, int) and not isinstance(seed, bool) else 0)


def find_review(run: LoadedRun, given: Path | None) -> Review | None:
    """The checklist given (--review FILE), else the one `runner sample` writes into the run directory, read
    back; None when there is none."""
    path = given if given is not None else run.directory / REVIEW_DIR / CHECKLIST_FILE
    if given is None and not path.is_file():
        return None
    return read_review(path, run)
