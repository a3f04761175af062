"""JavaScript and TypeScript: `it(`/`test(` tests; the runner package.json names, or `npm test`; the install its
lockfile names."""

from __future__ import annotations

import re

from corpus.languages.base import (
    BaseFiles,
    Command,
    RepoHints,
    SetupFiles,
    TestRef,
    no_interpreter,
    owns_nothing,
    quote,
    ref_id,
)
from corpus.languages.testids import brace_tests

NAME = "js"
SUFFIXES: tuple[str, ...] = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")
TEST_GLOBS: tuple[str, ...] = (
    "__tests__/", "__mocks__/",
    "*.test.js", "*.test.jsx", "*.test.ts", "*.test.tsx", "*.test.mjs", "*.test.cjs",
    "*.spec.js", "*.spec.jsx", "*.spec.ts", "*.spec.tsx", "*.spec.mjs", "*.spec.cjs",
)
BUILD_GLOBS: tuple[str, ...] = (
    "package.json", "tsconfig*.json", "jsconfig*.json", ".babelrc*", "babel.config.*", ".eslintrc*", "eslint.config.*",
    ".prettierrc*", "jest.config.*", "vitest.config.*", "vite.config.*", "webpack.config.*", "rollup.config.*",
    ".npmrc", ".nvmrc",
)
INSTALLS = (
    ("pnpm-lock.yaml", "pnpm install --frozen-lockfile"),
    ("yarn.lock", "yarn install --frozen-lockfile"),
    ("bun.lock", "bun install --frozen-lockfile"),
    ("bun.lockb", "bun install --frozen-lockfile"),
    ("package-lock.json", "npm ci"),
    ("npm-shrinkwrap.json", "npm ci"),
)
"""Lockfile -> the install that keeps to it, first match wins."""
LOCK_FILES: tuple[str, ...] = tuple(lockfile for lockfile, _ in INSTALLS)
DEPENDENCY_GLOBS: tuple[str, ...] = ("package.json", *LOCK_FILES)
GRADER_FILES: tuple[str, ...] = ("package.json",)
SETUP_FILES = SetupFiles(present=("package.json", *LOCK_FILES))
owns = owns_nothing
interpreter = no_interpreter
JS_TEST = re.compile(r"""\b(?:it|test)(?:\.only|\.skip|\.concurrent|\.each\s*\(.*?\))?\s*\(\s*(['"`])(.+?)\1""")


def _starts(text: list[str]) -> list[tuple[int, str]]:
    return [(index, match.group(2)) for index, line in enumerate(text) if (match := JS_TEST.search(line))]


def tests(path: str, content: bytes, section: bytes) -> set[TestRef]:
    """The innermost `it`/`test` blocks holding a changed line, by their descriptions."""
    return brace_tests(path, content, section, _starts)


def command(files: list[str], refs: list[TestRef], hints: RepoHints) -> Command:
    """The runner the root package.json names, filtered to the tests changed (jest when there is no
    package.json); else the project's own test script, whole, or nothing when it has none."""
    package = hints.file_content("package.json") or b""
    names = sorted({ref.name for ref in refs})
    pattern = "|".join(re.escape(name) for name in names)
    quoted = " ".join(map(quote, sorted(files)))
    if b"vitest" in package:
        line = f"npx vitest run {quoted}" + (f" -t {quote(pattern)}" if names else "")
    elif b"mocha" in package and b"jest" not in package:
        line = f"npx mocha {quoted}" + (f" --grep {quote(pattern)}" if names else "")
    elif b"jest" in package or not package:
        line = f"npx jest {quoted}" + (f" -t {quote(pattern)}" if names else "")
    else:
        # A runner none of these (ava, tap, node --test, an old expresso or a Makefile): the project's own
        # test script, whole, rather than a guess at its runner.
        line = "npm test" if _has_test_script(package) else ""
    return Command(line, tuple(ref_id(ref) for ref in refs))


def _has_test_script(package: bytes) -> bool:
    import json  # only for the rare package.json that names no known runner

    try:
        document = json.loads(package)
    except ValueError:
        return False
    scripts = document.get("scripts") if isinstance(document, dict) else None
    return isinstance(scripts, dict) and isinstance(scripts.get("test"), str) and bool(scripts["test"].strip())


def setup(files: BaseFiles, python: str | None) -> tuple[str | None, tuple[str, ...]]:
    """The package manager its lockfile names; `npm install` without one."""
    if not files.has("package.json"):
        return None, ("command: none (no package.json)",)
    for lockfile, command in INSTALLS:
        if files.has(lockfile):
            return command, (f"command: {command.split()[0]}, from {lockfile}",)
    return "npm install", ("command: npm install (package.json without a lockfile)",)
