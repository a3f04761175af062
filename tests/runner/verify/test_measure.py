"""Verify measures fail-to-pass and pass-to-pass on real repositories, writes them where it should, and says how
the base fails."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import case_fingerprint
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from corpus.verdicts import candidate_verdict, case_verdicts
from runner.cli import cli
from runner.envs.environment import base_environment
from runner.grading.failclosed import FixConfig
from runner.grading.frompatch import GradingSetup, grade_patch
from runner.sandbox.confine import Confinement
from runner.verify.measure import failure_kind, measuring_command, node_id
from runner.verify.render import measured_line
from runner.verify.verify import VerifyOptions, verify
from runner.workspace.workspace import create_workspace
from tests.runner.verify.builders import CALC_MUL, JUNIT, PYTEST, TESTS_MUL, build

F2P = ("tests/test_calc.py::test_add",)
P2P = ("tests/test_calc.py::test_right_zero", "tests/test_calc.py::test_zero")
WHOLE = f"{PYTEST} tests/test_calc.py"


def test_candidate_gets_the_measured_lists_and_its_verdict(tmp_path: Path) -> None:
    corpus, case = build(tmp_path)
    [verdict] = verify(corpus, VerifyOptions(kind="candidates", case_ids=(case.id,))).verdicts
    assert (verdict.verdict, verdict.reason, verdict.feature, verdict.written) == ("VALID", "", False, True)
    assert verdict.measured is not None
    assert (verdict.measured.fail_to_pass, verdict.measured.pass_to_pass) == (F2P, P2P)
    assert verdict.measured.failures == {F2P[0]: "assertion"}
    stored = corpus.load(case.id, "candidates")
    assert stored.case.grader.command == WHOLE
    assert (stored.case.grader.fail_to_pass, stored.case.grader.pass_to_pass) == (F2P, P2P)
    record = candidate_verdict(stored.directory)
    assert record is not None and record.verdict == "VALID" and not record.feature
    assert record.case_fingerprint == case_fingerprint(stored.case, stored.files) == verdict.case_fingerprint
    assert not (corpus.root / "verification.json").exists()  # candidates keep their own records
    # The written grader decides a trial as it decided verify: the oracle passes, the base fails.
    setup = GradingSetup(stored.case, stored.files, FixConfig(()), frozenset())
    for patch, outcome in ((stored.files.oracle_patch, "pass"), (b"", "fail")):
        ws = create_workspace(corpus.repo_path(), stored.case.base_commit, tmp_path / f"ws-{outcome}")
        graded = grade_patch(setup, ws, patch, base_environment(), Confinement(), tmp_path, tmp_path / "g.log")
        assert graded.result.outcome == outcome, graded.result.reason
    # Verifying again judges the measured grader and changes nothing.
    before = (stored.directory / "case.yaml").read_bytes()
    [again] = verify(corpus, VerifyOptions(kind="candidates", all_cases=True)).verdicts
    assert (again.verdict, again.written, again.current) == ("VALID", False, True)
    assert (stored.directory / "case.yaml").read_bytes() == before
    assert measured_line(again) is not None and measured_line(again).endswith("; as case.yaml has them")


def test_case_lists_are_proposed_and_written_only_with_update(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    corpus, case = build(tmp_path, kind="cases")
    before = (corpus.root / "cases" / case.id / "case.yaml").read_bytes()
    assert run_cli(cli, "runner", ["verify", "--corpus", str(corpus.root)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["calc-add", "VALID"]
    assert out[2].strip() == ("measured: 1 fail-to-pass (1 assertion), 2 pass-to-pass; proposed (--update writes "
                              "them)")
    assert (corpus.root / "cases" / case.id / "case.yaml").read_bytes() == before
    assert run_cli(cli, "runner", ["verify", "--corpus", str(corpus.root), "--json"]) == 0
    [document] = json.loads(capsys.readouterr().out)["verdicts"]
    assert document["measured"] == {"command": WHOLE, "fail_to_pass": list(F2P), "pass_to_pass": list(P2P),
                                    "failures": {F2P[0]: "assertion"}, "flaky": [], "skipped": [], "skip_reason": "",
                                    "written": False,
                                    "current": False}
    assert run_cli(cli, "runner", ["verify", "--corpus", str(corpus.root), "--update"]) == 0
    assert "2 pass-to-pass; written to case.yaml" in capsys.readouterr().out
    stored = corpus.load(case.id)
    assert (stored.case.grader.command, stored.case.grader.pass_to_pass) == (WHOLE, P2P)
    recorded = case_verdicts(corpus.root)[case.id]
    assert recorded.verdict == "VALID" and recorded.case_fingerprint == case_fingerprint(stored.case, stored.files)


def test_a_base_lacking_the_imported_function_is_a_feature(tmp_path: Path) -> None:
    corpus, case = build(tmp_path, source=CALC_MUL, tests=TESTS_MUL, fail_to_pass=("tests/test_calc.py::test_mul",),
                         command=f"{PYTEST} tests/test_calc.py::test_mul")
    [verdict] = verify(corpus, VerifyOptions(kind="candidates", all_cases=True)).verdicts
    assert (verdict.verdict, verdict.feature) == ("VALID", True)
    assert verdict.reason.startswith("feature: the base lacks the names or signatures the tests use")
    assert verdict.measured is not None
    assert verdict.measured.failures == {"tests/test_calc.py::test_add": "missing",
                                         "tests/test_calc.py::test_mul": "missing"}
    bases = [a for a in verdict.attempts if a.side == "baseline"]
    assert [(a.repeat, a.outcome, a.exit_code) for a in bases] == [(1, "fail", 2), (2, "fail", 2)]
    assert all("cannot import name 'mul'" in a.reason for a in bases)
    record = candidate_verdict(corpus.root / "candidates" / case.id)
    assert record is not None and record.feature and record.verdict == "VALID"


def test_an_oracle_that_cannot_collect_either_is_an_error(tmp_path: Path) -> None:
    tests = "from calc import add, nowhere\n\n\ndef test_add():\n    assert add(2, 2) == 4\n"
    corpus, case = build(tmp_path, tests=tests)
    before = (corpus.root / "candidates" / case.id / "case.yaml").read_bytes()
    [verdict] = verify(corpus, VerifyOptions(kind="candidates", all_cases=True)).verdicts
    assert verdict.verdict == "ERROR" and not verdict.written
    assert verdict.reason.startswith("oracle: no test ran (pytest exit 2: collection errors or interrupted): ")
    assert "cannot import name 'nowhere'" in verdict.reason
    assert (corpus.root / "candidates" / case.id / "case.yaml").read_bytes() == before


@pytest.mark.parametrize(("message", "kind"), [
    ("assert -1 == 5", "assertion"),
    ("AssertionError: totals differ", "assertion"),
    ("AttributeError: module 'calc' has no attribute 'mul'", "missing"),
    ("collection failure | ImportError: cannot import name 'mul' from 'calc' (/w/calc.py)", "missing"),
    ("ModuleNotFoundError: No module named 'calc.money'", "missing"),
    ("TypeError: add() got an unexpected keyword argument 'c'", "missing"),
    ("TypeError: add() takes 2 positional arguments but 3 were given", "missing"),
    ("TypeError: unsupported operand type(s) for +: 'int' and 'str'", "other"),
    ("ZeroDivisionError: division by zero", "other"),
])
def test_failure_kinds(message: str, kind: str) -> None:
    assert failure_kind(message) == kind


def test_measuring_command_runs_the_files_whole() -> None:
    from corpus import Grader

    miner = f"{PYTEST} tests/test_a.py::test_x tests/test_a.py::K::test_y 'tests/test_b.py::test_z[a b]' tests/c.py"
    assert measuring_command(Grader(command=miner, junit=JUNIT)) == f"{PYTEST} tests/test_a.py tests/test_b.py " \
                                                                    f"tests/c.py"
    for other in (f"{PYTEST} tests/test_a.py::test_x && make lint", "make test"):
        assert measuring_command(Grader(command=other, junit=JUNIT)) == other
    assert measuring_command(Grader(command=f"{PYTEST} tests/test_a.py::test_x")) == \
        f"{PYTEST} tests/test_a.py::test_x"  # no JUnit: nothing is measured, the command stays


def test_node_ids_only_where_the_matcher_maps_them_back() -> None:
    paths = ["tests/test_a.py", "tests/conftest.py"]
    assert node_id("tests.test_a.TestK.test_y[1.5]", paths) == "tests/test_a.py::TestK::test_y[1.5]"
    assert node_id("test_a.test_x", paths) == "test_a.test_x"  # another rootdir: the reported id is kept
    assert node_id("pkg.test_other.test_x", paths) == "pkg.test_other.test_x"


def test_cli_candidates_need_a_selection(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, case = build(tmp_path)
    stored = corpus.load(case.id, "candidates")
    corpus.write(replace(stored.case, id="calc-add-two"), stored.files, "candidates")
    args = ["verify", "--corpus", str(corpus.root), "--candidates"]
    assert run_cli(cli, "runner", args) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err == ("runner: error: --candidates needs --case ID, --all (every candidate) or "
                                       "--top N\n")
    assert run_cli(cli, "runner", [*args, "--all", "--case", case.id]) == ExitCode.BAD_INPUT
    assert "--case excludes --all, --top, --min-score and --since" in capsys.readouterr().err
    assert run_cli(cli, "runner", [*args, "--all", "--jobs", "2"]) == 0
    captured = capsys.readouterr()
    err = captured.err.splitlines()
    assert err[0].startswith("verifying 2 candidate(s): 6 attempts")  # the estimate first
    # then a line per attempt, and one per verdict as soon as it is known, in case order
    assert [line for line in err[1:] if line.endswith("VALID")] == ["calc-add: VALID", "calc-add-two: VALID"]
    assert sorted(line for line in err[1:] if "#" in line) == sorted(
        f"{c}: {side}: {outcome}" for c in ("calc-add", "calc-add-two")
        for side in ("baseline #1", "baseline #2", "oracle #1")
        for outcome in ("started", "fail" if side.startswith("baseline") else "pass"))
    assert "2 cases: 2 valid, 0 invalid, 0 errors" in captured.out
    for case_id in ("calc-add", "calc-add-two"):
        assert corpus.load(case_id, "candidates").case.grader.pass_to_pass == P2P
        record = candidate_verdict(corpus.root / "candidates" / case_id)
        assert record is not None and record.verdict == "VALID"
