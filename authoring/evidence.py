"""What a prompt must not reveal about a case, gathered once per case from its commits, grader and oracle."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from corpus import Case, CaseFiles, Grader

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TEST_NAME = re.compile(r"^(?:test_\w+|test[A-Z0-9]\w*|Test[A-Z0-9_]\w*|\w+_test|\w+Tests?)$")
TEST_DESCRIPTION = re.compile(r"\b(?:it|test|describe|context)\s*\(\s*(['\"`])(.{8,}?)\1")
MIN_COPIED = 16
"""A diff line shorter than this (whitespace collapsed) is too common to call a copy."""
GENERIC_BASENAMES = frozenset({"__init__.py", "conftest.py", "index.js", "index.ts", "mod.rs", "BUILD"})


@dataclass(frozen=True)
class Evidence:
    """Everything a prompt could leak about one case, each entry mapped to why it matters."""

    commits: Mapping[str, str]
    """Full sha of every commit the case knows of -> what it is ("the fix commit")."""
    test_names: Mapping[str, str]
    """Identifier-shaped test names -> where they come from."""
    test_texts: Mapping[str, str]
    """Test ids, paths and descriptions matched as plain text -> where they come from."""
    grader_paths: Mapping[str, str]
    """Hidden grader paths and distinctive basenames -> what they are."""
    oracle_identifiers: Mapping[str, str]
    """Identifiers that appear only in the oracle's added lines -> the file that adds them."""
    diff_lines: Mapping[str, str]
    """Whitespace-collapsed lines of the oracle diff and the grader files -> where each comes from."""


def evidence_for(case: Case, files: CaseFiles) -> Evidence:
    """The evidence for case; cached, since the prompt changes on every keystroke and the case does not."""
    introducing = case.mined.introducing_commits if case.mined else ()
    return _evidence(case.base_commit, case.fix_commit, introducing, case.grader, files)


@lru_cache(maxsize=64)
def _evidence(base: str, fix: str, introducing: tuple[str, ...], grader: Grader, files: CaseFiles) -> Evidence:
    commits = {base: "the base commit", fix: "the fix commit"}
    for sha in introducing:
        commits.setdefault(sha, "a bug-introducing commit")
    added, removed = _oracle_lines(files.oracle_patch)
    test_names, test_texts = _test_names(grader, files)
    return Evidence(
        commits=commits,
        test_names=test_names,
        test_texts=test_texts,
        grader_paths=_grader_paths(grader, files),
        oracle_identifiers=_oracle_only_identifiers(added, removed),
        diff_lines=_diff_lines(added, removed, files),
    )


# Each patch line is (file path, line type, text); line type is "+", "-" or " ".
PatchLine = tuple[str, str, str]


def _oracle_lines(patch: bytes) -> tuple[list[PatchLine], list[PatchLine]]:
    """Added lines, and removed plus context lines, of the oracle patch (binary files contribute none)."""
    text = patch.decode("utf-8", "replace")
    try:
        lines = list(_unidiff_lines(text))
    except UnidiffParseError:
        lines = []
    if not lines:  # unidiff refused it, or found no hunks in something that still has +/- lines
        lines = list(_plain_diff_lines(text))
    added = [line for line in lines if line[1] == "+"]
    others = [line for line in lines if line[1] != "+"]
    return added, others


def _unidiff_lines(text: str) -> Iterator[PatchLine]:
    for patched in PatchSet(text):
        if patched.is_binary_file:
            continue
        for hunk in patched:
            for line in hunk:
                if line.line_type in ("+", "-", " "):
                    yield patched.path, line.line_type, line.value.rstrip("\n")


def _plain_diff_lines(text: str) -> Iterator[PatchLine]:
    """A forgiving reader for patches unidiff refuses: +/- lines outside the file headers."""
    path = "?"
    for line in text.splitlines():
        if line.startswith("+++ "):
            path = line[4:].removeprefix("b/")
        elif line.startswith(("--- ", "diff --git")):
            continue
        elif line[:1] in ("+", "-", " "):
            yield path, line[0], line[1:]


def is_code_like(name: str) -> bool:
    """A name no one writes in prose: snake_case, camelCase or CamelCase with two humps, not a dunder."""
    if len(name) < 4 or (name.startswith("__") and name.endswith("__")):
        return False
    core = name.strip("_")
    return "_" in core or re.search(r"[a-z][A-Z]", name) is not None


def _oracle_only_identifiers(added: list[PatchLine], others: list[PatchLine]) -> dict[str, str]:
    seen = {name for _, _, text in others for name in IDENTIFIER.findall(text)}
    found: dict[str, str] = {}
    for path, _, text in added:
        for name in IDENTIFIER.findall(text):
            if name not in seen and is_code_like(name):
                found.setdefault(name, path)
    return found


def _diff_lines(added: list[PatchLine], others: list[PatchLine], files: CaseFiles) -> dict[str, str]:
    found: dict[str, str] = {}
    for path, kind, text in [*added, *(line for line in others if line[1] == "-")]:
        normal = normalize(text)
        if len(normal) >= MIN_COPIED:
            found.setdefault(normal, f"the oracle diff ({path}, {'added' if kind == '+' else 'removed'} line)")
    for path, content in files.grader_files:
        for text in content.decode("utf-8", "replace").splitlines():
            normal = normalize(text)
            if len(normal) >= MIN_COPIED:
                found.setdefault(normal, f"hidden grader file {path}")
    return found


def normalize(text: str) -> str:
    """Collapse whitespace so indentation and spacing do not hide a copy."""
    return " ".join(text.split())


def _test_names(grader: Grader, files: CaseFiles) -> tuple[dict[str, str], dict[str, str]]:
    names: dict[str, str] = {}
    texts: dict[str, str] = {}
    for test_id in grader.fail_to_pass + grader.pass_to_pass:
        what = "fail-to-pass" if test_id in grader.fail_to_pass else "pass-to-pass"
        texts.setdefault(test_id, f"a {what} test id of the hidden grader")
        parts = IDENTIFIER.findall(test_id.split("[", 1)[0])
        for part in parts[-1:] + [p for p in parts if TEST_NAME.match(p)]:
            if len(part) >= 4:
                names.setdefault(part, f"a {what} test of the hidden grader")
    for path, content in files.grader_files:
        text = content.decode("utf-8", "replace")
        for name in IDENTIFIER.findall(text):
            if TEST_NAME.match(name):
                names.setdefault(name, f"a test in hidden grader file {path}")
        for match in TEST_DESCRIPTION.finditer(text):
            texts.setdefault(match.group(2), f"a test description in hidden grader file {path}")
    return names, texts


def _grader_paths(grader: Grader, files: CaseFiles) -> dict[str, str]:
    found: dict[str, str] = {}
    for path in [path for path, _ in files.grader_files] + list(grader.deleted):
        found.setdefault(path, "a hidden grader file")
        basename = PurePosixPath(path).name
        if basename not in GENERIC_BASENAMES and basename != path:
            found.setdefault(basename, f"the name of hidden grader file {path}")
    return found
