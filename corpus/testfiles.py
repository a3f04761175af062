"""What a test file is: the built-in test-file rules, and gitignore-style globs as fast match functions.

The miner classifies a fix's paths with these rules; the runner uses the same ones to decide which of an agent's
edits touch tests. A corpus's `test_globs` replace the built-in list for both.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from corpus import languages

SHARED_TEST_GLOBS: tuple[str, ...] = ("test/", "tests/", "testing/", "spec/", "specs/")
"""Directories that hold tests in most ecosystems; each language adds its own rules (`Language.TEST_GLOBS`).
Gitignore-style rules (pathspec): a directory pattern such as `tests/` matches at any depth."""


def builtin_test_globs() -> tuple[str, ...]:
    """The built-in test-file rules: the shared directories, then every registered language's."""
    return SHARED_TEST_GLOBS + languages.test_globs()


NAMED_GROUP = re.compile(r"\(\?P<\w+>")
ANY_DIRECTORY = "^(?:.+/)?"


def _simple_regex(line: str) -> tuple[str, bool] | None:
    """(regex, include) for a gitignore line of the kind the built-in lists use, with pathspec's meaning: `*`
    and `?` within a path segment, a leading or middle `/` anchors the pattern at the top, a trailing `/`
    matches directories only, `!` negates. None for anything else (`**`, brackets, escapes, spaces, comments),
    which pathspec translates; checked against pathspec on generated paths. The built-in lists need no
    pathspec, whose import is a tenth of a scan's start-up."""
    include = not line.startswith("!")
    body = line if include else line[1:]
    directory = body.endswith("/")
    body = body.removesuffix("/")
    if not body or body[0] in "#!" or "**" in body or "//" in body or any(c in body for c in "[]\\ \t"):
        return None
    anchored = "/" in body
    body = body.removeprefix("/")
    if not body or body.endswith("/"):
        return None
    text = re.escape(body).replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
    return ("^" if anchored else ANY_DIRECTORY) + text + ("/" if directory else "(?:/|$)"), include


def glob_matcher(lines: Iterable[str]) -> Callable[[str], bool]:
    """A match function for gitignore-style lines. Each line becomes a regular expression; with every negation
    after every inclusion (the built-in lists, most corpus.yaml globs) a path matches when an inclusion does
    and no negation does, so each side is joined into one expression: one or two regex calls a path instead
    of one a line. Any other order keeps pathspec's own line-by-line matching."""
    lines = list(lines)
    patterns: list[tuple[str, bool]] = []
    for line in lines:
        simple = _simple_regex(line)
        if simple is None:
            simple = _pathspec_regex(line)
            if simple is None:
                continue
        patterns.append(simple)
    flags = [include for _, include in patterns]
    if False in flags and True in flags[flags.index(False):]:
        import pathspec

        return pathspec.GitIgnoreSpec.from_lines(lines).match_file

    def joined(regexes: list[str]) -> re.Pattern[str] | None:
        # Every expression starts at the top (^), most with "any directories" ((?:.+/)?): those share one
        # prefix, which halves the time to compile and to match.
        if not regexes:
            return None
        if not all(regex.startswith("^") for regex in regexes):
            return re.compile(NAMED_GROUP.sub("(?:", _alternatives(regexes)))
        anywhere = [regex[len(ANY_DIRECTORY):] for regex in regexes if regex.startswith(ANY_DIRECTORY)]
        top = [regex[1:] for regex in regexes if not regex.startswith(ANY_DIRECTORY)]
        sides = [f"(?:.+/)?{_alternatives(anywhere)}"] if anywhere else []
        sides += [_alternatives(top)] if top else []
        return re.compile(NAMED_GROUP.sub("(?:", "^" + _alternatives(sides)))

    included = joined([regex for regex, include in patterns if include])
    excluded = joined([regex for regex, include in patterns if not include])
    if included is None:
        return lambda path: False
    if excluded is None:
        return lambda path: included.match(path) is not None
    return lambda path: included.match(path) is not None and excluded.match(path) is None


def _alternatives(regexes: list[str]) -> str:
    return "(?:" + "|".join(f"(?:{regex})" for regex in regexes) + ")"


def _pathspec_regex(line: str) -> tuple[str, bool] | None:
    """pathspec's own translation of one gitignore line (None for a comment or a blank line)."""
    import pathspec

    pattern = pathspec.GitIgnoreSpec.from_lines([line]).patterns[0]
    regex = getattr(pattern, "regex", None)
    if pattern.include is None or regex is None:
        return None
    return regex.pattern, pattern.include


def matcher_for_tests(test_globs: Iterable[str] = ()) -> Callable[[str], bool]:
    """Whether a repository path (posix, relative) is a test file: by the corpus's globs, else the built-ins."""
    return _test_matcher(tuple(test_globs) or builtin_test_globs())


@lru_cache(maxsize=16)
def _test_matcher(globs: tuple[str, ...]) -> Callable[[str], bool]:
    """One compiled matcher per set of globs (every trial asks for the corpus's several times)."""
    return glob_matcher(globs)
