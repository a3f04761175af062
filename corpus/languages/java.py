"""Java and Kotlin: `@Test` methods; `mvn -q test -Dtest=Class#m`, or `./gradlew test --tests` with Gradle;
Maven's offline resolution."""

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
from corpus.languages.testids import annotated, brace_tests

NAME = "java"
SUFFIXES: tuple[str, ...] = (".java", ".kt")
TEST_GLOBS: tuple[str, ...] = ("src/test/", "*Test.java", "*Tests.java", "*TestCase.java", "*IT.java", "*Test.kt",
                               "*Tests.kt")
BUILD_GLOBS: tuple[str, ...] = (
    "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts", "gradle.properties",
    "gradlew", "gradlew.bat", "gradle/", "mvnw", "mvnw.cmd", ".mvn/",
)
LOCK_FILES: tuple[str, ...] = ("gradle.lockfile",)
DEPENDENCY_GLOBS: tuple[str, ...] = ("pom.xml", "build.gradle", "build.gradle.kts", *LOCK_FILES)
GRADER_FILES: tuple[str, ...] = ("build.gradle", "build.gradle.kts")
SETUP_FILES = SetupFiles(present=("pom.xml", "build.gradle", "build.gradle.kts"))
owns = owns_nothing
interpreter = no_interpreter
JAVA_ANNOTATION = re.compile(r"^\s*@(?:Test|ParameterizedTest|RepeatedTest|TestFactory)\b")
JAVA_METHOD = re.compile(r"\b(?:fun\s+|void\s+|\w+\s+)?`?([A-Za-z_]\w*)`?\s*\(")
JAVA_PACKAGE = re.compile(rb"^\s*package\s+([\w.]+)", re.MULTILINE)


def _starts(text: list[str]) -> list[tuple[int, str]]:
    return [(index, name) for index, line in enumerate(text)
            if JAVA_ANNOTATION.match(line) and (name := annotated(text, index, JAVA_METHOD)) is not None]


def _class_of(path: str) -> str:
    return path.rsplit("/", 1)[-1].split(".", 1)[0]


def tests(path: str, content: bytes, section: bytes) -> set[TestRef]:
    """The annotated test methods holding a changed line, scoped by the file's class."""
    return brace_tests(path, content, section, _starts, (_class_of(path),))


def command(files: list[str], refs: list[TestRef], hints: RepoHints) -> Command:
    """Maven's -Dtest of each class and its changed methods; Gradle's --tests, package-qualified, when the
    root has a build.gradle(.kts)."""
    ids = tuple(ref_id(ref) for ref in refs)
    classes: dict[str, set[str]] = {}
    for path in files:
        if path.endswith(SUFFIXES):
            classes.setdefault(_class_of(path), set())
    for ref in refs:
        classes.setdefault(ref.scope[0] if ref.scope else ref.path, set()).add(ref.name)
    if any(hints.file_content(name) for name in GRADER_FILES):
        selectors = []
        for path in sorted({p for p in files if p.endswith(SUFFIXES)}):
            match = JAVA_PACKAGE.search(hints.file_content(path) or b"")
            cls = _class_of(path)
            qualified = f"{match.group(1).decode()}.{cls}" if match else cls
            methods = sorted(classes.get(cls, ()))
            selectors += [f"{qualified}.{m}" for m in methods] or [qualified]
        return Command("./gradlew test " + " ".join(f"--tests {quote(s)}" for s in selectors), ids)
    spec = ",".join(f"{cls}#{'+'.join(sorted(methods))}" if methods else cls
                    for cls, methods in sorted(classes.items()))
    return Command(f"mvn -q test -Dtest={quote(spec)} -DfailIfNoTests=false", ids)


def setup(files: BaseFiles, python: str | None) -> tuple[str | None, tuple[str, ...]]:
    """Maven's offline resolution; nothing for Gradle, whose test run resolves its own."""
    if files.has("pom.xml"):
        return "mvn -q dependency:go-offline", ("command: mvn dependency:go-offline (pom.xml)",)
    if files.has("build.gradle") or files.has("build.gradle.kts"):
        return None, ("command: none (gradle resolves dependencies in the grader's run)",)
    return None, ("command: none (no pom.xml or build.gradle)",)
