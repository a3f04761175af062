"""The setup command of JavaScript, Go, Rust, Java and Ruby candidates, from their base commit's files."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.environment import Inference
from tests.testing.envrepos import PY_FIXED, PY_TEST_FIXED, SOURCES, candidate_of, fake_pythons, fix_on
from tests.testing.gitrepo import git_init

PACKAGE = '{"name": "web", "devDependencies": {"jest": "^29"}}\n'


@pytest.mark.parametrize(("lockfile", "command", "origin"), [
    ("package-lock.json", "npm ci", "command: npm, from package-lock.json"),
    ("yarn.lock", "yarn install --frozen-lockfile", "command: yarn, from yarn.lock"),
    ("pnpm-lock.yaml", "pnpm install --frozen-lockfile", "command: pnpm, from pnpm-lock.yaml"),
    (None, "npm install", "command: npm install (package.json without a lockfile)"),
])
def test_javascript_installs_with_the_package_manager_its_lockfile_names(tmp_path: Path, lockfile: str | None,
                                                                        command: str, origin: str) -> None:
    files = {"package.json": PACKAGE, **({lockfile: "lock\n"} if lockfile else {})}
    repo, fix = fix_on(tmp_path / "repo", files, "js")
    candidate = candidate_of(repo, fix, fake_pythons(tmp_path / "pyenv", "3.12.1"))
    assert (candidate.case.setup.python, candidate.case.setup.command) == (None, command)
    assert candidate.case.mined is not None and candidate.case.mined.setup_origin == (origin,)


@pytest.mark.parametrize(("language", "files", "command", "origin"), [
    ("go", {"go.mod": "module example.com/shop\n\ngo 1.21\n"}, "go mod download",
     "command: go mod download (go.mod)"),
    ("rust", {"Cargo.toml": '[package]\nname = "shop"\n'}, "cargo fetch", "command: cargo fetch (Cargo.toml)"),
    ("ruby", {"Gemfile": 'source "https://rubygems.org"\ngem "rspec"\n'}, "bundle install",
     "command: bundle install (Gemfile)"),
    ("java", {"pom.xml": "<project/>\n"}, "mvn -q dependency:go-offline",
     "command: mvn dependency:go-offline (pom.xml)"),
    ("java", {"build.gradle": "plugins { id 'java' }\n"}, None,
     "command: none (gradle resolves dependencies in the grader's run)"),
    ("go", {}, None, "command: none (no go.mod)"),
])
def test_other_languages_fetch_their_dependencies(tmp_path: Path, language: str, files: dict[str, str | None],
                                                  command: str | None, origin: str) -> None:
    repo, fix = fix_on(tmp_path / "repo", files, language)
    candidate = candidate_of(repo, fix, fake_pythons(tmp_path / "pyenv", "3.12.1"))
    assert (candidate.case.setup.python, candidate.case.setup.command) == (None, command)
    assert candidate.case.mined is not None and candidate.case.mined.setup_origin == (origin,)


def test_a_fix_with_python_and_javascript_tests_sets_up_both(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    js_source, js_buggy, js_fixed, js_test, js_before, js_after = SOURCES["js"]
    py_source, py_buggy, _, py_test, py_before, _ = SOURCES["python"]
    repo.commit({"package.json": PACKAGE, "yarn.lock": "lock\n", "setup.py": "from setuptools import setup\n"
                 "setup()\n", js_source: js_buggy, js_test: js_before, py_source: py_buggy, py_test: py_before},
                "Start")
    fix = repo.commit({js_source: js_fixed, js_test: js_after, py_source: PY_FIXED, py_test: PY_TEST_FIXED},
                      "Fix both")
    candidate = candidate_of(repo, fix, fake_pythons(tmp_path / "pyenv", "3.11.7"))
    assert candidate.case.setup.python == "3.11"
    assert candidate.case.setup.command == "uv pip install -e . pytest && yarn install --frozen-lockfile"
    assert candidate.case.mined is not None and candidate.case.mined.setup_origin == (
        "python 3.11: from the commit date (2024-01-03)",
        "command (python): the project alone (it declares no test dependencies), plus pytest",
        "command (js): yarn, from yarn.lock")


def test_bases_sharing_their_build_files_are_inferred_once(tmp_path: Path) -> None:
    repo, first = fix_on(tmp_path / "repo", {"pyproject.toml": '[project]\nname = "app"\n'})
    second = repo.commit({"README.md": "notes\n"}, "Docs")
    changed = repo.commit({"pyproject.toml": '[project]\nname = "app"\nrequires-python = ">=3.12"\n'}, "Bump")
    inference = Inference(repo.path, installed=fake_pythons(tmp_path / "pyenv", "3.11.7", "3.12.1"))
    try:
        inference.expect([first, changed, second])
        environments = [inference.environment(sha, ("python",)) for sha in (first, second, changed, first)]
    finally:
        inference.close()
    assert [env.python for env in environments] == ["3.12", "3.12", "3.12", "3.12"]
    assert environments[0] == environments[1] == environments[3]
    assert environments[2].origin[0].startswith('python 3.12: newest installed within requires-python ">=3.12"')
    assert len(inference.by_key) == 2
