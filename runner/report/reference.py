"""The reference patch a sampled pass is read beside: the trial's own copy, else the run's corpus's, and which.

A trial keeps the reference patch it was graded against (``oracle.patch`` in its folder); the corpus may have
changed the case since the run, so that copy comes first. A trial of a run made before trials kept one falls back
to the case in the corpus the run recorded. The note says where the patch shown came from whenever that matters:
the corpus was read because the trial kept none, or the trial's copy no longer matches the corpus's.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from corpus.errors import HindcastError
from corpus.store import Corpus
from runner.report.artifacts import diff_kind
from runner.runs.load import LoadedRun
from runner.runs.result import REFERENCE_FILE

Source = Literal["trial", "corpus"]


@dataclass(frozen=True)
class Reference:
    """The reference patch shown beside one trial's patch."""

    text: str | None
    """The patch, decoded with replacement characters; None when none can be shown."""
    source: Source | None
    """Where it came from: the trial's folder or the run's corpus; None when none can be shown."""
    note: str
    """Where it came from in words when that matters, or why none is shown; empty when the trial's copy is shown
    and the corpus holds the same patch (or cannot be read to tell)."""

    @property
    def lines(self) -> tuple[tuple[str, str], ...]:
        """(kind, line) per line of the patch, kind as `diff_kind` colours it."""
        return tuple((diff_kind(line), line) for line in (self.text or "").splitlines())


def corpus_references(run: LoadedRun, cases: set[str]) -> dict[str, bytes | str]:
    """Each case's oracle patch in the corpus the run recorded, or why it cannot be read (one corpus opened)."""
    origin = run.manifest.origin
    if origin is None:
        return {case: "the run does not record its corpus" for case in cases}
    try:
        corpus = Corpus.open(origin.corpus)
    except HindcastError as exc:
        return {case: f"the run's corpus cannot be read: {exc.message}" for case in cases}
    out: dict[str, bytes | str] = {}
    for case in sorted(cases):
        try:
            out[case] = corpus.load(case).files.oracle_patch
        except (HindcastError, OSError) as exc:
            out[case] = f"not in the run's corpus {origin.corpus}: {exc}"
    return out


def kept_reference(folder: Path) -> bytes | None:
    """The reference patch a trial kept in its folder; None when it kept none (a run made before trials did)."""
    path = folder / REFERENCE_FILE
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        return path.read_bytes()
    except OSError:
        return None


def reference_for(folder: Path, in_corpus: bytes | str) -> Reference:
    """The reference patch to show beside the patch of the trial in folder, given its case's patch in the run's
    corpus (or why there is none there, from `corpus_references`)."""
    kept = kept_reference(folder)
    if kept is not None:
        differs = isinstance(in_corpus, bytes) and in_corpus != kept
        note = ("the trial's own copy, the patch it was graded against: the case's oracle patch in the run's "
                "corpus has changed since" if differs else "")
        return Reference(decode(kept), "trial", note)
    if isinstance(in_corpus, str):
        return Reference(None, None, f"the trial kept no reference patch, and {in_corpus}")
    return Reference(decode(in_corpus), "corpus",
                     "from the run's corpus: the trial kept no copy of the patch it was graded against "
                     "(a run made before trials kept one), and the case may have changed since")


def decode(data: bytes) -> str:
    """A patch's bytes as text, undecodable bytes replaced."""
    return data.decode("utf-8", errors="replace")
