"""case.yaml's scorecard fields (allowed_paths, invariants, invariant_policy, risk_flags): validated with one line
naming the file, field and line; every writer keeps them; they enter the fingerprint only when set."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import Corpus
from corpus.cli_support import run_cli
from corpus.errors import CorpusError, ExitCode
from corpus.fingerprint import case_fingerprint
from corpus.model import Invariant
from corpus.newcase import write_new
from corpus.schema import parse_case
from corpus.yamlio import load_yaml
from runner.cli import cli
from tests.testing.casefactory import build_corpus

FIELDS = """allowed_paths: [calc.py, 'lib/**/*.py', '!lib/vendored/']
invariants:
  - name: no-debug
    command: "! grep -q breakpoint calc.py"
  - name: imports
    command: python -c 'import calc'
    timeout: 30
risk_flags: [payments, data-deletion]
"""
INVARIANTS = (Invariant("no-debug", "! grep -q breakpoint calc.py", 120), Invariant("imports", "python -c 'import calc'", 30))


def case_file(tmp_path: Path, extra: str) -> Path:
    corpus, _, _ = build_corpus(tmp_path)
    path = corpus.root / "cases" / "calc-add" / "case.yaml"
    path.write_text(path.read_text() + extra)
    return path


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), start=1) if text in line)


def test_the_fields_load_into_the_case(tmp_path: Path) -> None:
    path = case_file(tmp_path, FIELDS)
    case = parse_case(path, load_yaml(path))
    assert case.allowed_paths == ("calc.py", "lib/**/*.py", "!lib/vendored/")
    assert case.invariants == INVARIANTS
    assert case.invariant_policy == "advisory" and case.risk_flags == ("payments", "data-deletion")


def test_a_blocking_case_can_make_its_invariants_blocking(tmp_path: Path) -> None:
    path = case_file(tmp_path, FIELDS + "invariant_policy: blocking\n")
    path.write_text(path.read_text().replace("policy: advisory", "").replace("owner: ada", "owner: ada\npolicy: blocking"))
    case = parse_case(path, load_yaml(path))
    assert (case.policy, case.invariant_policy) == ("blocking", "blocking")


@pytest.mark.parametrize(("extra", "anchor", "field", "message"), [
    ("allowed_paths: calc.py\n", "allowed_paths", "allowed_paths", "expected a list of text, found text"),
    ("allowed_paths: [calc.py, '']\n", "allowed_paths", "allowed_paths[1]", "expected a path glob, found ''"),
    ("allowed_paths: ['../elsewhere/*']\n", "allowed_paths", "allowed_paths[0]",
     "must stay inside the repository, found '../elsewhere/*'"),
    ("invariants: {name: x}\n", "invariants", "invariants", "expected a list of invariants"),
    ("invariants:\n  - true\n", "- true", "invariants[0]", "expected an invariant: a mapping with name"),
    ("invariants:\n  - name: a\n", "name: a", "invariants[0].command", "missing required field"),
    ("invariants:\n  - command: 'true'\n", "- command: 'true'", "invariants[0].name", "missing required field"),
    ("invariants:\n  - name: a b\n    command: 'true'\n", "name: a b", "invariants[0].name",
     "expected up to 64 letters, digits, '.', '_' or '-', found 'a b'"),
    ("invariants:\n  - {name: a, command: 'true'}\n  - name: a\n    command: 'false'\n", "  - name: a",
     "invariants[1].name", "'a' names an earlier invariant too"),
    ("invariants:\n  - name: a\n    command: 'true'\n    timeout: 0\n", "timeout: 0", "invariants[0].timeout",
     "must be at least 1"),
    ("invariants:\n  - name: a\n    command: 'true'\n    blocking: true\n", "blocking: true",
     "invariants[0].blocking", "unknown key 'blocking'"),
    ("invariants:\n  - {name: a, command: 'true'}\ninvariant_policy: blocking\n", "invariant_policy",
     "invariant_policy", "blocking invariants need the case's policy to be blocking"),
    ("invariant_policy: strict\n", "invariant_policy", "invariant_policy",
     "must be one of advisory, blocking, found 'strict'"),
    ("risk_flags: [Payments]\n", "risk_flags", "risk_flags[0]", "expected a lowercase label"),
    ("risk_flags: [auth, auth]\n", "risk_flags", "risk_flags[1]", "'auth' is listed twice"),
    ("risk_flag: [auth]\n", "risk_flag:", "risk_flag", "unknown key 'risk_flag' (did you mean 'risk_flags'?)"),
])
def test_bad_fields_are_one_line_naming_file_field_and_line(tmp_path: Path, extra: str, anchor: str, field: str,
                                                           message: str) -> None:
    path = case_file(tmp_path, extra)
    with pytest.raises(CorpusError) as raised:
        parse_case(path, load_yaml(path))
    text = str(raised.value)
    assert "\n" not in text
    assert text.startswith(f"{path}:{line_of(path, anchor)}: {field}: {message}"), text


def test_blocking_needs_an_invariant(tmp_path: Path) -> None:
    path = case_file(tmp_path, "invariant_policy: blocking\n")
    path.write_text(path.read_text().replace("owner: ada", "owner: ada\npolicy: blocking"))
    with pytest.raises(CorpusError, match=r"invariant_policy: blocking needs at least one entry under invariants"):
        parse_case(path, load_yaml(path))


def test_runner_validate_reports_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = case_file(tmp_path, "risk_flags: [Auth]\n")
    root = path.parent.parent.parent
    assert run_cli(cli, "runner", ["validate", "--corpus", str(root)]) == ExitCode.BAD_INPUT
    lines = capsys.readouterr().err.splitlines()
    assert re.match(rf"runner: error: {re.escape(str(path))}:\d+: risk_flags\[0\]: expected a lowercase label",
                    lines[0])


def test_writers_keep_the_fields(tmp_path: Path) -> None:
    path = case_file(tmp_path, "# scope of the fix\n" + FIELDS)
    corpus = Corpus.open(path.parent.parent.parent)
    stored = corpus.load("calc-add")
    corpus.write(replace(stored.case, title="add() is wrong"), stored.files)
    assert "# scope of the fix" in path.read_text()
    again = corpus.load("calc-add").case
    assert (again.title, again.allowed_paths, again.invariants, again.risk_flags) == (
        "add() is wrong", ("calc.py", "lib/**/*.py", "!lib/vendored/"), INVARIANTS, ("payments", "data-deletion"))
    (tmp_path / "fresh").mkdir()
    Corpus.init(tmp_path / "fresh", "fresh")
    written = write_new(tmp_path / "fresh", again, stored.files, "cases") / "case.yaml"
    loaded = parse_case(written, load_yaml(written))
    assert (loaded.allowed_paths, loaded.invariants, loaded.risk_flags) == (
        again.allowed_paths, INVARIANTS, again.risk_flags)


def test_the_checks_enter_the_fingerprint_only_when_set(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    (stored,) = corpus.load_all()
    plain = case_fingerprint(stored.case, stored.files)
    blocking = replace(stored.case, policy="blocking", invariants=INVARIANTS)
    changed = {case_fingerprint(replace(stored.case, **fields), stored.files) for fields in (
        {"allowed_paths": ("calc.py",)}, {"allowed_paths": ("lib/",)}, {"invariants": INVARIANTS},
        {"invariants": INVARIANTS[:1]})}
    changed.add(case_fingerprint(replace(blocking, invariant_policy="blocking"), stored.files))
    assert len(changed) == 5 and plain not in changed
    # risk_flags are labels, like tags: they decide nothing about a trial
    assert case_fingerprint(replace(stored.case, risk_flags=("auth",)), stored.files) == plain
