"""The patch id: how a fix is recognised again after a cherry-pick or a rebase, renames included."""

from __future__ import annotations

from pathlib import Path

from corpus.gitutil import run_git

PATCH_DIFF_OPTIONS: tuple[str, ...] = (
    "--no-renames", "--binary", "--full-index", "--no-ext-diff", "--no-textconv", "-r", "-p")
"""`git diff-tree` options of the diff a patch id is taken from. Without rename detection a rename is a deletion
and an addition, so the id does not depend on rename limits or similarity; no driver or filter changes the text."""

PATCH_ID_COMMAND: tuple[str, ...] = ("patch-id", "--stable")
"""The git command that turns such diffs into ids (`--stable`: independent of file order)."""


def patch_id(repo: Path, base_commit: str, fix_commit: str) -> str | None:
    """The patch id of the fix's diff against its base; None when git cannot diff them or the diff is empty."""
    diff = run_git(["diff-tree", *PATCH_DIFF_OPTIONS, base_commit, fix_commit], repo, check=False)
    if diff.returncode != 0 or not diff.stdout:
        return None
    proc = run_git(list(PATCH_ID_COMMAND), repo, input=diff.stdout, check=False)
    words = proc.stdout.decode().split()
    return words[0] if proc.returncode == 0 and words else None
