"""`miner scan`: history -> candidate cases in the corpus, fast, with counted reasons for everything skipped."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.fsutil import undo_new, writing
from corpus.gitutil import open_repository, resolve_commit, run_git
from corpus.interpreters import Installed
from corpus.model import Defaults
from corpus.newcase import write_new
from corpus.store import CONFIG, Corpus
from miner.candidate import Candidate, build_candidate
from miner.classify import PathClassifier
from miner.coverage import Span, Walk, read_covered, record_covered, scan_entry, span_of, walk_of
from miner.environment import Environment, Inference, languages_of
from miner.extract import BatchResult, Extraction, Extractor
from miner.gitdate import check_dates
from miner.gitlog import History, LogCommit, iter_log
from miner.groups import Branches, covered_by_known, group_merges, with_branches
from miner.hygiene import Known, add_corpus_patch_ids, known_commits
from miner.score import SizeLimits, Survivor, prefilter
from miner.stage import Stager
from miner.szz import introducing_commits

Progress = Callable[[str, int, int | None], None]
"""progress(phase, done, total): called as the scan advances (total None while unknown)."""


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


@dataclass(frozen=True)
class Grouping:
    """What the merge groups need once the first pass is done (`miner.groups`)."""

    branches: Branches
    """Branch commits of merges."""
    covered: dict[str, str]
    """Branch commit -> where the corpus holds its merge."""


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
                stats: ScanStats, progress: Progress | None, extractor: Extractor, history: History,
                known_merges: list[tuple[str, str]]) -> None:
    """Hand the extractor the survivors of the prefilter: non-merges as they are found; merges at the end, once
    their parents' trees are known, and only those whose diff no other survivor has (`drop_same_diffs`).
    Every commit's parents go to history; the merges the corpus already holds, with where, to known_merges.
    Commits earlier scans covered (walk.skip) are not read; stats.span gets the first and last one read."""
    survivors: list[Survivor] = []
    trees: dict[str, str] = {}
    parents = history.parents
    skip = walk.skip
    newest = oldest = None
    commits = iter_log(repo, walk.revs, merges=options.merges, since=options.since, until=options.until)
    for commit in commits:
        if skip and commit.sha in skip:
            continue
        newest = newest or commit.sha
        oldest = commit.sha
        stats.commits_scanned += 1
        trees[commit.sha] = commit.tree
        parents[commit.sha] = commit.parents
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
        else:
            survivors.append(verdict)
            if not commit.is_merge:
                extractor.add(verdict)
    for survivor in drop_same_diffs(survivors, trees, stats, set(extractor.by_sha)):
        extractor.add(survivor)
    stats.span = span_of(repo, newest, oldest)


def original_first(commit: LogCommit) -> tuple[bool, int, str]:
    """The order in which, of commits with the same diff, the first is the original: non-merges first, then
    the oldest."""
    return commit.is_merge, commit.author_time, commit.sha


def drop_same_diffs(survivors: list[Survivor], trees: dict[str, str], stats: ScanStats,
                    sent: set[str]) -> list[Survivor]:
    """Keep one commit per (base tree, fix tree): equal trees mean an equal diff, hence an equal patch-id.

    A pull request of one commit merged with --no-ff is the common case: the merge's first-parent diff is
    the commit's diff. Found here from the log alone, the copy never costs a second-pass diff. The original
    (`original_first`) wins, as in the patch-id check. A copy already sent to the second pass (sent) is
    dropped there, by its patch-id, and counted then.
    """
    kept: dict[tuple[str, str], Survivor] = {}
    order = sorted(survivors, key=lambda s: original_first(s.commit))
    for survivor in order:
        base = survivor.commit.parents[0]
        key = (trees.get(base, base), survivor.commit.tree)
        if key not in kept:
            kept[key] = survivor
        elif survivor.commit.sha not in sent:
            stats.skipped["duplicate-patch-in-scan"] += 1
    chosen = {id(s) for s in kept.values()}
    return [s for s in survivors if id(s) in chosen]


def _dedupe(extractions: list[Extraction], known: Known, stats: ScanStats) -> list[Extraction]:
    """Drop candidates whose patch-id is already known (corpus, rejections) or seen earlier in this scan.

    Within a scan the original (`original_first`) wins.
    """
    kept: list[Extraction] = []
    seen: set[str] = set()
    for item in sorted(extractions, key=lambda e: original_first(e.commit)):
        if item.patch_id and item.patch_id in known.patch_ids:
            stats.skipped[f"same-patch-as-{known.patch_ids[item.patch_id]}"] += 1
            continue
        if item.patch_id and item.patch_id in seen:
            stats.skipped["duplicate-patch-in-scan"] += 1
            continue
        if item.patch_id:
            seen.add(item.patch_id)
        kept.append(item)
    return kept


def _stager(options: ScanOptions, corpus: Corpus | None) -> Stager | None:
    """Where candidates are staged while the scan runs, when they can be: every candidate is kept (no
    --max-candidates, no --szz) and a directory on the corpus's file system exists to stage in."""
    if not options.write or options.max_candidates is not None or options.szz:
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
    staging = _early_staging(stager, options, initial, defaults, branches, inference)
    # The second pass starts while the first still reads history.
    try:
        extractor = Extractor(repo, classifier, options.limits, staging)
    except BaseException:
        inference.close()
        raise
    done = False
    try:
        _first_pass(repo, walk, options, classifier, known, stats, progress, extractor, history, known_merges)
        stats.prefiltered = len(extractor.by_sha)
        inference.expect(survivor.commit.parents[0] for survivor in extractor.by_sha.values())
        if progress:
            progress("history", stats.commits_scanned, stats.commits_scanned)
        batch = extractor.finish()
        grouping = Grouping(branches, covered_by_known(known_merges, branches))
        corpus, candidates = _rank_and_write(repo, options, corpus, known, batch, stats, stager, initial, defaults,
                                             inference, progress, grouping)
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


def environment_of(inference: Inference, extraction: Extraction) -> Environment:
    """The inferred setup of an extraction's candidate: its base's files, for the languages of its tests."""
    return inference.environment(extraction.base, languages_of(extraction.grader_files))


def _early_staging(stager: Stager | None, options: ScanOptions, initial: set[str], defaults: Defaults | None,
                   branches: Branches, inference: Inference) -> Callable[[Extraction], None] | None:
    """What the second pass does with each extraction as it is finished: stage its candidate's files."""
    if stager is None:
        return None

    def early(extraction: Extraction) -> None:
        # Built against the ids taken before the scan: the final id differs only on a collision within it.
        if options.min_score is not None and extraction.score < options.min_score:
            return
        candidate = build_candidate(extraction, initial, defaults, None, environment_of(inference, extraction))
        if extraction.commit.is_merge:  # merges are extracted once the whole history is read
            candidate = with_branches(candidate, branches.of(extraction.commit.sha))
        stager.stage(candidate)

    return early


def _rank_and_write(repo: Path, options: ScanOptions, corpus: Corpus | None, known: Known, batch: BatchResult,
                    stats: ScanStats, stager: Stager | None, initial: set[str], defaults: Defaults | None,
                    inference: Inference, progress: Progress | None,
                    grouping: Grouping) -> tuple[Corpus | None, list[Candidate]]:
    """Dedupe, merge groups and ranking, then the candidates built and written (best first)."""
    stats.skipped.update(batch.skipped)
    if known.by_sha and batch.extractions:
        add_corpus_patch_ids(known, repo)
    extractions = _dedupe(batch.extractions, known, stats)
    extractions.sort(key=lambda e: (-e.score, -e.commit.author_time, e.commit.sha))
    if options.min_score is not None:
        kept = [e for e in extractions if e.score >= options.min_score]
        if len(kept) < len(extractions):
            stats.skipped["below-min-score"] += len(extractions) - len(kept)
        extractions = kept
    extractions = group_merges(extractions, grouping.branches, known.by_sha, grouping.covered, stats.skipped)
    if options.max_candidates is not None and len(extractions) > options.max_candidates:
        stats.skipped["over-max-candidates"] += len(extractions) - options.max_candidates
        extractions = extractions[:options.max_candidates]
    introduced = {}
    if options.szz and extractions:
        introduced = introducing_commits(repo, [(e.commit.sha, e.base, e.source_paths) for e in extractions])
    if options.write and corpus is None:
        if stager is not None:
            stager.wait()  # a failed write is an error before the new corpus appears
        corpus = Corpus.init(options.corpus, name=repo.name.removesuffix(".git") or "corpus", repo=str(repo))
    taken = set(initial)
    candidates: list[Candidate] = []
    root = corpus.root if options.write and corpus is not None else None
    if stager is not None and root is not None and extractions:
        (root / "candidates").mkdir(exist_ok=True)
    for number, extraction in enumerate(extractions, 1):
        staged = stager.candidate(extraction.commit.sha) if stager else None
        # Staged with the first free id before the scan; every id taken now was taken then or is this scan's:
        # the id stands unless this scan took it meanwhile.
        if staged is not None and staged.case.id not in taken:
            candidate = staged
        else:
            candidate = build_candidate(extraction, taken, defaults, introduced.get(extraction.commit.sha),
                                        environment_of(inference, extraction))
            if extraction.commit.is_merge:
                candidate = with_branches(candidate, grouping.branches.of(extraction.commit.sha))
        taken.add(candidate.case.id)
        path = None
        if root is not None and staged is not None and stager is not None:
            path = stager.publish(candidate, root / "candidates")
        elif root is not None:
            with writing(root / "candidates"):
                path = write_new(root, candidate.case, candidate.files)
        candidates.append(replace(candidate, patch_id=extraction.patch_id, path=path))
        if progress and number % 50 == 0:
            progress("candidates", number, len(extractions))
    return corpus, candidates
