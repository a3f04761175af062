"""File accuracy: the source paths a patch changed against the oracle's, and the paths outside allowed_paths."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from corpus.testfiles import glob_matcher
from runner.scorecard.patch import FileChange


@dataclass(frozen=True)
class FileAccuracy:
    """Which source files the patch changed, against the files the oracle changed."""

    precision: float | None
    """Share of the patch's source files that the oracle changed too (None: the patch changed no source)."""
    recall: float | None
    """Share of the oracle's files that the patch changed too (None: the oracle changed none)."""
    changed: tuple[str, ...]
    """Source paths the patch changed."""
    oracle: tuple[str, ...]
    """Paths the oracle changed."""
    missed: tuple[str, ...]
    """Oracle paths the patch left alone."""
    extra: tuple[str, ...]
    """Source paths the patch changed and the oracle did not."""
    outside_allowed: tuple[str, ...]
    """Paths the patch changed outside the case's allowed_paths (no allowed_paths: the test files it changed)."""


def touched(changes: Sequence[FileChange]) -> list[str]:
    """Every path a change set touches (both sides of a rename), sorted and once each."""
    paths = {c.path for c in changes} | {c.old_path for c in changes if c.old_path}
    return sorted(paths)


def allowed_matcher(allowed_paths: Sequence[str], is_test: Callable[[str], bool]) -> Callable[[str], bool]:
    """Whether a path may be touched: one allowed_paths glob matches it, or (no globs) it is not a test file."""
    if not allowed_paths:
        return lambda path: not is_test(path)
    return glob_matcher(allowed_paths)


def file_accuracy(candidate: Sequence[FileChange], oracle: Sequence[FileChange], is_test: Callable[[str], bool],
                  allowed_paths: Sequence[str] = ()) -> FileAccuracy:
    """Precision and recall of the patch's source paths over the oracle's, and what lies outside allowed_paths."""
    paths = touched(candidate)
    source = [p for p in paths if not is_test(p)]
    wanted = touched(oracle)
    common = set(source) & set(wanted)
    allowed = allowed_matcher(allowed_paths, is_test)
    return FileAccuracy(
        precision=_share(len(common), len(source)),
        recall=_share(len(common), len(wanted)),
        changed=tuple(source),
        oracle=tuple(wanted),
        missed=tuple(p for p in wanted if p not in common),
        extra=tuple(p for p in source if p not in common),
        outside_allowed=tuple(p for p in paths if not allowed(p)),
    )


def _share(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None
