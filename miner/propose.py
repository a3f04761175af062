"""The end of a scan: from the proposals the second pass left, the candidates kept, ranked and written.

Each extraction became a candidate the moment the second pass finished it, and was staged on disk when it
could be (`miner.stage`); what stays of it in memory is a `Proposal`: the few facts the dedupe, the merge
groups and the ranking need, and its candidate without files once they are staged. Final ids are taken here,
best first: a candidate's id differs from the staged one only on a collision within the scan.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from corpus.fsutil import writing
from corpus.model import Defaults
from corpus.newcase import write_new
from corpus.store import Corpus
from miner.candidate import Candidate, with_id, with_introduced
from miner.extract import BatchResult
from miner.groups import Branches, group_merges
from miner.hygiene import Known, add_corpus_patch_ids
from miner.stage import Stager
from miner.szz import introducing_commits

Progress = Callable[[str, int, int | None], None]
"""progress(phase, done, total): called as the scan advances (total None while unknown)."""


@dataclass(frozen=True, slots=True)
class Proposal:
    """What the end of the scan needs of one extraction: how it orders among the others, and its candidate."""

    sha: str
    """The fix commit."""
    is_merge: bool
    """Whether the fix commit is a merge."""
    author_time: int
    """Its author date, seconds since the epoch."""
    score: float
    """Its ranking score."""
    candidate: Candidate | None
    """Its candidate as built when extracted (id unique among those taken before the scan; files None once
    staged); None for one below --min-score, which is only counted."""
    patch_id: str | None = None
    """`git patch-id --stable` of its first-parent diff (known once the second pass has ended)."""
    deferred: bool = False
    """Not extracted: a branch commit its merge was expected to stand for (score 0, no candidate). One the end
    keeps after all is extracted then (`deferred_kept`)."""


@dataclass(frozen=True)
class Grouping:
    """What the merge groups need once the first pass is done (`miner.groups`)."""

    branches: Branches
    """Branch commits of merges."""
    covered: dict[str, str]
    """Branch commit -> where the corpus holds its merge."""


@dataclass(frozen=True)
class Ending:
    """Where and how the candidates of a scan end up."""

    repo: Path
    """The repository scanned."""
    corpus_path: Path
    """The corpus directory asked for (created when the scan writes and it is not a corpus yet)."""
    write: bool
    """Whether candidates are written."""
    min_score: float | None
    """Candidates scoring below this are dropped."""
    max_candidates: int | None
    """Only the best N are kept."""
    szz: bool
    """Whether the introducing commits are found for the candidates kept."""
    initial: set[str]
    """The ids the corpus held before the scan."""
    defaults: Defaults | None
    """The corpus's defaults."""


class Ordered(Protocol):
    """Anything ordered as `original_first` orders commits."""

    @property
    def is_merge(self) -> bool: ...

    @property
    def author_time(self) -> int: ...

    @property
    def sha(self) -> str: ...


def original_first(item: Ordered) -> tuple[bool, int, str]:
    """The order in which, of commits with the same diff, the first is the original: non-merges first, then
    the oldest."""
    return item.is_merge, item.author_time, item.sha


def dedupe(proposals: list[Proposal], known: Known, skipped: Counter[str]) -> list[Proposal]:
    """Drop proposals whose patch-id is already known (corpus, rejections) or seen earlier in this scan.

    Within a scan the original (`original_first`) wins.
    """
    kept: list[Proposal] = []
    seen: set[str] = set()
    for item in sorted(proposals, key=original_first):
        if item.patch_id and item.patch_id in known.patch_ids:
            skipped[f"same-patch-as-{known.patch_ids[item.patch_id]}"] += 1
            continue
        if item.patch_id and item.patch_id in seen:
            skipped["duplicate-patch-in-scan"] += 1
            continue
        if item.patch_id:
            seen.add(item.patch_id)
        kept.append(item)
    return kept


def _grouped(proposals: list[Proposal], batch: BatchResult, known: Known, ending: Ending, skipped: Counter[str],
             grouping: Grouping) -> list[Proposal]:
    """Dedupe, --min-score and merge groups: the proposals kept, best first."""
    proposals = [replace(p, patch_id=batch.patch_ids.get(p.sha)) for p in proposals]
    if known.by_sha and proposals:
        add_corpus_patch_ids(known, ending.repo)
    kept = dedupe(proposals, known, skipped)
    kept.sort(key=lambda p: (-p.score, -p.author_time, p.sha))
    if ending.min_score is not None:
        above = [p for p in kept if p.score >= ending.min_score]
        if len(above) < len(kept):
            skipped["below-min-score"] += len(kept) - len(above)
        kept = above
    return group_merges(kept, grouping.branches, known.by_sha, grouping.covered, skipped)


def deferred_kept(proposals: list[Proposal], batch: BatchResult, known: Known, ending: Ending,
                  grouping: Grouping) -> list[str]:
    """The deferred proposals that dedupe, --min-score and the merge groups keep after all (their merge did
    not stand for them): these must be extracted before the end. Which proposals are kept depends on their
    shas, dates and patch ids alone (a deferral happens only without --min-score), not on what extraction
    adds, so extracting them keeps the same ones."""
    grouped = _grouped(proposals, batch, known, ending, Counter(), grouping)
    return [p.sha for p in grouped if p.deferred]


def _chosen(proposals: list[Proposal], batch: BatchResult, known: Known, ending: Ending, skipped: Counter[str],
            grouping: Grouping) -> list[Proposal]:
    """Dedupe, --min-score, merge groups and --max-candidates: the proposals kept, best first."""
    kept = _grouped(proposals, batch, known, ending, skipped, grouping)
    if ending.max_candidates is not None and len(kept) > ending.max_candidates:
        skipped["over-max-candidates"] += len(kept) - ending.max_candidates
        kept = kept[:ending.max_candidates]
    return kept


def rank_and_write(ending: Ending, corpus: Corpus | None, known: Known, proposals: list[Proposal],
                   batch: BatchResult, skipped: Counter[str], stager: Stager | None, progress: Progress | None,
                   grouping: Grouping) -> tuple[Corpus | None, list[Candidate]]:
    """Dedupe, merge groups and ranking, then the candidates given their final ids and written (best first);
    the candidates returned hold no files once written, and proposals is emptied."""
    skipped.update(batch.skipped)
    kept = _chosen(proposals, batch, known, ending, skipped, grouping)
    proposals.clear()
    chosen = [p.candidate for p in kept if p.candidate is not None]
    introduced = {}
    if ending.szz and chosen:
        introduced = introducing_commits(ending.repo, [(c.case.fix_commit, c.case.base_commit, c.case.trigger_paths)
                                                       for c in chosen])
    if ending.write and corpus is None:
        if stager is not None:
            stager.wait()  # a failed write is an error before the new corpus appears
        corpus = Corpus.init(ending.corpus_path, name=ending.repo.name.removesuffix(".git") or "corpus",
                             repo=str(ending.repo))
    taken = set(ending.initial)
    candidates: list[Candidate] = []
    root = corpus.root if ending.write and corpus is not None else None
    if stager is not None and root is not None and kept:
        (root / "candidates").mkdir(exist_ok=True)
    for number, proposal in enumerate(kept, 1):
        assert proposal.candidate is not None  # only those below --min-score and deferred ones have none
        # Built with the first free id before the scan; every id taken now was taken then or is this scan's:
        # the id stands unless this scan took it meanwhile.
        candidate = with_introduced(with_id(proposal.candidate, taken), introduced.get(proposal.sha))
        taken.add(candidate.case.id)
        path = None
        if root is not None and stager is not None and stager.is_staged(proposal.sha):
            path = stager.publish(candidate, root / "candidates")
        elif root is not None:
            with writing(root / "candidates"):
                path = write_new(root, candidate.case, candidate.read_files())
        candidates.append(replace(candidate, files=None if path else candidate.files, patch_id=proposal.patch_id,
                                  path=path))
        if progress and number % 50 == 0:
            progress("candidates", number, len(kept))
    return corpus, candidates
