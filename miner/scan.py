"""`miner scan`: history -> candidate cases in the corpus, fast, with counted reasons for everything skipped."""

from __future__ import annotations

import datetime
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.fsutil import undo_new
from corpus.gitutil import open_repository, resolve_commit, run_git
from corpus.interpreters import Installed
from corpus.layout import CONFIG
from corpus.model import Defaults
from corpus.store import Corpus
from miner.candidate import Candidate, build_candidate, with_branches
from miner.classify import PathClassifier
from miner.coverage import Span, Walk, read_covered, record_covered, scan_entry, span_of, walk_of
from miner.environment import Environment, Inference, languages_of
from miner.extract import BatchResult, Extraction, Extractor
from miner.gitdate import check_dates
from miner.gitlog import History, iter_log
from miner.groups import Branches, covered_by_known, foresee
from miner.hygiene import Known, known_commits
from miner.propose import Ending, Grouping, Progress, Proposal, deferred_kept, original_first, rank_and_write
from miner.score import SizeLimits, SubjectWords, Survivor, prefilter
from miner.stage import Stager

__all__ = ["Progress", "ScanOptions", "ScanResult", "ScanStats", "scan"]


@dataclass(frozen=True)
class ScanOptions:
    """Everything `miner scan` takes."""

    repo: Path
    """The repository to scan (work tree or bare)."""
    corpus: Path = Path("evals")
    """The corpus directory; created when missing."""
    rev: str | None = None
    """A revision range (`v1.0..main`); default: HEAD, without what earlier scans covered unless full."""
    since: str | None = None
    """Only commits after this date (git's --since)."""
    until: str | None = None
    """Only commits before this date (git's --until)."""
    max_candidates: int | None = None
    """Keep only the best N candidates of this scan."""
    min_score: float | None = None
    """Drop candidates scoring below this (counted as `below-min-score`)."""
    full: bool = False
    """Scan the whole history even where earlier scans covered it."""
    merges: bool = True
    """Consider merge commits (their first-parent diff)."""
    limits: SizeLimits = field(default_factory=SizeLimits)
    """Size limits for a candidate."""
    szz: bool = False
    """Find the commits that introduced each candidate's bug (slow; candidates only)."""
    write: bool = True
    """Write candidates and scan state; False only reports what would be proposed."""
    pythons: Installed | None = None
    """The interpreters a candidate's Python may be chosen from; None finds the installed ones."""


@dataclass
class ScanStats:
    """What the scan did, in counts and seconds."""

    commits_scanned: int = 0
    """Commits the first pass read."""
    prefiltered: int = 0
    """Commits that passed the first pass and went to the second."""
    candidates: int = 0
    """Candidates proposed (written unless write was off)."""
    skipped: Counter[str] = field(default_factory=Counter)
    """Reason -> commits skipped for it."""
    seconds: float = 0.0
    """Wall time of the scan."""
    range: str = ""
    """The revisions the first pass walked."""
    tip: str | None = None
    """The tip of the scanned history (None for a scan restricted by --rev, --since or --until)."""
    span: Span | None = None
    """The newest and the oldest commit read (None when none was)."""

    def to_json(self) -> dict[str, Any]:
        """Plain data for --json."""
        return {"commits_scanned": self.commits_scanned, "prefiltered": self.prefiltered,
                "candidates": self.candidates, "skipped": dict(sorted(self.skipped.items())),
                "seconds": round(self.seconds, 3), "range": self.range, "tip": self.tip,
                "span": self.span.to_json() if self.span else None}


@dataclass
class ScanResult:
    """The scan's statistics, warnings and the candidates it proposed, best first."""

    stats: ScanStats
    """Counts and timing."""
    candidates: list[Candidate]
    """Proposed candidates, best first."""
    warnings: list[str] = field(default_factory=list)
    """Things the user should know (shallow history, ...)."""
    corpus: Path | None = None
    """The corpus written to."""

    def to_json(self) -> dict[str, Any]:
        """The --json document."""
        return {"stats": self.stats.to_json(), "warnings": self.warnings,
                "candidates": [candidate.to_json() for candidate in self.candidates]}


def _check_options(options: ScanOptions) -> dict[str, int]:
    """The options checked; --since and --until as git reads them now (seconds since the epoch)."""
    if options.rev and (options.since or options.until):
        raise UsageError("--rev cannot be combined with --since/--until")
    dates = check_dates(since=options.since, until=options.until)
    if options.max_candidates is not None and options.max_candidates < 0:
        raise UsageError("--max-candidates must be zero or more")
    if options.limits.max_files < 1 or options.limits.max_lines < 1:
        raise UsageError("size limits must be at least 1")
    return dates


def _open_corpus(path: Path) -> Corpus | None:
    if (path / CONFIG).exists():
        return Corpus.open(path)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise UsageError(f"{path}: exists and is not a corpus (no {CONFIG}); pick another --corpus")
    return None


def _repository(path: Path) -> tuple[Path, bool, str | None]:
    """The work tree's top level (or the bare repository), whether it is shallow, and HEAD's commit (None in
    an empty repository)."""
    repo = open_repository(path)
    shallow = run_git(["rev-parse", "--is-shallow-repository"], repo).stdout.strip() == b"true"
    return repo, shallow, resolve_commit(repo, "HEAD")


def _first_pass(repo: Path, walk: Walk, options: ScanOptions, classifier: PathClassifier, known: Known,
                stats: ScanStats, progress: Progress | None, history: History,
                known_merges: list[tuple[str, str]], words: SubjectWords) -> list[Survivor]:
    """The survivors of the prefilter for the second pass, in the order of history (newest first, so a merge
    comes before the commits it brought in), once all of history is read: only then is it known which merges
    repeat another survivor's diff (`drop_same_diffs`). Every commit's parents are kept (history, for merge
    groups); nothing else of a commit outlives its classification here but its survivor, if it is one, and
    that only until its diff has been read. The merges the corpus already holds go, with where, to
    known_merges. Commits earlier scans covered (walk.skip) are not read; stats.span gets the first and last
    one read; words counts the fix words of every subject read."""
    survivors: list[Survivor] = []
    merges: list[Survivor] = []
    commit_keys: set[bytes] = set()
    parents = history.parents
    skip = walk.skip
    observe = words.observe
    newest = oldest = None
    commits = iter_log(repo, walk.revs, merges=options.merges, since=options.since, until=options.until)
    for commit in commits:
        if skip and commit.sha in skip:
            continue
        newest = newest or commit.sha
        oldest = commit.sha
        stats.commits_scanned += 1
        parents[commit.sha] = commit.parents
        observe(commit)
        if progress and stats.commits_scanned % 500 == 0:
            progress("history", stats.commits_scanned, None)
        where = known.by_sha.get(commit.sha)
        if where is not None:
            stats.skipped[f"already-{where}"] += 1
            if commit.is_merge:
                known_merges.append((commit.sha, where))
            continue
        verdict = prefilter(commit, classifier, options.limits)
        if isinstance(verdict, str):
            stats.skipped[verdict] += 1
            continue
        survivors.append(verdict)
        if commit.is_merge:
            merges.append(verdict)
        else:
            commit_keys.add(commit.diff_key)
    kept = drop_same_diffs(merges, commit_keys, stats)
    stats.span = span_of(repo, newest, oldest)
    return [s for s in survivors if not s.commit.is_merge or s.commit.sha in kept]


def drop_same_diffs(merges: list[Survivor], commit_keys: set[bytes], stats: ScanStats) -> set[str]:
    """The shas of the merges whose diff no other survivor has; commit_keys holds the `diff_key` of every
    non-merge survivor. Equal raw diffs (paths, modes, blob ids) are equal patches, hence equal patch ids.

    A pull request of one commit merged with --no-ff is the common case: the merge's first-parent diff is
    the commit's diff (also when the branch began on an older commit and the main line changed other files
    meanwhile). Found here from the log alone, the copy never costs a second-pass diff. The original
    (`original_first`: the non-merge, else the oldest merge) wins, as in the patch-id check; non-merges are
    all in the second pass (a copy among them is dropped at the end, by its patch id, and counted then).
    """
    seen = set(commit_keys)
    kept: set[str] = set()
    for survivor in sorted(merges, key=lambda s: original_first(s.commit)):
        key = survivor.commit.diff_key
        if key in seen:
            stats.skipped["duplicate-patch-in-scan"] += 1
        else:
            seen.add(key)
            kept.add(survivor.commit.sha)
    return kept


def _stager(options: ScanOptions, corpus: Corpus | None) -> Stager | None:
    """Where candidates are staged while the scan runs, when they can be: every candidate is kept (no
    --max-candidates) and a directory on the corpus's file system exists to stage in."""
    if not options.write or options.max_candidates is not None:
        return None
    if corpus is not None:
        return Stager(corpus.root / "candidates", "candidates", corpus.root / "candidates")
    parent = options.corpus.absolute().parent
    if not parent.is_dir():
        return None
    return Stager(parent, options.corpus.name or "corpus", options.corpus / "candidates")


def scan(options: ScanOptions, progress: Progress | None = None) -> ScanResult:
    """Scan the repository's history and write candidate cases into the corpus."""
    started = time.perf_counter()
    dates = _check_options(options)
    repo, shallow, head = _repository(options.repo)
    corpus = _open_corpus(options.corpus)
    warnings: list[str] = []
    if shallow:
        warnings.append("shallow clone: history is cut, fixes older than the cut cannot be found "
                        "(git fetch --unshallow for all of it)")
    walk = walk_of(repo, head, options.rev, options.full, read_covered(corpus.root, repo) if corpus else [],
                   warnings)
    restricted = bool(options.rev or options.since or options.until)
    stats = ScanStats(range=" ".join(walk.revs), tip=None if restricted else head)
    # What a failed scan made goes: a new corpus, or the candidates/ of a corpus that had none.
    undo = undo_new(options.corpus if corpus is None else corpus.root / "candidates") if options.write else None
    classifier = PathClassifier(corpus.config.test_globs if corpus else ())
    known = known_commits(corpus)
    initial = set(corpus.ids("candidates")) | set(corpus.ids("cases")) if corpus else set()
    defaults = corpus.config.defaults if corpus else None
    stager = _stager(options, corpus)  # before any thread: its writer is forked
    history = History()
    branches = Branches(repo, history)
    known_merges: list[tuple[str, str]] = []
    inference = Inference(repo, defaults.setup if defaults else None, options.pythons)
    proposals: list[Proposal] = []
    propose = _proposer(stager, options, initial, defaults, branches, inference, proposals)
    words = SubjectWords()
    try:
        extractor = Extractor(repo, classifier, options.limits, propose, words)
    except BaseException:
        try:
            inference.close()
        finally:
            if stager is not None:
                stager.close()  # its writer process, forked already
        raise
    done = False
    try:
        survivors = _first_pass(repo, walk, options, classifier, known, stats, progress, history, known_merges,
                                words)
        stats.prefiltered = len(survivors)
        early = min(EARLY, len(survivors) // 20)
        for survivor in survivors[:early]:  # git diffs these while the foresight is worked out
            extractor.add(survivor)
        grouping = Grouping(branches, covered_by_known(known_merges, branches))
        # Without --min-score the score of a commit the merge groups drop decides nothing.
        foresight = None if options.min_score is not None else foresee(
            ((s.commit.sha, s.commit.is_merge, frozenset(path for path, _ in s.categories)) for s in survivors),
            branches, known.by_sha, grouping.covered)
        defer = _deferrer(proposals)
        unread = foresight.unread if foresight is not None else frozenset()
        stand_ins = foresight.stand_ins if foresight is not None else {}
        dropped = foresight.dropped if foresight is not None else frozenset()
        for survivor in survivors[early:]:  # in history's order: a merge is added before its branch commits
            sha = survivor.commit.sha
            if sha not in unread:
                extractor.add(survivor)
            elif sha in stand_ins:
                extractor.hold(survivor, stand_ins[sha])
            else:
                defer(survivor)
        del survivors
        inference.expect(survivor.commit.parents[0] for sha, survivor in extractor.pending.items()
                         if sha not in stand_ins and sha not in dropped)
        if progress:
            progress("history", stats.commits_scanned, stats.commits_scanned)
        batch = extractor.finish(foresight, defer)
        ending = Ending(repo, options.corpus, options.write, options.min_score, options.max_candidates,
                        options.szz, initial, defaults)
        _extract_kept(repo, classifier, options.limits, propose, ending, known, proposals, batch, grouping, words)
        corpus, candidates = rank_and_write(ending, corpus, known, proposals, batch, stats.skipped, stager,
                                            progress, grouping)
        if options.write and corpus is not None:
            record_covered(corpus.root, repo, scan_entry(repo, head, options.rev, dates, stats.commits_scanned),
                           walk.previous)
        done = True
    finally:
        try:
            extractor.close()
            inference.close()
            if stager is not None:
                stager.close()
        finally:
            if not done and undo is not None:  # once the writers have stopped
                undo()
    stats.candidates = len(candidates)
    stats.seconds = time.perf_counter() - started
    return ScanResult(stats, candidates, warnings, corpus.root if corpus else None)


def _deferrer(proposals: list[Proposal]) -> Callable[[Survivor], None]:
    """What the second pass does with a commit it did not extract (`Extractor.finish`): a proposal that only
    takes part in the dedupe and the merge groups."""

    def defer(survivor: Survivor) -> None:
        commit = survivor.commit
        proposals.append(Proposal(commit.sha, commit.is_merge, commit.author_time, 0.0, None, deferred=True))

    return defer


EARLY = 200
"""At most this many survivors, a twentieth of them, the newest, have their diffs asked for before the
foresight is worked out, so git is not idle meanwhile (~0.3 s on pytest's history); they are read whatever
the foresight says."""
REREAD = 1000
"""Commits named on one git log command line when deferred ones are read again."""


def _extract_kept(repo: Path, classifier: PathClassifier, limits: SizeLimits, propose: Callable[[Extraction], None],
                  ending: Ending, known: Known, proposals: list[Proposal], batch: BatchResult,
                  grouping: Grouping, words: SubjectWords) -> None:
    """Extract the deferred commits the end keeps after all (`deferred_kept`), until none is left: their
    proposals are replaced by what extraction makes of them, as if they had never been deferred."""
    while kept := deferred_kept(proposals, batch, known, ending, grouping):
        wanted = set(kept)
        proposals[:] = [p for p in proposals if p.sha not in wanted]
        extractor = Extractor(repo, classifier, limits, propose, words)
        try:
            for start in range(0, len(kept), REREAD):
                for commit in iter_log(repo, kept[start:start + REREAD], walk=False):
                    survivor = prefilter(commit, classifier, limits)
                    assert not isinstance(survivor, str)  # it survived the first time
                    extractor.add(survivor)
            again = extractor.finish()
        finally:
            extractor.close()
        batch.extracted += again.extracted
        batch.skipped.update(again.skipped)
        batch.patch_ids.update(again.patch_ids)  # those whose diff was not read before


def environment_of(inference: Inference, extraction: Extraction) -> Environment:
    """The inferred setup of an extraction's candidate: its base's files, for the languages of its tests, on
    the day (UTC) its fix was committed."""
    committed = datetime.datetime.fromtimestamp(extraction.commit.commit_time, datetime.UTC).date()
    return inference.environment(extraction.base, languages_of(extraction.grader_files), committed)


def _proposer(stager: Stager | None, options: ScanOptions, initial: set[str], defaults: Defaults | None,
              branches: Branches, inference: Inference, proposals: list[Proposal]) -> Callable[[Extraction], None]:
    """What the second pass does with each extraction as it is finished: build its candidate, stage its files
    when they can be, and keep only its `Proposal` (the extraction itself is let go)."""

    def propose(extraction: Extraction) -> None:
        commit = extraction.commit
        candidate = None
        if options.min_score is None or extraction.score >= options.min_score:
            # Built against the ids taken before the scan: the final id differs only on a collision within it.
            candidate = build_candidate(extraction, initial, defaults, None, environment_of(inference, extraction))
            if commit.is_merge:  # merges are extracted once the whole history is read
                candidate = with_branches(candidate, branches.of(commit.sha))
            if stager is not None and stager.stage(candidate):
                candidate = replace(candidate, files=None)  # on their way to disk: not kept here
        proposals.append(Proposal(commit.sha, commit.is_merge, commit.author_time, extraction.score, candidate))

    return propose
