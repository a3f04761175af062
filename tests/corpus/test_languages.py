"""Every registered language provides every facet of the `Language` protocol, in the shape its users read."""

from __future__ import annotations

import inspect
import re

import pytest

from corpus.languages import LANGUAGES
from corpus.languages.base import Language, SetupFiles
from corpus.testfiles import _simple_regex

STRINGS = ("SUFFIXES", "TEST_GLOBS", "BUILD_GLOBS", "LOCK_FILES", "DEPENDENCY_GLOBS", "GRADER_FILES")
FUNCTIONS = {"tests": 3, "owns": 2, "command": 3, "interpreter": 3, "setup": 2}
"""Each function facet and the number of arguments it takes."""


def test_the_protocol_lists_the_facets_this_table_checks() -> None:
    members = {name for name in vars(Language) if not name.startswith("_")} | set(Language.__annotations__)
    assert members == {"NAME", *STRINGS, "SETUP_FILES", *FUNCTIONS}


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_every_language_provides_every_facet(name: str) -> None:
    language = LANGUAGES[name]
    assert isinstance(language, Language)
    assert name == language.NAME
    for facet in STRINGS:
        value = getattr(language, facet)
        assert isinstance(value, tuple) and all(isinstance(item, str) and item for item in value), facet
    assert language.SUFFIXES and language.TEST_GLOBS and language.BUILD_GLOBS
    assert all(suffix.startswith(".") for suffix in language.SUFFIXES)
    for facet, arity in FUNCTIONS.items():
        function = getattr(language, facet)
        assert callable(function) and len(inspect.signature(function).parameters) == arity, facet
    files = language.SETUP_FILES
    assert isinstance(files, SetupFiles)
    assert all(isinstance(item, str) and item and "/" not in item for item in (*files.read, *files.present))
    # matched inside raw trees too (miner.environment.read): no group, and no match across a NUL
    if files.read_matching:
        assert re.compile(files.read_matching).groups == 0
        assert not re.compile(files.read_matching.encode()).search(b"requirements-\0test\0dev.txt")
    for directory, pattern in files.directories:
        assert directory and not directory.endswith("/") and re.compile(pattern)


@pytest.mark.parametrize("name", sorted(LANGUAGES))
def test_every_language_s_globs_are_of_the_simple_kind(name: str) -> None:
    """The built-in rules are translated without pathspec, whose import costs a scan a tenth of its start-up."""
    language = LANGUAGES[name]
    assert [glob for glob in (*language.TEST_GLOBS, *language.BUILD_GLOBS) if _simple_regex(glob) is None] == []


def test_no_test_file_ending_belongs_to_two_languages() -> None:
    endings = [suffix for language in LANGUAGES.values() for suffix in language.SUFFIXES]
    assert len(endings) == len(set(endings))
    assert not [(a, b) for a in endings for b in endings if a != b and a.endswith(b)]
