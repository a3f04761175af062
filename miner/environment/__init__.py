"""Environment inference: each candidate's interpreter and setup command, from its base commit's own files."""

from __future__ import annotations

import datetime
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from corpus.interpreters import Installed, installed_pythons
from corpus.languages import LANGUAGES, language_of
from corpus.languages.base import BaseFiles
from corpus.model import SetupDefaults
from miner.environment.read import BaseReader, Key

DEFAULTS_ORIGIN = "corpus.yaml defaults.setup"


@dataclass(frozen=True)
class Environment:
    """A candidate's setup fields and where each came from."""

    python: str | None = None
    """Interpreter version, or None for none."""
    command: str | None = None
    """Setup command, or None for none."""
    origin: tuple[str, ...] = ()
    """One line per field that was decided ("python 3.11: ...", "command: ...")."""


def languages_of(test_paths: Iterable[str]) -> tuple[str, ...]:
    """The languages of a candidate's grader files (`corpus.languages` names), sorted as grader commands are."""
    return tuple(sorted({language.NAME for path in test_paths if (language := language_of(path)) is not None}))


def infer(files: BaseFiles, languages: tuple[str, ...], installed: Installed, python: str | None = None,
          committed: datetime.date | None = None) -> Environment:
    """The setup the base's files declare for tests in these languages: the interpreter the first of them whose
    tests run on Python chooses, and each one's setup command, joined in the registry's order. python, when
    given, is the interpreter already chosen (a corpus default), which the commands are then made for;
    committed is the day the fix was committed (the interpreter of a base that declares none)."""
    chosen = [language for name, language in LANGUAGES.items() if name in languages]
    origin: list[str] = []
    if python is None:
        for language in chosen:
            found = language.interpreter(files, installed, committed)
            if found is not None:
                python, why = found
                origin.append(why)
                break
    commands = [language.setup(files, python) for language in chosen]
    several = len(commands) > 1
    for language, (_, lines) in zip(chosen, commands, strict=True):
        origin += [line.replace("command: ", f"command ({language.NAME}): ", 1) if several else line
                   for line in lines]
    command = " && ".join(text for text, _ in commands if text) or None
    return Environment(python, command, tuple(origin))


class Inference:
    """Infers the environment of many base commits from one cat-file process, memoized by the blob ids of the
    files looked at (most bases of a history share their build files), with corpus defaults applied."""

    def __init__(self, repo: Path, defaults: SetupDefaults | None = None, installed: Installed | None = None) -> None:
        self.repo = repo
        self.defaults = defaults or SetupDefaults()
        self.installed = installed
        self.found: list[Installed] = []
        self.finding: threading.Thread | None = None
        if installed is None:  # found beside the scan's first pass (a few directory listings)
            self.finding = threading.Thread(target=lambda: self.found.append(installed_pythons()), daemon=True,
                                            name="interpreters")
            self.finding.start()
        self.reader: BaseReader | None = None
        self.by_base: dict[tuple[str, tuple[str, ...], datetime.date | None], Environment] = {}
        self.by_key: dict[tuple[Key, tuple[str, ...], datetime.date | None], Environment] = {}

    def expect(self, bases: Iterable[str]) -> None:
        """Bases whose environments will be asked for, in that order (their files are then read ahead)."""
        if self.defaults.command is None or self.defaults.python is None:
            if self.reader is None:
                self.reader = BaseReader(self.repo)
            self.reader.expect(bases)

    def environment(self, base: str, languages: tuple[str, ...],
                    committed: datetime.date | None = None) -> Environment:
        """The setup of a candidate whose base is base, whose tests are in these languages and whose fix was
        committed that day."""
        memo = (base, languages, committed)
        if memo not in self.by_base:
            self.by_base[memo] = self._resolve(base, languages, committed)
        return self.by_base[memo]

    def _resolve(self, base: str, languages: tuple[str, ...], committed: datetime.date | None) -> Environment:
        wanted = self.defaults
        python_default = wanted.python
        command_default = wanted.command
        inferred = Environment()
        if command_default is None or python_default is None:
            inferred = self._infer(base, languages, python_default, committed)
        origin: list[str] = []
        python = inferred.python
        if python_default is not None:
            python = python_default
            origin.append(f"python {python_default}: {DEFAULTS_ORIGIN}")
        command = inferred.command
        if command_default is not None:
            command = command_default.strip() or None
            origin.append(f"command: {DEFAULTS_ORIGIN}" if command else f"command: none, {DEFAULTS_ORIGIN}")
        origin = [line for line in inferred.origin if not (
            (python_default is not None and line.startswith("python"))
            or (command_default is not None and line.startswith(("command", "setup"))))] + origin
        return Environment(python, command, tuple(sorted(origin, key=lambda line: not line.startswith("python"))))

    def _infer(self, base: str, languages: tuple[str, ...], python: str | None,
               committed: datetime.date | None) -> Environment:
        if not languages:
            return Environment()
        if self.reader is None:
            self.reader = BaseReader(self.repo)
        key, read = self.reader.files(base)
        memo = (key, languages, committed)
        if memo not in self.by_key:
            self.by_key[memo] = infer(read(), languages, self._installed(), python, committed)
        return self.by_key[memo]

    def _installed(self) -> Installed:
        if self.installed is None:
            assert self.finding is not None
            self.finding.join()
            self.installed = self.found[0] if self.found else installed_pythons()
        return self.installed

    def close(self) -> None:
        """End the git process (a no-op when none was started)."""
        if self.reader is not None:
            self.reader.close()
