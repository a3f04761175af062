"""A merge and the branch commits it brought in are one candidate: the merge's, when it qualifies.

A pull request merged with a merge commit shows up twice in history: as its own commits and as the merge's
first-parent diff. When the merge qualifies as a candidate (it survived both passes, the dedupe and --min-score),
it stands for the whole group: its branch commits are listed in its provenance and not proposed on their own.
When the merge does not qualify (too big, no test change, ...), nothing groups and each branch commit that
qualifies stays a candidate. The corpus keeps the group together too: a branch commit of a merge the corpus
holds (case, candidate or rejection) is not proposed again, and neither is a merge whose branch holds a commit
the corpus has.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeVar

from miner.gitbatch import rev_list_branch
from miner.gitlog import History


class Fix(Protocol):
    """What grouping needs to know of a proposed fix."""

    @property
    def sha(self) -> str: ...

    @property
    def is_merge(self) -> bool: ...


F = TypeVar("F", bound=Fix)


class Branches:
    """Branch commits of merges, from the first pass's history (git only when the walk leaves it), each
    merge worked out once."""

    def __init__(self, repo: Path, history: History) -> None:
        self.repo = repo
        self.history = history
        self.found: dict[str, tuple[str, ...]] = {}
        """Merge sha -> its branch commits, oldest first."""

    def of(self, merge: str) -> tuple[str, ...]:
        """The commits `merge` brought in (`git rev-list merge^2 ... ^merge^1`); () for a merge the first
        pass did not see."""
        if merge not in self.found:
            walked = self.history.branch_commits(merge)
            parents = self.history.parents.get(merge, ())
            if walked is None and len(parents) > 1:
                walked = rev_list_branch(self.repo, parents)
            self.found[merge] = walked or ()
        return self.found[merge]


    def is_merge(self, sha: str) -> bool:
        """Whether the first pass saw sha as a merge."""
        return len(self.history.parents.get(sha, ())) > 1

    def is_bundle(self, branch: frozenset[str]) -> bool:
        """Whether a merge with these branch commits merged whole groups: a merge among them whose own branch
        commits are all among them too (a merge that brought the main line into a pull request's branch is
        not: what it brought in is not the pull request's)."""
        for sha in branch:
            if self.is_merge(sha):
                inner = self.of(sha)
                if inner and branch.issuperset(inner):
                    return True
        return False


def covered_by_known(known_merges: Iterable[tuple[str, str]], branches: Branches) -> dict[str, str]:
    """Branch commit -> where its merge is known (case, candidate, rejected), for the known merges the scan
    saw in history."""
    covered: dict[str, str] = {}
    for merge, where in known_merges:
        for sha in branches.of(merge):
            covered.setdefault(sha, where)
    return covered


@dataclass(frozen=True)
class Foresight:
    """What the end of a scan is expected to make of fix commits, known before any is extracted (`foresee`).
    A wrong guess costs an extraction at the end, never a different candidate."""

    stand_ins: dict[str, str]
    """Branch commit -> the merge expected to stand for it: a merge of more than one commit, not a bundle,
    holding nothing the corpus has. It stands unless the second pass or the dedupe drops it."""
    dropped: frozenset[str]
    """Fix commits `group_merges` drops whatever they hold: branch commits of merges the corpus holds, merges
    holding a commit the corpus has, bundles."""
    unread: frozenset[str]
    """The stand-ins and the dropped whose set of changed paths no other fix has: no other fix can have their
    patch id (a patch id covers every path of its diff), so the dedupe needs nothing of their diff, which is
    not even read."""


def foresee(fixes: Iterable[tuple[str, bool, frozenset[str]]], branches: Branches, known: Mapping[str, str],
            covered: Mapping[str, str]) -> Foresight:
    """The foresight for these (fix sha, is merge, changed paths)."""
    fixes = list(fixes)
    stand: dict[str, str] = {}
    dropped: set[str] = set()
    for sha, is_merge, _ in fixes:
        if sha in covered:
            dropped.add(sha)
        elif is_merge:
            branch = branches.of(sha)
            if any(commit in known or commit in covered for commit in branch) or \
                    branches.is_bundle(frozenset(branch)):
                dropped.add(sha)
            elif len(branch) > 1:
                for commit in branch:
                    stand.setdefault(commit, sha)
    shared = Counter(paths for _, _, paths in fixes)
    unread = frozenset(sha for sha, _, paths in fixes if (sha in stand or sha in dropped) and shared[paths] == 1)
    return Foresight(stand, frozenset(dropped), unread)


def group_merges(proposals: list[F], branches: Branches, known: dict[str, str],
                 covered: dict[str, str], skipped: Counter[str]) -> list[F]:
    """Keep one candidate per merge group (order kept); every drop is counted in skipped.

    known maps fix commits the corpus holds to where (case, candidate, rejected); covered maps the branch
    commits of merges it holds likewise (`covered_by_known`). A branch commit of a known merge goes
    (`branch-of-<where>`), and so does a merge whose branch holds a known commit (`merge-contains-<where>`).
    A merge whose branch holds a whole group (another merge with all its branch commits: a release merge of
    merged pull requests) is a bundle and goes (`bundle-of-merges`): the groups inside stay. The branch commits of every merge that stays go (`branch-of-merge-in-scan`), among them
    merges that only brought another branch's work into the pull request's.
    """
    merges: dict[str, frozenset[str]] = {}
    kept: list[F] = []
    for item in proposals:
        sha = item.sha
        if sha in covered:
            skipped[f"branch-of-{covered[sha]}"] += 1
            continue
        if item.is_merge:
            branch = branches.of(sha)
            where = next((known[b] for b in branch if b in known), None) or next(
                (covered[b] for b in branch if b in covered), None)
            if where is not None:
                skipped[f"merge-contains-{where}"] += 1
                continue
            merges[sha] = frozenset(branch)
        kept.append(item)
    bundles = {sha for sha, branch in merges.items() if branches.is_bundle(branch)}
    in_scan = set().union(*(branch for sha, branch in merges.items() if sha not in bundles))
    grouped = [item for item in kept if item.sha not in in_scan and item.sha not in bundles]
    bundled = sum(1 for item in kept if item.sha in bundles and item.sha not in in_scan)
    if bundled:
        skipped["bundle-of-merges"] += bundled
    if len(grouped) + bundled < len(kept):
        skipped["branch-of-merge-in-scan"] += len(kept) - len(grouped) - bundled
    return grouped
