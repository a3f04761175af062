"""A language is its module and its registry line: one registered here, and nowhere else, is classified, graded
and set up by the scan, and keyed by the environment cache."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

import pytest

from corpus.interpreters import Installed
from corpus.languages import LANGUAGES
from corpus.languages.base import BaseFiles, Command, RepoHints, SetupFiles, ref_id
from corpus.languages.base import TestRef as Ref
from corpus.languages.testids import changed_text
from corpus.testfiles import matcher_for_tests
from miner.classify import PathClassifier
from miner.scan import ScanOptions, ScanResult, scan
from runner.envs.key import is_dependency_file
from tests.testing.envrepos import fake_pythons
from tests.testing.gitrepo import git_init

CHECK = re.compile(r"^check (\w+):")


class Toy:
    """A language made up for this test: `check NAME:` blocks in `*_check.toy` files, run by the runner the
    first line of toy.conf names, set up with `toy fetch` from the base's toy.conf, toy.lock and toys/."""

    NAME = "toy"
    SUFFIXES = (".toy",)
    TEST_GLOBS = ("*_check.toy", "toyfixtures/")
    BUILD_GLOBS = ("toy.conf",)
    LOCK_FILES = ("toy.lock",)
    DEPENDENCY_GLOBS = ("toy.conf", "toy.lock", "toys/")
    GRADER_FILES = ("toy.conf",)
    SETUP_FILES = SetupFiles(read=("toy.conf",), present=("toy.lock",), directories=(("toys", r"[^/]+\.conf"),))

    def tests(self, path: str, content: bytes, section: bytes) -> set[Ref]:
        text, lines = changed_text(content, section)
        found = set()
        for number in lines:
            for index in range(min(number, len(text)) - 1, -1, -1):
                if match := CHECK.match(text[index]):
                    found.add(Ref(path, match.group(1), (), index + 1))
                    break
        return found

    def owns(self, path: str, hints: RepoHints) -> bool:
        return path.startswith("toyfixtures/") and any(p.endswith(".toy") for p in hints.source_paths)

    def command(self, files: list[str], refs: list[Ref], hints: RepoHints) -> Command:
        runner = (hints.file_content("toy.conf") or b"toy").decode().split("\n")[0]
        names = ",".join(sorted(ref.name for ref in refs))
        return Command(f"{runner} check {' '.join(sorted(files))} --only {names}", tuple(map(ref_id, refs)))

    def interpreter(self, files: BaseFiles, installed: Installed, committed: datetime.date | None) -> None:
        return None

    def setup(self, files: BaseFiles, python: str | None) -> tuple[str | None, tuple[str, ...]]:
        if not files.has("toy.lock"):
            return None, ("command: none (no toy.lock)",)
        mirror = (files.text("toy.conf") or "").split("mirror=")[-1].strip()
        profiles = [(files.text(path) or "").strip() for path in files.paths() if path.startswith("toys/")]
        command = f"toy fetch --locked --mirror {mirror}" + "".join(f" --profile {p}" for p in profiles)
        return command, ("command: toy fetch (toy.lock; the mirror of toy.conf; the profiles of toys/)",)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> Toy:
    """The toy language, registered for one test."""
    language = Toy()
    monkeypatch.setitem(LANGUAGES, language.NAME, language)
    return language


def _scan(tmp_path: Path) -> ScanResult:
    repo = git_init(tmp_path / "repo")
    repo.commit({"toy.conf": "toyrun\nmirror=https://toys.example\n", "toy.lock": "locked\n",
                 "toys/fast.conf": "fast\n", "toys/notes.md": "not a profile\n", "lib/calc.toy": "add 1\n",
                 "lib/calc_check.toy": "check adds:\n  expect 2\n\ncheck keeps:\n  expect 0\n"}, "Start")
    repo.commit({"lib/calc.toy": "add 2\n", "lib/calc_check.toy": "check adds:\n  expect 3\n\ncheck keeps:\n"
                 "  expect 0\n", "toyfixtures/sum.out": "3\n"}, "Fix the sum in calc")
    return scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals", write=False,
                            pythons=fake_pythons(tmp_path / "pyenv", "3.12.1")))


def test_an_unregistered_language_s_files_are_source(tmp_path: Path) -> None:
    classifier = PathClassifier()
    assert [classifier.category(p) for p in ("lib/calc_check.toy", "toyfixtures/sum.out", "toy.conf")] == [
        "source", "source", "source"]
    assert not classifier.is_lockfile("toy.lock") and not matcher_for_tests(())("lib/calc_check.toy")
    assert not is_dependency_file("toy.lock")
    assert _scan(tmp_path).candidates == []  # no test changed


def test_a_registered_language_is_classified_graded_and_set_up(tmp_path: Path, toy: Toy) -> None:
    classifier = PathClassifier()
    assert [classifier.category(p) for p in ("lib/calc_check.toy", "toyfixtures/sum.out", "toy.conf", "toy.lock",
                                             "lib/calc.toy")] == ["test", "test", "build", "build", "source"]
    assert classifier.is_lockfile("toy.lock") and matcher_for_tests(())("lib/calc_check.toy")
    assert [is_dependency_file(p) for p in ("toy.lock", "toys/fast.conf", "lib/calc.toy")] == [True, True, False]
    [candidate] = _scan(tmp_path).candidates
    case = candidate.case
    assert case.grader.command == "toyrun check lib/calc_check.toy toyfixtures/sum.out --only adds"
    assert candidate.test_ids == ("lib/calc_check.toy::adds",)
    assert case.mined is not None and case.mined.test_files == ("lib/calc_check.toy", "toyfixtures/sum.out")
    assert case.setup.python is None
    assert case.setup.command == "toy fetch --locked --mirror https://toys.example --profile fast"
    assert case.mined.setup_origin == ("command: toy fetch (toy.lock; the mirror of toy.conf; the profiles of toys/)",)
