"""Blast radius: how much a patch changed against the oracle, the dependencies it added and the public names it
removed."""

from __future__ import annotations

import ast
import json
import re
import tomllib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from corpus.languages.python.names import normal_name
from runner.scorecard.patch import FileChange

Reader = Callable[[str], bytes | None]
"""A path's content in the base tree (None: no such file)."""

LOCKFILES = frozenset({"package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "poetry.lock",
                       "uv.lock", "Pipfile.lock", "pdm.lock", "Cargo.lock", "go.sum", "composer.lock",
                       "Gemfile.lock"})
TOML_LOCKS = frozenset({"poetry.lock", "uv.lock", "pdm.lock", "Cargo.lock"})
REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True)
class BlastRadius:
    """How much the patch changed outside the tests, as counts and as ratios to the oracle's."""

    files: int
    """Source files the patch changed."""
    hunks: int
    """Hunks in those files."""
    lines: int
    """Lines added plus removed in those files."""
    oracle_files: int
    """Files the oracle changed."""
    oracle_hunks: int
    """Hunks in the oracle."""
    oracle_lines: int
    """Lines added plus removed by the oracle."""
    files_ratio: float | None
    """files / oracle_files (None when the oracle changed nothing)."""
    hunks_ratio: float | None
    """hunks / oracle_hunks."""
    lines_ratio: float | None
    """lines / oracle_lines."""
    new_dependencies: tuple[str, ...]
    """Dependencies the patch added, as `name (file)`: requirements*.txt, pyproject.toml, package.json, Pipfile,
    Cargo.toml, go.mod and the lockfiles whose package lists can be read."""
    lockfiles: tuple[str, ...]
    """Lockfiles the patch changed."""
    api_removed: tuple[str, ...]
    """Public top-level names of Python modules the patch removed, as `path:name` (AST of base against patched)."""
    unparsed: tuple[str, ...] = ()
    """Python source files whose patched content does not parse (their names are not compared)."""
    calls_removed: tuple[str, ...] = ()
    """Calls (`path:audit.log_event`) a Python source file made before the patch and makes nowhere after it, that
    the oracle keeps: a check, a log line or a guard the fix did not need to drop."""


def counts(changes: Iterable[FileChange]) -> tuple[int, int, int]:
    """(files, hunks, lines) of changes."""
    items = list(changes)
    return len(items), sum(len(c.hunks) for c in items), sum(c.lines for c in items)


def _ratio(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def blast_radius(candidate: Sequence[FileChange], oracle: Sequence[FileChange], is_test: Callable[[str], bool],
                 base: Reader) -> BlastRadius:
    """The patch's size against the oracle's (source files only), its new dependencies and removed names."""
    source = [c for c in candidate if not is_test(c.path)]
    files, hunks, lines = counts(source)
    o_files, o_hunks, o_lines = counts(oracle)
    removed, unparsed = api_removed(source, base)
    return BlastRadius(
        files=files, hunks=hunks, lines=lines, oracle_files=o_files, oracle_hunks=o_hunks, oracle_lines=o_lines,
        files_ratio=_ratio(files, o_files), hunks_ratio=_ratio(hunks, o_hunks), lines_ratio=_ratio(lines, o_lines),
        new_dependencies=tuple(new_dependencies(candidate, base)),
        lockfiles=tuple(c.path for c in candidate if PurePosixPath(c.path).name in LOCKFILES),
        api_removed=tuple(removed), unparsed=tuple(unparsed),
        calls_removed=tuple(calls_removed(source, oracle, base)))


# --- dependencies ----------------------------------------------------------------------------------------------


def new_dependencies(changes: Sequence[FileChange], base: Reader) -> list[str]:
    """`name (path)` for every dependency a manifest or lockfile names after the patch and not before it."""
    found = []
    for change in changes:
        name = PurePosixPath(change.path).name
        reader = _dependency_reader(name)
        if reader is None or change.binary:
            continue
        before = base(change.old_path or change.path) if change.status != "added" else None
        after = change.after(before)
        if after is None:
            continue
        old = reader(before) if before is not None else set()
        for dep in sorted(reader(after) - old):
            found.append(f"{dep} ({change.path})")
    return found


def _dependency_reader(name: str) -> Callable[[bytes], set[str]] | None:
    if name.startswith("requirements") and name.endswith((".txt", ".in")):
        return _requirements
    return {"pyproject.toml": _pyproject, "package.json": _package_json, "Pipfile": _pipfile,
            "Cargo.toml": _cargo, "go.mod": _go_mod, "package-lock.json": _package_lock,
            "npm-shrinkwrap.json": _package_lock}.get(name) or (_toml_lock if name in TOML_LOCKS else None)



def _requirements(data: bytes) -> set[str]:
    names = set()
    for line in data.decode("utf-8", "replace").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):
            continue
        match = REQUIREMENT.match(line)
        if match:
            names.add(normal_name(match.group(1)))
    return names


def _toml(data: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(data.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        return {}


def _specs(items: Any) -> set[str]:
    names = set()
    for item in items if isinstance(items, list) else ():
        match = REQUIREMENT.match(item) if isinstance(item, str) else None
        if match:
            names.add(normal_name(match.group(1)))
    return names


def _keys(table: Any) -> set[str]:
    return {normal_name(str(k)) for k in table} if isinstance(table, dict) else set()


def _pyproject(data: bytes) -> set[str]:
    doc = _toml(data)
    project: dict[str, Any] = doc["project"] if isinstance(doc.get("project"), dict) else {}
    names = _specs(project.get("dependencies"))
    for group in (project.get("optional-dependencies") or {}).values():
        names |= _specs(group)
    for group in (doc.get("dependency-groups") or {}).values():
        names |= _specs(group)
    names |= _specs((doc.get("build-system") or {}).get("requires"))
    poetry = (doc.get("tool") or {}).get("poetry") or {}
    names |= _keys(poetry.get("dependencies")) - {"python"}
    for group in (poetry.get("group") or {}).values():
        names |= _keys(group.get("dependencies") if isinstance(group, dict) else None)
    return names


def _package_json(data: bytes) -> set[str]:
    try:
        doc = json.loads(data)
    except ValueError:
        return set()
    if not isinstance(doc, dict):
        return set()
    names: set[str] = set()
    for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
        names |= {str(k) for k in doc.get(key) or {}} if isinstance(doc.get(key), dict) else set()
    return names


def _package_lock(data: bytes) -> set[str]:
    try:
        doc = json.loads(data)
    except ValueError:
        return set()
    packages = doc.get("packages") if isinstance(doc, dict) else None
    if not isinstance(packages, dict):
        return set()
    return {key.rsplit("node_modules/", 1)[-1] for key in packages if key}


def _pipfile(data: bytes) -> set[str]:
    doc = _toml(data)
    return _keys(doc.get("packages")) | _keys(doc.get("dev-packages"))


def _cargo(data: bytes) -> set[str]:
    doc = _toml(data)
    tables = ("dependencies", "dev-dependencies", "build-dependencies")
    return {name for table in tables for name in _keys(doc.get(table))}


def _go_mod(data: bytes) -> set[str]:
    names, block = set(), False
    for line in data.decode("utf-8", "replace").splitlines():
        line = line.split("//", 1)[0].strip()
        if line.startswith("require ("):
            block = True
        elif block and line == ")":
            block = False
        elif block and line:
            names.add(line.split()[0])
        elif line.startswith("require "):
            names.add(line.split()[1])
    return names


def _toml_lock(data: bytes) -> set[str]:
    packages = _toml(data).get("package")
    return {normal_name(str(p["name"])) for p in packages if isinstance(p, dict) and "name" in p} \
        if isinstance(packages, list) else set()


# --- public API ------------------------------------------------------------------------------------------------


def public_names(tree: ast.Module) -> set[str]:
    """A module's public top-level names: functions, classes and assigned names without a leading underscore,
    and every name its literal `__all__` lists."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                names |= _assigned(target)
        elif isinstance(node, ast.AnnAssign):
            names |= _assigned(node.target)
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple)) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            names |= {e.value for e in node.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return {n for n in names if not n.startswith("_")}


def _assigned(target: ast.expr) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {name for element in target.elts for name in _assigned(element)}
    return set()


def parse_python(data: bytes | None) -> ast.Module | None:
    """The module's AST, or None when there is no content or it does not parse."""
    if data is None:
        return None
    try:
        return ast.parse(data)
    except (SyntaxError, ValueError):
        return None


def api_removed(changes: Sequence[FileChange], base: Reader) -> tuple[list[str], list[str]]:
    """(`path:name` per public top-level name a Python file lost, files whose patched content does not parse)."""
    removed: list[str] = []
    unparsed: list[str] = []
    for change in changes:
        old_path = change.old_path or change.path
        if change.status == "added" or not old_path.endswith(".py") or change.binary:
            continue
        before = parse_python(base(old_path))
        if before is None:
            continue
        if change.status == "deleted" or not change.path.endswith(".py"):
            after: set[str] = set()
        else:
            tree = parse_python(change.after(base(old_path)))
            if tree is None:
                unparsed.append(change.path)
                continue
            after = public_names(tree)
        removed += [f"{old_path}:{name}" for name in sorted(public_names(before) - after)]
    return removed, unparsed


def called_names(tree: ast.Module) -> set[str]:
    """The dotted names a module calls (`audit.log_event`, `check`), wherever the calls are."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute)):
            text = ast.unparse(node.func)
            if all(part.isidentifier() for part in text.split(".")):
                names.add(text)
    return names


def _calls_dropped(change: FileChange, base: Reader) -> set[str] | None:
    old_path = change.old_path or change.path
    before = parse_python(base(old_path))
    after = parse_python(change.after(base(old_path)))
    if before is None or after is None:
        return None
    return called_names(before) - called_names(after)


def calls_removed(changes: Sequence[FileChange], oracle: Sequence[FileChange], base: Reader) -> list[str]:
    """`path:name` for each call a modified Python file no longer makes and the oracle's version still makes."""
    oracle_by = {c.path: c for c in oracle}
    found = []
    for change in changes:
        if change.status not in ("modified", "renamed") or change.binary or not change.path.endswith(".py"):
            continue
        dropped = _calls_dropped(change, base)
        if not dropped:
            continue
        theirs = oracle_by.get(change.path)
        allowed = (_calls_dropped(theirs, base) or set()) if theirs is not None else set()
        found += [f"{change.path}:{name}" for name in sorted(dropped - allowed)]
    return found
