"""Fail-closed grading: before the hidden grader runs in the fresh grading workspace, undo what the candidate
patch did to anything but source.

The grading workspace holds the base (after setup) and the candidate patch, nothing else, so only the patch's
paths can differ from what the grader expects. The grader files themselves are written by
`runner.grading.grader.materialize_grader`. Rules (DESIGN.md, "Grading from the patch alone"):
- every path the patch touches that the test rules classify as a test (`corpus.testfiles`) or that lies in
  package metadata (`*.dist-info/`, `*.egg-info/`) is set back to its content before the patch, or removed
  when it had none;
- every test configuration file (`conftest.py`, `pytest.ini`, `.pytest.ini`, `pytest.toml`, `.pytest.toml`,
  `tox.ini`, `jest.config.*`, `vitest.config.*`) of the base, the fix or the patch is set to its fix-commit
  content, and removed when the fix has none;
- `pyproject.toml` and `setup.cfg` are build files too: they are touched only when the patch changed them and
  either its or the fix's version configures pytest; they are then set to the fix version (or back to the
  version before the patch when the fix has none);
- a module or package the patch creates at the workspace root is removed when its name is importable without
  the workspace (it shadows an installed distribution or the standard library), and so are root
  `sitecustomize`/`usercustomize` modules and `pytest`/`_pytest` stand-ins.
"""

from __future__ import annotations

import configparser
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Literal

from corpus.gitutil import run_git
from corpus.testfiles import matcher_for_tests
from runner.workspace.inside import exists_inside, read_inside, remove_inside, write_inside

CONFIG_NAMES = frozenset({"conftest.py", "pytest.ini", ".pytest.ini", "pytest.toml", ".pytest.toml", "tox.ini"})
CONFIG_PREFIXES = ("jest.config.", "vitest.config.")
SHARED_BUILD = frozenset({"pyproject.toml", "setup.cfg"})
ALWAYS_SHADOWS = frozenset({"pytest", "_pytest", "sitecustomize", "usercustomize"})
METADATA_SUFFIXES = (".dist-info", ".egg-info")
MODULE_SUFFIXES = (".py", ".pyc", ".pyo", ".pyd", ".so", ".pth")

Cause = Literal["edited", "added", "fix"]
Kind = Literal["test", "config", "metadata", "shadow", "bytecode"]


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
    """One path put back before grading."""

    path: str
    """Repository path."""
    action: Literal["written", "removed"]
    """Set to the fix (or earlier) version, or deleted."""
    cause: Cause
    """edited: the patch changed it; added: the patch created it; fix: it differs between base and fix."""
    kind: Kind = "config"
    """test, config, metadata (package metadata), bytecode, or shadow (a root module standing in for an installed
    one)."""


def is_metadata(path: str) -> bool:
    """True for a path inside package metadata (`*.dist-info/`, `*.egg-info/`, any case: importlib.metadata
    matches them so), which no patch may change."""
    return any(part.lower().endswith(METADATA_SUFFIXES) for part in PurePosixPath(path).parts)


def configures_pytest(name: str, content: bytes | None) -> bool:
    """Whether a pyproject.toml or setup.cfg configures pytest; content that cannot be read as one counts."""
    if not content:
        return False
    try:
        if name == "pyproject.toml":
            return "pytest" in tomllib.loads(content.decode("utf-8")).get("tool", {})
        parser = configparser.RawConfigParser(strict=False, interpolation=None)
        parser.read_string(content.decode("utf-8"))
        return parser.has_section("tool:pytest") or parser.has_section("pytest")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error, AttributeError):
        return True


def is_bytecode(path: str) -> bool:
    """True for a bytecode cache path, which no patch may bring (a forged cache stands in for its source)."""
    return "__pycache__" in PurePosixPath(path).parts or path.endswith((".pyc", ".pyo"))


def root_module(path: str) -> str | None:
    """The top-level module name a path at the workspace root makes importable, if any."""
    parts = PurePosixPath(path).parts
    if not parts:
        return None
    if len(parts) > 1:
        name = parts[0]
    elif parts[0].endswith(MODULE_SUFFIXES):
        name = parts[0].split(".", 1)[0]
    else:
        return None
    return name if name.isidentifier() else None


def needs_before(path: str, is_test: Callable[[str], bool]) -> bool:
    """Whether `restore_for_grading` may put path back to its content before the patch."""
    return (is_test(path) or is_test_config(path) or is_metadata(path) or is_bytecode(path)
            or PurePosixPath(path).name in SHARED_BUILD)


def restore_for_grading(
    workspace: Path,
    patch_paths: Iterable[str],
    before: Callable[[str], bytes | None],
    fix: FixConfig,
    base_config: Iterable[str],
    grader_paths: Iterable[str],
    test_globs: tuple[str, ...],
    root_before: frozenset[str],
    importable: Callable[[list[str]], set[str]],
) -> tuple[RestoreAction, ...]:
    """Apply the module's rules to a grading workspace the patch was just applied to; return what was done.

    before(path): the content before the patch (None when there was none), asked only for paths where
    `needs_before` holds; base_config: the base tree's test configuration paths; root_before: the names at the
    workspace root before the patch; importable(names): which top-level module names the grading interpreter
    finds without the workspace. Grader paths are left to the grader's materialization.
    """
    hidden = set(grader_paths)
    touched = [p for p in dict.fromkeys(patch_paths) if p not in hidden]
    is_test = matcher_for_tests(test_globs)
    actions: list[RestoreAction] = []

    def put(path: str, wanted: bytes | None, cause: Cause, kind: Kind) -> None:
        if wanted is None:
            if exists_inside(workspace, path):
                remove_inside(workspace, path)
                actions.append(RestoreAction(path, "removed", cause, kind))
        elif read_inside(workspace, path) != wanted:  # None for a link, a fifo or anything but a plain file
            write_inside(workspace, path, wanted)
            actions.append(RestoreAction(path, "written", cause, kind))

    def patched_cause(path: str) -> Cause:
        return "edited" if before(path) is not None else "added"

    config = set(base_config) | {p for p, _ in fix.files}
    for path in touched:
        name = PurePosixPath(path).name
        if name in SHARED_BUILD:
            versions = (read_inside(workspace, path), fix.get(path))
            if any(configures_pytest(name, v) for v in versions):
                wanted = fix.get(path)
                put(path, wanted if wanted is not None else before(path), patched_cause(path), "config")
        elif is_test_config(path):
            config.add(path)
        elif is_metadata(path):
            put(path, before(path), patched_cause(path), "metadata")
        elif is_bytecode(path):
            put(path, before(path), patched_cause(path), "bytecode")
        elif is_test(path):
            put(path, before(path), patched_cause(path), "test")
    patched = set(touched)
    for path in sorted(config - hidden):
        if PurePosixPath(path).name in SHARED_BUILD:
            continue
        put(path, fix.get(path), patched_cause(path) if path in patched else "fix", "config")
    created: dict[str, set[str]] = {}  # module name -> the root entries the patch created for it
    for path in touched:
        module, top = root_module(path), PurePosixPath(path).parts[0]
        if module is not None and top not in root_before:
            created.setdefault(module, set()).add(top)
    if created:
        for module in sorted(set(created) & (ALWAYS_SHADOWS | importable(sorted(created)))):
            for top in sorted(created[module]):
                if remove_inside(workspace, top):
                    actions.append(RestoreAction(top, "removed", "added", "shadow"))
    return tuple(actions)


def edited_test_files(changed: Iterable[str], grader_paths: Iterable[str], test_globs: tuple[str, ...]) -> list[str]:
    """The changed paths that are grader files or test files (`corpus.testfiles`, the miner's rules)."""
    hidden = set(grader_paths)
    is_test = matcher_for_tests(test_globs)
    return sorted(p for p in changed if p in hidden or is_test(p))
