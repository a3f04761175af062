"""JavaScript and TypeScript: `it(`/`test(` tests; the runner package.json names, or `npm test`."""

from __future__ import annotations

import re

from miner.grader_command import Command, RepoHints, quote, ref_id
from miner.testids import TestRef, brace_tests

NAME = "js"
SUFFIXES: tuple[str, ...] = (".js", ".jsx", ".ts", ".tsx", ".mjs", ".cjs")
BUILD_FILES: tuple[str, ...] = ("package.json",)
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
