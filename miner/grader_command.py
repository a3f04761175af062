"""Suggest a grader command from the test files a fix changed, per language and framework."""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass

from miner.testids import Language, TestRef, language_of

JUNIT_PATH = ".hindcast/junit.xml"
TESTDATA = "testdata"
"""The directory Go's tooling ignores as a package and keeps a package's test fixtures in."""
JAVA_PACKAGE = re.compile(rb"^\s*package\s+([\w.]+)", re.MULTILINE)


@dataclass(frozen=True)
class Suggestion:
    """A proposed grader: the command, its JUnit path when it writes one, and the tests the fix touched."""

    command: str
    """Shell command to run in the workspace."""
    junit: str | None
    """JUnit XML the command writes, when it writes one."""
    fail_to_pass: tuple[str, ...]
    """Test ids for the grader's fail_to_pass (only when junit is set)."""
    test_ids: tuple[str, ...]
    """Every test the fix added or changed, in the framework's own naming (for review)."""
    inferred: bool = True
    """False when no command could be inferred and the command is a placeholder that fails."""


@dataclass(frozen=True)
class RepoHints:
    """What the fix revision says about the build: which files exist and what package.json names."""

    package_json: bytes | None = None
    """package.json at the repository root, when present."""
    has_gradle: bool = False
    """build.gradle(.kts) at the root."""
    file_content: Callable[[str], bytes | None] = lambda path: None
    """Fix-version content of a test file (for package names)."""
    source_paths: tuple[str, ...] = ()
    """The source paths the fix changed (a Go package's testdata/ goes with Go sources)."""


def _q(value: str) -> str:
    return shlex.quote(value)


def pytest_node_id(ref: TestRef) -> str:
    """The pytest node id of a test: path::Class::function."""
    return "::".join((ref.path, *ref.scope, ref.name))


def _is_python_test_module(path: str) -> bool:
    name = path.rsplit("/", 1)[-1]
    return name.endswith(".py") and (name.startswith("test") or name.endswith("_test.py"))


def _python(files: list[str], refs: list[TestRef]) -> tuple[str, tuple[str, ...], bool]:
    ids = sorted({pytest_node_id(ref) for ref in refs})
    covered = {ref.path for ref in refs}
    targets = ids + sorted(p for p in files if p not in covered and _is_python_test_module(p))
    if not targets:
        targets = sorted({p.rsplit("/", 1)[0] + "/" if "/" in p else "." for p in files})
    command = f"python -m pytest -q -p no:cacheprovider --junitxml={JUNIT_PATH} {' '.join(map(_q, targets))}"
    return command, tuple(ids), True


def _go_package(path: str) -> str:
    """The package a Go test path belongs to: its directory, or the one holding its testdata/."""
    parts = path.split("/")[:-1]
    if TESTDATA in parts:
        parts = parts[:parts.index(TESTDATA)]
    return "./" + "/".join(parts) if parts else "."


def _go(files: list[str], refs: list[TestRef]) -> str:
    tests = {_go_package(p) for p in files if p.endswith(".go")}
    names = sorted({ref.name for ref in refs})
    run = f" -run {_q('^(' + '|'.join(names) + ')$')}" if names else ""
    command = f"go test {' '.join(map(_q, sorted(tests)))}{run}" if tests else ""
    # A package whose test data alone changed runs whole: a -run filter for other packages' tests would run
    # none of its tests, and pass.
    data = sorted({_go_package(p) for p in files if not p.endswith(".go")} - tests)
    whole = f"go test {' '.join(map(_q, data))}" if data else ""
    return " && ".join(part for part in (command, whole) if part) or "go test ./..."


def _js(files: list[str], refs: list[TestRef], hints: RepoHints) -> str:
    package = hints.package_json or b""
    names = sorted({ref.name for ref in refs})
    pattern = "|".join(re.escape(name) for name in names)
    quoted = " ".join(map(_q, sorted(files)))
    if b"vitest" in package:
        return f"npx vitest run {quoted}" + (f" -t {_q(pattern)}" if names else "")
    if b"mocha" in package and b"jest" not in package:
        return f"npx mocha {quoted}" + (f" --grep {_q(pattern)}" if names else "")
    if b"jest" in package or not package:
        return f"npx jest {quoted}" + (f" -t {_q(pattern)}" if names else "")
    # A runner none of these (ava, tap, node --test, an old expresso or a Makefile): the project's own test
    # script, whole, rather than a guess at its runner; nothing when it has none.
    return "npm test" if _has_test_script(package) else ""


def _has_test_script(package: bytes) -> bool:
    import json  # only for the rare package.json that names no known runner

    try:
        document = json.loads(package)
    except ValueError:
        return False
    scripts = document.get("scripts") if isinstance(document, dict) else None
    return isinstance(scripts, dict) and isinstance(scripts.get("test"), str) and bool(scripts["test"].strip())


def _java(files: list[str], refs: list[TestRef], hints: RepoHints) -> str:
    classes: dict[str, set[str]] = {}
    for path in files:
        if path.endswith((".java", ".kt")):
            classes.setdefault(path.rsplit("/", 1)[-1].split(".", 1)[0], set())
    for ref in refs:
        classes.setdefault(ref.scope[0] if ref.scope else ref.path, set()).add(ref.name)
    if hints.has_gradle:
        selectors = []
        for path in sorted({p for p in files if p.endswith((".java", ".kt"))}):
            content = hints.file_content(path) or b""
            match = JAVA_PACKAGE.search(content)
            cls = path.rsplit("/", 1)[-1].split(".", 1)[0]
            qualified = f"{match.group(1).decode()}.{cls}" if match else cls
            methods = sorted(classes.get(cls, ()))
            selectors += [f"{qualified}.{m}" for m in methods] or [qualified]
        return "./gradlew test " + " ".join(f"--tests {_q(s)}" for s in selectors)
    spec = ",".join(f"{cls}#{'+'.join(sorted(methods))}" if methods else cls
                    for cls, methods in sorted(classes.items()))
    return f"mvn -q test -Dtest={_q(spec)} -DfailIfNoTests=false"


def _rust(files: list[str], refs: list[TestRef]) -> str:
    integration = sorted({p.rsplit("/", 1)[-1][:-3] for p in files if p.startswith("tests/") and p.endswith(".rs")
                          and p.count("/") == 1})
    targets = "".join(f" --test {_q(name)}" for name in integration)
    names = sorted({ref.name for ref in refs})
    return f"cargo test{targets}" + (f" -- {' '.join(map(_q, names))}" if names else "")


def _ruby(files: list[str], refs: list[TestRef]) -> str:
    commands = []
    specs = [p for p in sorted(files) if p.endswith("_spec.rb")]
    if specs:
        lines: dict[str, list[int]] = {}
        for ref in refs:
            if ref.path in specs:
                lines.setdefault(ref.path, []).append(ref.line)
        args = [p + "".join(f":{n}" for n in sorted(lines.get(p, []))) for p in specs]
        commands.append("bundle exec rspec " + " ".join(map(_q, args)))
    for path in sorted(p for p in files if p.endswith(".rb") and p not in specs and "/" in p):
        names = sorted({ref.name for ref in refs if ref.path == path})
        if not (path.rsplit("/", 1)[-1].startswith("test_") or path.endswith("_test.rb")):
            continue
        only = f" -n {_q('/^(' + '|'.join(names) + ')$/')}" if names else ""
        commands.append(f"bundle exec ruby -Itest {_q(path)}{only}")
    return " && ".join(commands)


def suggest(test_files: list[str], refs: list[TestRef], hints: RepoHints | None = None) -> Suggestion:
    """A grader command for the test files a fix added or changed (deleted ones excluded)."""
    hints = hints or RepoHints()
    by_language: dict[Language, list[str]] = {}
    go_sources = any(path.endswith(".go") for path in hints.source_paths)
    for path in test_files:
        language = language_of(path)
        if language == "other" and go_sources and TESTDATA in path.split("/")[:-1]:
            language = "go"  # fixtures (golden files, inputs) of the Go package above testdata/
        by_language.setdefault(language, []).append(path)
    refs_of: dict[Language, list[TestRef]] = {}
    for ref in refs:
        refs_of.setdefault(language_of(ref.path), []).append(ref)
    commands: list[str] = []
    junit: str | None = None
    fail_to_pass: tuple[str, ...] = ()
    test_ids: list[str] = []
    for language in sorted(by_language):
        files, found = by_language[language], refs_of.get(language, [])
        if language == "python":
            command, fail_to_pass, _ = _python(files, found)
            junit = JUNIT_PATH
            test_ids += fail_to_pass
            commands.append(command)
            continue
        test_ids += [f"{ref.path}::{'::'.join((*ref.scope, ref.name))}" for ref in found]
        if language == "go":
            commands.append(_go(files, found))
        elif language == "js":
            commands.append(_js(files, found, hints))
        elif language == "java":
            commands.append(_java(files, found, hints))
        elif language == "rust":
            commands.append(_rust(files, found))
        elif language == "ruby" and (command := _ruby(files, found)):
            commands.append(command)
    commands = [c for c in commands if c]
    if not commands:
        listed = " ".join(sorted(test_files))[:200]
        return Suggestion(f"exit 1  # no grader command inferred for: {listed}", None, (), tuple(test_ids),
                          inferred=False)
    if len(commands) > 1:
        # JUnit ids only decide when pytest is the whole command.
        junit, fail_to_pass = None, ()
    return Suggestion(" && ".join(commands), junit, fail_to_pass, tuple(test_ids))
