"""SZZ on candidates only: which commits introduced the lines a fix deleted or changed, and how long the bug
escaped (pydriller's implementation: blame of the first parent, blank and comment lines ignored)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

DAY_SECONDS = 86400.0


@dataclass(frozen=True)
class Introduced:
    """SZZ's answer for one fix."""

    fix_commit: str
    """The fix."""
    introducing: tuple[str, ...]
    """Commits that last touched the lines the fix deleted or changed, oldest first."""
    escape_days: float | None
    """Days from the earliest introducing commit's author date to the fix's; None when nothing was found."""


def _one(repo: str, fix: str, base: str, paths: tuple[str, ...]) -> Introduced:
    from git.exc import GitCommandError
    from pydriller import Git

    gr = Git(repo)
    try:
        commit = gr.get_commit(fix)
        wanted = set(paths)
        shas: set[str] = set()
        for modified in gr.diff(base, fix):
            path = modified.new_path or modified.old_path
            if path not in wanted:
                continue
            for found in gr.get_commits_last_modified_lines(commit, modified).values():
                shas |= found
        if not shas:
            return Introduced(fix, (), None)
        dated = sorted((gr.get_commit(sha).author_date, sha) for sha in shas)
        fixed_at: datetime = commit.author_date
        escape = (fixed_at - dated[0][0]).total_seconds() / DAY_SECONDS
        return Introduced(fix, tuple(sha for _, sha in dated), round(escape, 2))
    except (GitCommandError, ValueError):
        return Introduced(fix, (), None)
    finally:
        gr.clear()


def introducing_commits(repo: Path, fixes: list[tuple[str, str, tuple[str, ...]]]) -> dict[str, Introduced]:
    """SZZ for each (fix, base, source paths)."""
    return {fix: _one(str(repo), fix, base, paths) for fix, base, paths in fixes}
