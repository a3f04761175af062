"""Path classification: every changed path is a test, source, docs, build/config, vendored or generated file."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Literal

Category = Literal["test", "source", "docs", "build", "vendored", "generated"]
CATEGORIES: tuple[Category, ...] = ("test", "source", "docs", "build", "vendored", "generated")

# Gitignore-style rules (pathspec). A directory pattern such as `tests/` matches at any depth.
BUILTIN_TEST_GLOBS: tuple[str, ...] = (
    # directories that hold tests in most ecosystems
    "test/", "tests/", "spec/", "specs/", "__tests__/", "__mocks__/", "testdata/", "src/test/",
    # Python
    "test_*.py", "*_test.py", "conftest.py", "tests.py",
    # JavaScript / TypeScript
    "*.test.js", "*.test.jsx", "*.test.ts", "*.test.tsx", "*.test.mjs", "*.test.cjs",
    "*.spec.js", "*.spec.jsx", "*.spec.ts", "*.spec.tsx", "*.spec.mjs", "*.spec.cjs",
    # Go
    "*_test.go",
    # Java / Kotlin
    "*Test.java", "*Tests.java", "*TestCase.java", "*IT.java", "*Test.kt", "*Tests.kt",
    # Rust (unit-test modules kept in their own file; integration tests live in tests/)
    "tests.rs", "*_test.rs", "*_tests.rs",
    # Ruby
    "*_spec.rb", "*_test.rb", "test_*.rb",
)

VENDORED_GLOBS: tuple[str, ...] = (
    "vendor/", "vendored/", "_vendor/", "third_party/", "third-party/", "thirdparty/", "node_modules/",
    "bower_components/", "external/",
)
GENERATED_GLOBS: tuple[str, ...] = (
    "*.min.js", "*.min.css", "*.map", "*_pb2.py", "*_pb2_grpc.py", "*.pb.go", "*.pb.cc", "*.pb.h",
    "*.generated.*", "*_generated.*", "dist/", "__snapshots__/*.snap.orig", "*.pyc", "*.class",
)
LOCKFILES: frozenset[str] = frozenset({
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lockb", "Cargo.lock",
    "Gemfile.lock", "poetry.lock", "Pipfile.lock", "uv.lock", "pdm.lock", "composer.lock", "go.sum",
    "gradle.lockfile", "mix.lock", "flake.lock",
})
DOCS_GLOBS: tuple[str, ...] = (
    "docs/", "doc/", "documentation/", "*.md", "*.rst", "*.adoc", "*.txt", "*.markdown",
    "CHANGELOG*", "CHANGES*", "HISTORY*", "NEWS*", "AUTHORS*", "CONTRIBUTORS*", "LICENSE*", "COPYING*",
    "README*", "CONTRIBUTING*", "changelog.d/", "changes/", "newsfragments/", "man/",
    "!requirements*.txt", "!CMakeLists.txt",
)
BUILD_GLOBS: tuple[str, ...] = (
    "setup.py", "setup.cfg", "pyproject.toml", "requirements*.txt", "requirements/", "tox.ini", "noxfile.py",
    "MANIFEST.in", "Makefile", "makefile", "GNUmakefile", "*.mk", "CMakeLists.txt", "*.cmake", "meson.build",
    "package.json", "tsconfig*.json", "jsconfig*.json", ".babelrc*", "babel.config.*", ".eslintrc*",
    "eslint.config.*", ".prettierrc*", "jest.config.*", "vitest.config.*", "vite.config.*", "webpack.config.*",
    "rollup.config.*", ".npmrc", ".nvmrc", "Cargo.toml", "build.rs", "rust-toolchain*", "go.mod", "go.work",
    "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle.properties",
    "gradlew", "gradlew.bat", "gradle/", "mvnw", "mvnw.cmd", ".mvn/", "Gemfile", "*.gemspec", "Rakefile",
    ".rubocop.yml", "Dockerfile", "*.dockerfile", "docker-compose*.yml", ".dockerignore", ".gitignore",
    ".gitattributes", ".gitmodules", ".editorconfig", ".github/", ".gitlab-ci.yml", ".circleci/",
    ".travis.yml", "appveyor.yml", "azure-pipelines.yml", "Jenkinsfile", ".pre-commit-config.yaml",
    ".coveragerc", "pytest.ini", "mypy.ini", ".flake8", ".pylintrc", "ruff.toml", ".ruff.toml",
    "/*.toml", "/*.cfg", "/*.ini", "/*.yml", "/*.yaml", "/.*.json",
)
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


NAMED_GROUP = re.compile(r"\(\?P<\w+>")
ANY_DIRECTORY = "^(?:.+/)?"


def _simple_regex(line: str) -> tuple[str, bool] | None:
    """(regex, include) for a gitignore line of the kind the built-in lists use, with pathspec's meaning: `*`
    and `?` within a path segment, a leading or middle `/` anchors the pattern at the top, a trailing `/`
    matches directories only, `!` negates. None for anything else (`**`, brackets, escapes, spaces, comments),
    which pathspec translates; checked against pathspec on generated paths. Loading pathspec costs a scan
    about 11 ms, so the built-in lists do without it."""
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


def _matcher(lines: Iterable[str]) -> Callable[[str], bool]:
    """A match function for gitignore-style lines. Each line becomes a regular expression; with every negation
    after every inclusion (the built-in lists, most corpus.yaml globs) a path matches when an inclusion does
    and no negation does, so each side is joined into one expression: one or two regex calls a path instead
    of one a line. Any other order keeps pathspec's own line-by-line matching."""
    lines = list(lines)
    patterns: list[tuple[str, bool]] = []
    for line in lines:
        simple = _simple_regex(line)
        if simple is None:
            from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

            regex, include = GitIgnoreSpecPattern.pattern_to_regex(line)
            if include is None or regex is None:
                continue
            simple = regex, include
        patterns.append(simple)
    flags = [include for _, include in patterns]
    if False in flags and True in flags[flags.index(False):]:
        import pathspec

        return pathspec.GitIgnoreSpec.from_lines(lines).match_file

    def joined(regexes: list[str]) -> re.Pattern[str] | None:
        # Every expression starts at the top (^), most with "any directories" ((?:.+/)?): those share one
        # prefix, which halves the time to compile and to match (measured on requests' paths).
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


class PathClassifier:
    """Classifies repository paths, caching every answer (paths repeat across history)."""

    def __init__(self, test_globs: Iterable[str] = ()) -> None:
        globs = tuple(test_globs)
        self.test_globs = globs or BUILTIN_TEST_GLOBS
        self._test = _matcher(self.test_globs)
        self._vendored = _matcher(VENDORED_GLOBS)
        self._generated = _matcher(GENERATED_GLOBS)
        self._docs = _matcher(DOCS_GLOBS)
        self._build = _matcher(BUILD_GLOBS)
        self._cache: dict[str, tuple[Category, bool, bool]] = {}

    def category(self, path: str) -> Category:
        """The category of one repository path (posix, relative)."""
        return self.facts(path)[0]

    def facts(self, path: str) -> tuple[Category, bool, bool]:
        """(category, is a lockfile, has a binary name) of a path, remembered: paths repeat across history."""
        found = self._cache.get(path)
        if found is None:
            found = self._cache[path] = (self._classify(path), is_lockfile(path), is_binary_name(path))
        return found

    def _classify(self, path: str) -> Category:
        if self._vendored(path):
            return "vendored"
        if self._generated(path):
            return "generated"
        if self._test(path):
            return "test"
        if is_lockfile(path):
            return "build"
        if self._docs(path):
            return "docs"
        if self._build(path):
            return "build"
        return "source"


def basename(path: str) -> str:
    """The last component of a posix path."""
    return path.rsplit("/", 1)[-1]


def is_lockfile(path: str) -> bool:
    """A dependency lockfile, whatever the ecosystem."""
    return basename(path) in LOCKFILES


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
