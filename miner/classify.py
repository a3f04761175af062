"""Path classification: every changed path is a test, source, docs, build/config, vendored or generated file."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Literal

from corpus.languages import build_globs, lock_files
from corpus.testfiles import builtin_test_globs, glob_matcher

Category = Literal["test", "source", "docs", "build", "vendored", "generated"]
CATEGORIES: tuple[Category, ...] = ("test", "source", "docs", "build", "vendored", "generated")

VENDORED_GLOBS: tuple[str, ...] = (
    "vendor/", "vendored/", "_vendor/", "third_party/", "third-party/", "thirdparty/", "node_modules/",
    "bower_components/", "external/",
)
GENERATED_GLOBS: tuple[str, ...] = (
    "*.min.js", "*.min.css", "*.map", "*_pb2.py", "*_pb2_grpc.py", "*.pb.go", "*.pb.cc", "*.pb.h",
    "*.generated.*", "*_generated.*", "dist/", "__snapshots__/*.snap.orig", "*.pyc", "*.class",
)
OTHER_LOCKFILES: frozenset[str] = frozenset({"composer.lock", "mix.lock", "flake.lock"})
"""Lock files of ecosystems no language module covers (PHP, Elixir, Nix); every language names its own."""
TOWNCRIER_TYPES: tuple[str, ...] = (
    "feature", "bugfix", "doc", "removal", "misc", "trivial", "deprecation", "breaking", "vendor", "process",
)
"""The fragment types of towncrier's default configuration and of common ones (`news/1234.bugfix`)."""
DOCS_GLOBS: tuple[str, ...] = (
    "docs/", "doc/", "documentation/", "*.md", "*.rst", "*.adoc", "*.txt", "*.markdown",
    "CHANGELOG*", "CHANGES*", "HISTORY*", "NEWS*", "AUTHORS*", "CONTRIBUTORS*", "LICENSE*", "COPYING*",
    "README*", "CONTRIBUTING*", "changelog.d/", "changes/", "newsfragments/", "man/",
    "releasenotes/", ".changes/", ".changeset/",
    *(f"/{folder}/*.{kind}" for folder in ("changelog", "news") for kind in TOWNCRIER_TYPES),
    "!requirements*.txt", "!CMakeLists.txt",
)
"""Documentation, and release notes and changelog fragments: reno's releasenotes/, towncrier's fragment folders
and the fragment names of its `changelog/` and `news/` at the top (a folder of those names elsewhere may be code),
changie's .changes/, changesets' .changeset/."""
CI_GLOBS: tuple[str, ...] = (
    "/.github/", "/.gitlab-ci.yml", "/.gitlab/", "/.circleci/", "/.travis.yml", "/appveyor.yml", "/.appveyor.yml",
    "/azure-pipelines.yml", "/Jenkinsfile", "/.buildkite/", "/.drone.yml", "/.woodpecker.yml", "/.cirrus.yml",
)
"""The configuration of a CI service: build files that no grader runs, so a fix's changes to them are left out of
its oracle (an agent that fixes the bug alone matches the oracle's files)."""
OTHER_BUILD_GLOBS: tuple[str, ...] = (
    "Makefile", "makefile", "GNUmakefile", "*.mk", "CMakeLists.txt", "*.cmake", "meson.build",
    "Dockerfile", "*.dockerfile", "docker-compose*.yml", ".dockerignore", ".gitignore", ".gitattributes",
    ".gitmodules", ".editorconfig", ".github/", ".gitlab-ci.yml", ".circleci/", ".travis.yml", "appveyor.yml",
    "azure-pipelines.yml", "Jenkinsfile", ".pre-commit-config.yaml", *CI_GLOBS,
    "/*.toml", "/*.cfg", "/*.ini", "/*.yml", "/*.yaml", "/.*.json",
)
"""Build, container and CI files of no one language; every language names its own."""
BINARY_SUFFIXES: frozenset[str] = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tiff", ".pdf", ".woff", ".woff2", ".ttf",
    ".otf", ".eot", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".tar", ".jar", ".war", ".whl", ".egg",
    ".so", ".dylib", ".dll", ".exe", ".bin", ".o", ".a", ".pyc", ".class", ".mp3", ".mp4", ".wav", ".ogg",
    ".mov", ".avi", ".psd", ".sqlite", ".db", ".der", ".p12", ".keystore", ".lockb",
})
FORMATTERS = r"(black|prettier|gofmt|goimports|rustfmt|isort|autopep8|yapf|clang-format|ruff format|standardrb)"
LINTERS = r"(lint|linter|linting|flake8|pylint|eslint|tslint|rubocop|clippy|golint|ruff|pycodestyle)"
FORMATTING_MESSAGE = re.compile(
    r"\bre-?format(s|ted|ting)?\b"
    r"|\bformat(ted|ting)? (all |the )?(code|files|sources|codebase)\b"
    rf"|\b(run|ran|apply|applied|with)\s+{FORMATTERS}\b"
    rf"|\b{FORMATTERS}[- ](format(ted|ting)?|fixes|changes|run)\b"
    rf"|\b(fix(es|ed)?|address|silence)\s+{LINTERS}(\s+(errors|warnings|issues|complaints))?\s*$"
    rf"|\b{LINTERS}\s+(fixes|errors|warnings|cleanup)\b"
    r"|^style(\([^)]*\))?!?:",
    re.IGNORECASE,
)


class PathClassifier:
    """Classifies repository paths, caching every answer (paths repeat across history)."""

    def __init__(self, test_globs: Iterable[str] = ()) -> None:
        globs = tuple(test_globs)
        self.test_globs = globs or builtin_test_globs()
        self.lockfiles = lock_files() | OTHER_LOCKFILES
        self._test = glob_matcher(self.test_globs)
        self._vendored = glob_matcher(VENDORED_GLOBS)
        self._generated = glob_matcher(GENERATED_GLOBS)
        self._docs = glob_matcher(DOCS_GLOBS)
        self._build = glob_matcher(all_build_globs())
        self._ci = glob_matcher(CI_GLOBS)
        self._cache: dict[str, tuple[Category, bool, bool]] = {}

    def category(self, path: str) -> Category:
        """The category of one repository path (posix, relative)."""
        return self.facts(path)[0]

    def facts(self, path: str) -> tuple[Category, bool, bool]:
        """(category, is a lockfile, has a binary name) of a path, remembered: paths repeat across history."""
        found = self._cache.get(path)
        if found is None:
            found = self._cache[path] = (self._classify(path), self.is_lockfile(path), is_binary_name(path))
        return found

    def _classify(self, path: str) -> Category:
        if self._vendored(path):
            return "vendored"
        if self._generated(path):
            return "generated"
        if self._test(path):
            return "test"
        if self.is_lockfile(path):
            return "build"
        if self._docs(path):
            return "docs"
        if self._build(path):
            return "build"
        return "source"

    def is_ci(self, path: str) -> bool:
        """A CI service's configuration (a build file, left out of an oracle)."""
        return self.category(path) == "build" and self._ci(path)

    def is_lockfile(self, path: str) -> bool:
        """A dependency lockfile, whatever the ecosystem."""
        return basename(path) in self.lockfiles


def all_build_globs() -> tuple[str, ...]:
    """The rules of build and configuration files: every language's, then those of no one language."""
    return build_globs() + OTHER_BUILD_GLOBS


def basename(path: str) -> str:
    """The last component of a posix path."""
    return path.rsplit("/", 1)[-1]


def is_binary_name(path: str) -> bool:
    """A file whose name says it is binary (images, archives, compiled objects, fonts)."""
    name = basename(path).lower()
    dot = name.rfind(".")
    return dot > 0 and name[dot:] in BINARY_SUFFIXES


# Every branch of FORMATTING_MESSAGE needs one of these in the lower-cased subject; most subjects have none,
# and this one search is much cheaper than the full pattern (asked of every commit in history).
FORMATTING_WORDS = re.compile(r"format|black|prettier|fmt|goimports|isort|autopep8|yapf|standardrb|lint|flake8|"
                              r"rubocop|clippy|ruff|pycodestyle|style")


def is_formatting_message(message: str) -> bool:
    """A commit message that announces a formatting or lint-only change."""
    subject = message.split("\n", 1)[0]
    if subject.isascii() and FORMATTING_WORDS.search(subject.lower()) is None:
        return False
    return FORMATTING_MESSAGE.search(subject) is not None
