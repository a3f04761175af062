"""The languages the miner and the runner know: one module per language behind one protocol
(`corpus.languages.base.Language`), and the registry of them."""

from __future__ import annotations

from corpus.languages import go, java, js, python, ruby, rust
from corpus.languages.base import Language, TestRef

LANGUAGES: dict[str, Language] = {
    "python": python,
    "go": go,
    "java": java,
    "js": js,
    "ruby": ruby,
    "rust": rust,
}
"""Every language by its NAME. Their setup commands are joined in this order (Python's install first)."""


def language_of(path: str) -> Language | None:
    """The language a test file belongs to, by its name's ending."""
    for language in LANGUAGES.values():
        if path.endswith(language.SUFFIXES):
            return language
    return None


def tests_changed(path: str, content: bytes, section: bytes) -> list[TestRef]:
    """The tests in path that a diff section added or changed, sorted."""
    language = language_of(path)
    return sorted(language.tests(path, content, section)) if language is not None else []


def test_globs() -> tuple[str, ...]:
    """Every language's test-file rules, in the registry's order."""
    return tuple(glob for language in LANGUAGES.values() for glob in language.TEST_GLOBS)


def build_globs() -> tuple[str, ...]:
    """Every language's build and configuration file rules, in the registry's order."""
    return tuple(glob for language in LANGUAGES.values() for glob in language.BUILD_GLOBS)


def dependency_globs() -> tuple[str, ...]:
    """Every language's rules of the files that decide what its setup installs, in the registry's order."""
    return tuple(glob for language in LANGUAGES.values() for glob in language.DEPENDENCY_GLOBS)


def lock_files() -> frozenset[str]:
    """Every language's lock file names."""
    return frozenset(name for language in LANGUAGES.values() for name in language.LOCK_FILES)
