"""Verify explains itself: ERROR (never INVALID) for a grader that ran no test, the logs of unexpected attempts kept
in a stable place, and how long each attempt and its setup took."""

from __future__ import annotations

import io
import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import Grader, Setup
from corpus.cli_support import run_cli
from corpus.verdicts import candidate_verdict, case_verdicts
from runner.cli import cli
from runner.settings import Settings
from runner.verify.verify import VerifyOptions, verify
from tests.runner.verify.builders import PYTEST, build
from tests.testing.casefactory import build_corpus


@pytest.mark.parametrize(("command", "extra", "reason"), [
    (f"{PYTEST} tests/test_calc.py", {"tests/conftest.py": "import not_a_module_xyz\n"},
     "baseline: no test ran (pytest exit 4: usage error): ImportError while loading conftest '/"),
    (f"{PYTEST} tests/test_calc.py -k no_such_test", {}, "baseline: no test ran (pytest exit 5: no tests collected)"),
    ("echo nothing to see; exit 1", {}, "baseline: no test ran: grader exited 1 and wrote no readable JUnit report"),
], ids=["conftest-import-error", "no-tests-collected", "no-junit"])
def test_a_grader_that_ran_no_test_is_an_error(tmp_path: Path, command: str, extra: dict[str, str],
                                               reason: str) -> None:
    corpus, case = build(tmp_path, command=command, extra=extra)
    before = (corpus.root / "candidates" / case.id / "case.yaml").read_bytes()
    [verdict] = verify(corpus, VerifyOptions(kind="candidates", all_cases=True, settings=Settings(sandbox="none"))).verdicts
    assert verdict.verdict == "ERROR" and verdict.reason.startswith(reason), verdict.reason
    assert verdict.measured is None and not verdict.written
    assert (corpus.root / "candidates" / case.id / "case.yaml").read_bytes() == before
    record = candidate_verdict(corpus.root / "candidates" / case.id)
    assert record is not None and (record.verdict, record.reason) == ("ERROR", verdict.reason)
    # Both sides erred: every attempt's logs are kept where the verdict says (the measured base runs twice).
    assert verdict.logs == str(corpus.root / ".hindcast" / "verify" / case.id) == record.logs
    assert sorted(p.name for p in Path(verdict.logs).iterdir()) == ["baseline-1", "baseline-2", "oracle-1"]
    assert (Path(verdict.logs) / "oracle-1" / "grader.log").is_file()
    # A corpus kept inside its repository never commits them.
    assert (corpus.root / ".hindcast" / ".gitignore").read_text() == "*\n"


def test_logs_of_the_unexpected_attempt_are_kept_and_replaced(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, case = build_corpus(tmp_path, grader=Grader(command="echo all good"))
    assert run_cli(cli, "runner", ["verify", "--corpus", str(corpus.root)]) == 1
    kept = corpus.root / ".hindcast" / "verify" / case.id
    out = capsys.readouterr().out
    assert "INVALID  baseline passes" in out and f"logs: {kept}" in out
    assert [p.name for p in kept.iterdir()] == ["baseline-1"]  # the oracle passed, as expected
    assert (kept / "baseline-1" / "grader.log").read_text() == "all good\n"
    assert case_verdicts(corpus.root)[case.id].logs == str(kept)
    stored = corpus.load(case.id)
    corpus.write(replace(case, grader=Grader(command="grep -q 'a + b' calc.py")), stored.files)
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "VALID" and verdict.logs is None
    assert not kept.exists()  # nothing unexpected this time: the old logs are gone with the old verdict


def test_setup_log_of_a_failed_setup_is_kept(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path, setup=Setup(command="echo installing; exit 3"))
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "ERROR" and "setup failed (exit 3): installing" in verdict.reason
    for attempt in verdict.attempts:
        assert attempt.logs is not None
        assert (Path(attempt.logs) / "setup.log").read_text() == "installing\n"


def test_durations_and_keep(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, case = build_corpus(tmp_path, setup=Setup(command="sleep 0.4"))
    assert run_cli(cli, "runner", ["verify", "--corpus", str(corpus.root), "--keep", "--json"]) == 0
    [document] = json.loads(capsys.readouterr().out)["verdicts"]
    assert document["verdict"] == "VALID"
    # The default environment cache builds the setup once: one attempt ran it, the other reused it.
    assert sorted(a["env_cache"] for a in document["attempts"]) == ["hit", "miss"]
    for attempt in document["attempts"]:
        if attempt["env_cache"] == "miss":
            assert attempt["setup_duration"] >= 0.4
        else:
            assert attempt["setup_duration"] < 0.4
        assert attempt["duration"] > attempt["setup_duration"]  # the grading is part of the attempt
        kept = Path(attempt["logs"])
        assert kept == corpus.root / ".hindcast" / "verify" / case.id / f"{attempt['side']}-1"
        assert (kept / "workspace" / "calc.py").is_file() and (kept / "grader.log").is_file()
    oracle = Path(document["attempts"][1]["logs"])
    assert "a + b" in (oracle / "workspace" / "calc.py").read_text()


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_a_terminal_gets_a_progress_bar(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    build_corpus(tmp_path)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert run_cli(cli, "runner", ["verify", "--corpus", str(tmp_path / "evals"), "--repeats", "2"]) == 0
    bar = terminal.getvalue()
    assert "verifying" in bar and "100%" in bar and "calc-add: VALID" not in bar
    assert capsys.readouterr().out.splitlines()[1].split() == ["calc-add", "VALID"]
