"""Change-aware selection: the cases whose trigger paths match the files a change touched.

A case's ``trigger_paths`` are gitignore-style globs (pathspec's ``GitIgnoreSpec``): ``src/shop/cart.py`` is
anchored at the repository root, a pattern without a slash such as ``cart.py`` matches at any depth, ``src/``
matches everything under it and ``**`` crosses directories. Only active cases are selected; a case without
trigger paths is never selected by a change (run it in a full run).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pathspec

from corpus.errors import GitError
from corpus.gitutil import open_repository, resolve_commit, run_git
from corpus.store import Corpus


def matches(trigger_paths: Iterable[str], changed_paths: Iterable[str]) -> list[str]:
    """The changed paths that the trigger globs match, in the order given."""
    patterns = [p for p in trigger_paths if p.strip()]
    if not patterns:
        return []
    spec = pathspec.GitIgnoreSpec.from_lines(patterns)
    return [path for path in changed_paths if spec.match_file(path)]


def select_cases(corpus: Corpus, changed_paths: Iterable[str]) -> list[str]:
    """Ids of the active cases whose trigger paths match at least one changed path, sorted."""
    changed = [_normalise(p) for p in changed_paths]
    changed = [p for p in changed if p]
    selected: list[str] = []
    for stored in corpus.load_all(active_only=True):
        if matches(stored.case.trigger_paths, changed):
            selected.append(stored.case.id)
    return sorted(selected)


def changed_since(repo: Path | str, rev: str) -> list[str]:
    """Repository paths changed since rev: on this branch since it left rev, plus uncommitted and untracked.

    Committed changes are ``git diff rev...HEAD`` (from the merge base, so commits that landed on rev's branch
    afterwards do not count); renames are split into the old and the new path, so moving a file away from a
    trigger path still selects the case. Staged, unstaged and untracked (not ignored) files are added so a
    local run sees the work in progress.
    """
    root = open_repository(repo)
    if resolve_commit(root, rev) is None:
        raise GitError(f"{root}: unknown revision {rev!r}")
    paths: set[str] = set()
    paths.update(_z_list(["diff", "--name-only", "-z", "--no-renames", f"{rev}...HEAD", "--"], root))
    paths.update(_z_list(["diff", "--name-only", "-z", "--no-renames", "HEAD", "--"], root))
    paths.update(_z_list(["ls-files", "-z", "--others", "--exclude-standard"], root))
    return sorted(paths)


def _z_list(args: list[str], root: Path) -> list[str]:
    out = run_git(args, root).stdout.decode("utf-8", "surrogateescape")
    return [p for p in out.split("\0") if p]


def _normalise(path: str) -> str:
    """A path as given on the command line, relative to the repository root and with forward slashes."""
    text = path.strip().replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text.lstrip("/")
