"""The second pass, survivors only: oracle patch, grader files, tests touched, grader command and score."""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from corpus.gitutil import run_git
from corpus.languages import language_of, tests_changed
from corpus.languages.base import RepoHints, TestRef
from miner.classify import PathClassifier
from miner.diffsignals import assertion_lines, behaviour_lines
from miner.filediff import FileDiff
from miner.gitbatch import CatFile, DiffTree, only_blobs
from miner.gitlog import LogCommit, decode_path, is_utf8
from miner.grader_command import Suggestion, suggest
from miner.groups import Foresight
from miner.score import SizeLimits, SubjectWords, Survivor, score_commit

OMITTED_CATEGORIES = ("docs",)
GROUP = 8
"""Commits whose test files are fetched in one cat-file round trip."""
AHEAD = 4
"""Groups asked for before the oldest one is read: cat-file answers while the scan works, so it never waits."""


@dataclass(frozen=True)
class Extraction:
    """Everything the second pass learned about one fix commit."""

    commit: LogCommit
    """The fix commit."""
    base: str
    """Its first parent."""
    oracle_patch: bytes
    """Changes to neither tests, docs nor CI configuration, binary-safe, applicable with git apply."""
    oracle_paths: tuple[str, ...]
    """Paths in the oracle patch."""
    source_paths: tuple[str, ...]
    """Source-category paths (the trigger paths)."""
    omitted: tuple[str, ...]
    """Paths left out of the oracle: docs and changelogs, CI configuration, submodules."""
    grader_files: dict[str, bytes]
    """Fix version of every test path the fix added or modified."""
    deleted_tests: tuple[str, ...]
    """Test paths the fix deleted."""
    tests: tuple[TestRef, ...]
    """Test functions added or changed."""
    suggestion: Suggestion
    """The proposed grader."""
    score: float
    """Ranking score."""
    evidence: tuple[str, ...]
    """Why the score is what it is."""
    patch_id: str | None = None
    """`git patch-id --stable` of the first-parent diff."""


@dataclass
class BatchResult:
    """What the second pass leaves once every survivor went by: counts and patch ids (the extractions
    themselves were handed to `on_extraction` one at a time and are not kept)."""

    extracted: int = 0
    """Survivors that became extractions."""
    skipped: Counter[str] = field(default_factory=Counter)
    """Reason -> count for survivors dropped in the second pass."""
    patch_ids: dict[str, str] = field(default_factory=dict)
    """Fix sha -> `git patch-id --stable` of its first-parent diff."""


@dataclass(frozen=True)
class _Split:
    survivor: Survivor
    oracle: list[FileDiff]
    tests: list[FileDiff]
    omitted: list[str]
    behaviour_lines: int
    """Condition and return lines the source sections changed (`miner.diffsignals`)."""
    words: SubjectWords | None
    """How common each fix word is in the history scanned."""


def _split(survivor: Survivor, sections: list[FileDiff], classifier: PathClassifier,
           limits: SizeLimits, words: SubjectWords | None = None) -> _Split | str:
    oracle: list[FileDiff] = []
    tests: list[FileDiff] = []
    omitted: list[str] = []
    submodules = 0
    source = False
    sources: list[bytes] = []
    for section in sections:
        path = decode_path(section.path)
        category = classifier.category(path)
        if section.gitlink:
            submodules += 1
            omitted.append(path)
            continue
        if category in OMITTED_CATEGORIES or classifier.is_ci(path):
            omitted.append(path)
            continue
        if not is_utf8(path):
            return "non-utf8-path"
        (tests if category == "test" else oracle).append(section)
        if category == "source":
            source = True
            sources.append(section.text)
    if not source:
        return "submodule-only" if submodules else "no-source-change"
    if not tests:
        return "no-test-change"
    if all(section.binary for section in oracle):
        return "bulk-binary"
    if not any(section.binary or section.added_lines or section.deleted_lines for section in oracle):
        return "mode-only"  # permissions or empty files changed, no source line did
    if not any(section.added_lines or (section.binary and not section.deleted) for section in tests):
        return "test-deletions-only"  # removing tests (files or lines) is not a grader
    if _lines(oracle) + _lines(tests) > limits.max_lines:
        return "too-many-lines"
    return _Split(survivor, oracle, tests, omitted, behaviour_lines(sources), words)


def _lines(sections: list[FileDiff]) -> int:
    """Lines added and deleted over sections."""
    return sum(s.added_lines + s.deleted_lines for s in sections)


def _hints(repo: Path, fix: str, blobs: dict[str, bytes | None], contents: dict[str, bytes],
           sources: tuple[str, ...]) -> RepoHints:
    def content(path: str) -> bytes | None:
        return contents[path] if path in contents else blobs.get(f"{fix}:{path}")

    def grep(pattern: str) -> tuple[str, ...]:
        out = run_git(["grep", "-z", "-l", "-I", "-E", "-e", pattern, fix, "--"], repo, check=False)
        if out.returncode != 0:  # 1: nothing matched
            return ()
        names = out.stdout.decode("utf-8", "replace").split("\0")
        return tuple(sorted(name.split(":", 1)[1] for name in names if ":" in name))

    return RepoHints(file_content=content, source_paths=sources, grep=grep)


def _finish(repo: Path, split: _Split, blobs: dict[str, bytes | None]) -> Extraction | str:
    commit = split.survivor.commit
    grader_files: dict[str, bytes] = {}
    deleted: list[str] = []
    refs: list[TestRef] = []
    for section in split.tests:
        path = decode_path(section.path)
        if section.deleted:
            deleted.append(path)
            continue
        content = blobs.get(_blob_name(commit.sha, section))
        if content is None:
            return "grader-file-unreadable"
        grader_files[path] = content
        if not section.binary:
            refs.extend(tests_changed(path, content, section.text))
    sources = split.survivor.paths("source")
    suggestion = suggest(sorted(grader_files), refs, _hints(repo, commit.sha, blobs, grader_files, sources))
    score, evidence = score_commit(commit, oracle_lines=_lines(split.oracle), test_lines=_lines(split.tests),
                                   test_functions=len(refs), behaviour_lines=split.behaviour_lines,
                                   assertion_lines=assertion_lines(s.text for s in split.tests if s.deleted_lines),
                                   words=split.words)
    if not suggestion.inferred:
        evidence += ("grader command not inferred: set one by hand",)
    oracle_paths = tuple(decode_path(s.path) for s in split.oracle)
    changed_sources = set(sources)
    return Extraction(
        commit=commit,
        base=commit.parents[0],
        oracle_patch=b"".join(s.text for s in split.oracle),
        oracle_paths=oracle_paths,
        source_paths=tuple(p for p in oracle_paths if p in changed_sources),
        omitted=tuple(split.omitted),
        grader_files=grader_files,
        deleted_tests=tuple(sorted(deleted)),
        tests=tuple(sorted(set(refs))),
        suggestion=suggestion,
        score=score,
        evidence=evidence,
    )


def _blob_name(fix: str, section: FileDiff) -> str:
    """How to ask cat-file for the fix version: its blob id, or `fix:path` when the diff shows none (a change
    of mode only)."""
    return section.new_blob or f"{fix}:{decode_path(section.path)}"


def _wanted(split: _Split) -> list[str]:
    """Objects the second pass needs for one commit: new test blobs, and the root files its test files'
    languages' grader commands read."""
    fix = split.survivor.commit.sha
    wanted = [_blob_name(fix, s) for s in split.tests if not s.deleted]
    for language in {language_of(decode_path(s.path)) for s in split.tests}:
        if language is not None:
            wanted += [f"{fix}:{name}" for name in language.GRADER_FILES]
    return wanted


class Extractor:
    """The second pass as a stream: survivors go in while the first pass is still reading history.

    One diff-tree (+ patch-id) and one cat-file process serve every survivor. Git diffs the first survivors
    while later ones are still being found; each commit is finished as soon as its diff arrives, and the
    test files of one group of commits are asked for before the previous group is read, so Python works
    while git computes. on_extraction gets each extraction as it is finished (without its patch id, known
    only at the end); nothing of it is kept here, and a survivor is let go once its diff has been read.
    """

    def __init__(self, repo: Path, classifier: PathClassifier, limits: SizeLimits,
                 on_extraction: Callable[[Extraction], None], words: SubjectWords | None = None) -> None:
        self.repo = repo
        self.classifier = classifier  # the first pass's, with every path it has seen already classified
        self.limits = limits
        self.words = words  # filled by the first pass, which has ended before the first score is taken
        self.on_extraction = on_extraction
        self.pending: dict[str, Survivor] = {}
        """Fix sha -> survivor, for those added whose diff has not been read yet."""
        self.added = 0
        """Survivors added."""
        self.patch_ids: dict[str, str] = {}
        self.held: dict[str, list[Survivor]] = {}
        """Merge sha -> the survivors held until its diff is read (`hold`)."""
        self.diffs = DiffTree(repo, self.patch_ids)
        try:
            self.catfile = CatFile(repo)
        except BaseException:
            self.diffs.close()
            raise

    def add(self, survivor: Survivor) -> None:
        """Queue one survivor, before `finish` (each fix commit once: one added before is not again)."""
        sha = survivor.commit.sha
        if sha not in self.pending:
            self.pending[sha] = survivor
            self.added += 1
            self.diffs.add(sha, survivor.commit.parents[0])

    def hold(self, survivor: Survivor, merge: str) -> None:
        """Queue a survivor that a merge added before is expected to stand for, without asking for its diff:
        `finish` defers it once the merge's diff has passed the checks a diff alone decides, and asks for
        its diff otherwise."""
        if merge in self.pending:
            self.held.setdefault(merge, []).append(survivor)
        else:  # not asked for here: nothing would ever release it
            self.add(survivor)

    def finish(self, foresight: Foresight | None = None,
               on_deferred: Callable[[Survivor], None] | None = None) -> BatchResult:
        """Extract every survivor added; the processes are gone when this returns or raises.

        With a foresight (`miner.groups.foresee`), a commit the merge groups drop whatever it holds, and one
        whose expected stand-in merge came first and passed the checks a diff alone decides, is not extracted
        once its own diff passed them too: it goes to on_deferred (its patch id is still taken). The end of
        the scan extracts it after all if it is kept."""
        result = BatchResult()
        standing: set[str] = set()
        stand_ins = foresight.stand_ins if foresight else {}
        dropped = foresight.dropped if foresight else frozenset()
        waiting: list[_Split] = []
        asked: deque[tuple[list[_Split], list[str]]] = deque()

        def collect() -> None:
            splits, names = asked.popleft()
            blobs = only_blobs(self.catfile.collect(names))
            for split in splits:
                done = _finish(self.repo, split, blobs)
                if isinstance(done, str):
                    result.skipped[done] += 1
                else:
                    result.extracted += 1
                    self.on_extraction(done)

        def ask() -> None:
            # One cat-file round trip per group of commits, AHEAD groups ahead of the one being finished.
            asked.append((list(waiting), self.catfile.request(name for split in waiting for name in _wanted(split))))
            waiting.clear()
            if len(asked) > AHEAD:
                collect()

        held = self.held
        if held:
            self.diffs.flush()  # every merge held for is answered without waiting for what follows it
        else:
            self.diffs.close_input()
        try:
            for sha, sections in self.diffs.results():
                survivor = self.pending.pop(sha)
                outcome = (_split(survivor, sections, self.classifier, self.limits, self.words) if sections
                           else "empty-diff")
                if sha in held:  # the merge some survivors wait for: they are deferred, or their diffs asked for
                    for waiting_survivor in held.pop(sha):
                        if isinstance(outcome, str) or on_deferred is None:
                            self.add(waiting_survivor)
                        else:
                            on_deferred(waiting_survivor)
                    if not held:
                        self.diffs.close_input()
                if isinstance(outcome, str):
                    result.skipped[outcome] += 1
                    continue
                if on_deferred is not None and (sha in dropped or stand_ins.get(sha) in standing):
                    on_deferred(survivor)
                    continue
                if survivor.commit.is_merge:
                    standing.add(sha)
                waiting.append(outcome)
                if len(waiting) >= GROUP:
                    ask()
            ask()
            while asked:
                collect()
        finally:
            self.close()
        self.pending.clear()
        result.patch_ids = self.patch_ids
        return result

    def close(self) -> None:
        """End the git processes (a no-op once finished)."""
        try:
            self.diffs.close()
        finally:
            self.catfile.close()

