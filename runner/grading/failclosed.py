"""Fail-closed grading: put the test configuration back to the fix version before the hidden grader runs.

The grader files themselves are written by `runner.grading.grader.materialize_grader`. This module covers what can
change a test run without touching a test file: `conftest.py`, pytest/tox configuration, jest and vitest
configuration, and modules placed at the workspace root that would stand in for the test runner.

Rules (DESIGN.md, "Trials"):
- every `conftest.py`, `pytest.ini`, `.pytest.ini`, `tox.ini`, `jest.config.*` and `vitest.config.*` in the
  workspace or at the fix commit is set to its fix-commit content, and deleted when the fix has no such file;
- `pyproject.toml` and `setup.cfg` are build files too: they are touched only when the agent changed them and
  either the agent's or the fix's version configures pytest (`[tool.pytest` / `[tool:pytest]`); they are then
  set to the fix version (or back to the base version when the fix has none);
- `pytest.py`, `_pytest.py`, `sitecustomize.py`, `usercustomize.py` and `pytest/`, `_pytest/` created at the
  workspace root are removed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from corpus.gitutil import run_git
from corpus.testfiles import matcher_for_tests
from runner.workspace.inside import exists_inside, read_inside, remove_inside, write_inside

CONFIG_NAMES = frozenset({"conftest.py", "pytest.ini", ".pytest.ini", "tox.ini"})
CONFIG_PREFIXES = ("jest.config.", "vitest.config.")
SHARED_BUILD = {"pyproject.toml": b"[tool.pytest", "setup.cfg": b"[tool:pytest]"}
ROOT_SHADOWS = frozenset({"pytest.py", "_pytest.py", "sitecustomize.py", "usercustomize.py", "pytest", "_pytest"})
SKIP_DIRS = frozenset({".git", "node_modules"})

Cause = Literal["edited", "added", "fix"]


def is_test_config(path: str) -> bool:
    """True for a path whose file name marks test configuration (including the shared build files)."""
    name = PurePosixPath(path).name
    return name in CONFIG_NAMES or name in SHARED_BUILD or name.startswith(CONFIG_PREFIXES)


@dataclass(frozen=True)
class FixConfig:
    """The test configuration files of a case's fix commit, by repository path."""

    files: tuple[tuple[str, bytes], ...]
    """(path, content), sorted by path."""

    def get(self, path: str) -> bytes | None:
        """The fix version of path, or None when the fix has no such file."""
        return dict(self.files).get(path)


def read_fix_config(repo: Path, fix_commit: str) -> FixConfig:
    """Every test configuration file in the fix commit's tree, read once per case."""
    listing = run_git(["ls-tree", "-r", "-z", "--full-tree", fix_commit], repo).stdout
    wanted: list[tuple[str, str]] = []
    for entry in listing.split(b"\0"):
        if not entry:
            continue
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, sha = meta.decode().split()
        path = raw_path.decode("utf-8", "surrogateescape")
        if kind == "blob" and mode != "120000" and is_test_config(path):
            wanted.append((path, sha))
    if not wanted:
        return FixConfig(())
    query = "".join(f"{sha}\n" for _, sha in wanted).encode()
    out = run_git(["cat-file", "--batch"], repo, input=query).stdout
    files, offset = [], 0
    for path, _ in wanted:
        header_end = out.index(b"\n", offset)
        size = int(out[offset:header_end].split()[2])
        files.append((path, out[header_end + 1:header_end + 1 + size]))
        offset = header_end + 1 + size + 1
    return FixConfig(tuple(sorted(files)))


@dataclass(frozen=True)
class RestoreAction:
    """One file put back before grading."""

    path: str
    """Repository path."""
    action: Literal["written", "removed"]
    """Set to the fix (or base) version, or deleted."""
    cause: Cause
    """edited: the agent changed it; added: the agent created it; fix: it differs between base and fix."""


def restore_test_config(
    workspace: Path,
    fix: FixConfig,
    changed: Iterable[str],
    at_setup: Callable[[Iterable[str]], set[str]],
    setup_content: Callable[[str], bytes | None],
    grader_paths: Iterable[str] = (),
) -> tuple[RestoreAction, ...]:
    """Apply the module's rules to the workspace and return what was done.

    changed: paths the candidate patch touches; at_setup(paths): which of paths existed after setup;
    setup_content(path): a file's content after setup; grader_paths are left to the grader's materialization.
    """
    changed = set(changed)
    found = set(_walk_config(workspace))
    candidates = sorted((found | {path for path, _ in fix.files}) - set(grader_paths))
    existed = at_setup(candidates + sorted(ROOT_SHADOWS))
    actions: list[RestoreAction] = []

    def cause_of(path: str) -> Cause:
        if path in existed:
            return "edited" if path in changed else "fix"
        return "added" if path in changed or path in found or exists_inside(workspace, path) else "fix"

    for path in candidates:
        current = read_inside(workspace, path)
        wanted = fix.get(path)
        name = PurePosixPath(path).name
        if name in SHARED_BUILD:
            if path not in changed or not any(v and SHARED_BUILD[name] in v for v in (current, wanted)):
                continue
            if wanted is None:
                wanted = setup_content(path) if path in existed else None
        if wanted is None:
            if exists_inside(workspace, path):
                cause = cause_of(path)
                remove_inside(workspace, path)
                actions.append(RestoreAction(path, "removed", cause))
        elif current != wanted:  # None for a link, a fifo or anything that is not a plain file reached directly
            cause = cause_of(path)
            write_inside(workspace, path, wanted)
            actions.append(RestoreAction(path, "written", cause))
    for name in sorted(ROOT_SHADOWS):
        if name not in existed and exists_inside(workspace, name):
            remove_inside(workspace, name)
            actions.append(RestoreAction(name, "removed", "added"))
    return tuple(actions)


def _walk_config(workspace: Path) -> Iterable[str]:
    for root, dirs, files in os.walk(workspace):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        rel = Path(root).relative_to(workspace)
        for name in files:
            path = (rel / name).as_posix()
            if is_test_config(path):
                yield path


def edited_test_files(changed: Iterable[str], grader_paths: Iterable[str], test_globs: tuple[str, ...]) -> list[str]:
    """The changed paths that are grader files or test files (`corpus.testfiles`, the miner's rules)."""
    hidden = set(grader_paths)
    is_test = matcher_for_tests(test_globs)
    return sorted(p for p in changed if p in hidden or is_test(p))
