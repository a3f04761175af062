"""`runner export --format harbor`: one task directory per case in Harbor's layout, whose solve.sh and test.sh, run
with bash against the base as its Dockerfile lays it out (and the paths Harbor mounts given as variables), reward
the oracle 1 and the base, or an agent that rewrote the tests, 0."""

from __future__ import annotations

import os
import shutil
import subprocess
import tarfile
import tomllib
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from corpus.model import Bait, Grader, Setup, Wording
from runner.cli import cli
from runner.exports import harbor_judge
from runner.exports.harbor import carried_notes, dockerfile
from runner.grading.grader import judge_tests, matches_test_id, read_junit
from tests.testing.casefactory import CALC_BUGGY, CALC_FIXED, TEST_V2, make_case
from tests.testing.exportcorpus import JUNIT, OLD_TEST, build_export_corpus

LAYOUT = ["environment/Dockerfile", "environment/base.tar", "instruction.md", "solution/oracle.patch",
          "solution/solve.sh", "task.toml", "tests/files/test_calc.py", "tests/test.sh"]


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", list(args))
    out, err = capsys.readouterr()
    return code, out, err


def export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    out = tmp_path / "tasks"
    code, stdout, err = call(capsys, "export", "--format", "harbor", "--corpus", str(tmp_path / "evals"),
                             "--out", str(out))
    assert code == ExitCode.OK, err
    assert stdout == f"exported 2 case(s) to {out}\n"
    return out, err


def container(task: Path, where: Path) -> dict[str, str]:
    """What Harbor's container holds for a trial: the base where the Dockerfile unpacks it, tests/ and solution/
    uploaded beside it; the variables name the paths Harbor mounts (/app, /logs/verifier)."""
    app = where / "app"
    app.mkdir(parents=True)
    with tarfile.open(task / "environment" / "base.tar") as archive:
        archive.extractall(app, filter="tar")
    shutil.copytree(task / "tests", where / "tests")
    shutil.copytree(task / "solution", where / "solution")
    return {**os.environ, "HINDCAST_WORKSPACE": str(app), "HINDCAST_VERIFIER_DIR": str(where / "logs" / "verifier")}


def reward(where: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(["bash", str(where / "tests" / "test.sh")], env=env, capture_output=True, text=True,
                          check=False, cwd=where)
    assert "grader exited" in proc.stdout, proc.stdout + proc.stderr
    return (where / "logs" / "verifier" / "reward.txt").read_text().strip()


def solve(where: Path, env: dict[str, str]) -> None:
    subprocess.run(["bash", str(where / "solution" / "solve.sh")], env=env, check=True, capture_output=True)


def test_layout_config_and_warnings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    made = build_export_corpus(tmp_path)
    out, err = export(tmp_path, capsys)
    assert sorted(p.name for p in out.iterdir()) == ["calc-exit", "calc-ids"]
    task = out / "calc-ids"
    files = sorted(p.relative_to(task).as_posix() for p in task.rglob("*") if p.is_file())
    assert files == sorted([*LAYOUT, "tests/grader.json", "tests/judge.py"])
    assert sorted(p.relative_to(out / "calc-exit").as_posix() for p in (out / "calc-exit").rglob("*")
                  if p.is_file()) == LAYOUT
    assert (task / "instruction.md").read_text() == made.ids_case.prompt
    assert os.access(task / "tests" / "test.sh", os.X_OK) and os.access(task / "solution" / "solve.sh", os.X_OK)
    config = tomllib.loads((task / "task.toml").read_text())
    assert config["verifier"] == {"timeout_sec": 180.0, "network_mode": "no-network"}
    assert config["environment"]["workdir"] == "/app" and config["agent"] == {"user": "agent"}
    assert config["metadata"]["hindcast_case"] == "calc-ids" and config["metadata"]["base_commit"] == made.base
    dockerfile = (task / "environment" / "Dockerfile").read_text()
    assert dockerfile.startswith("FROM python:3.11-slim\n") and "\nWORKDIR /app\n" in dockerfile
    assert "bash -c true\n" in dockerfile
    plain = (out / "calc-exit" / "environment" / "Dockerfile").read_text()
    assert plain.startswith("FROM python:3-slim\n") and "RUN python -m pip install --no-cache-dir pytest==" in plain
    assert "pytest" not in dockerfile.replace("bash -c true", "")
    assert err.splitlines() == [
        ("warning: calc-exit: setup.python: not set (Hindcast uses its own interpreter and packages): the image is "
         "python:3-slim with pytest for the grader"),
        "warning: calc-ids: max_turns: not checked: Harbor's verifier grades the workspace only"]
    # The base is a one-commit repository of the base tree: no history, nothing of the fix.
    app = tmp_path / "look"
    with tarfile.open(task / "environment" / "base.tar") as archive:
        archive.extractall(app, filter="tar")
    assert (app / "calc.py").read_text() == CALC_BUGGY and (app / "test_old.py").read_text() == OLD_TEST
    log = subprocess.run(["git", "log", "--format=%H"], cwd=app, capture_output=True, text=True, check=True)
    assert len(log.stdout.split()) == 1
    assert subprocess.run(["git", "cat-file", "-e", made.fix], cwd=app, capture_output=True,
                          check=False).returncode != 0


@pytest.mark.parametrize("case_id", ["calc-ids", "calc-exit"])
def test_oracle_passes_and_base_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str], case_id: str) -> None:
    build_export_corpus(tmp_path)
    out, _ = export(tmp_path, capsys)
    gold = tmp_path / "gold"
    env = container(out / case_id, gold)
    solve(gold, env)
    assert (gold / "app" / "calc.py").read_text() == CALC_FIXED
    assert reward(gold, env) == "1"
    assert (gold / "app" / "test_calc.py").read_text() == TEST_V2
    assert (gold / "app" / "test_old.py").exists() == (case_id == "calc-exit")
    base = tmp_path / "base"
    assert reward(base, container(out / case_id, base)) == "0"


def test_rewritten_tests_and_links_do_not_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_export_corpus(tmp_path)
    out, _ = export(tmp_path, capsys)
    cheat = tmp_path / "cheat"
    env = container(out / "calc-ids", cheat)
    outside = tmp_path / "outside.py"
    outside.write_text("keep\n")
    (cheat / "app" / "test_calc.py").unlink()
    (cheat / "app" / "test_calc.py").symlink_to(outside)
    (cheat / "app" / ".hindcast").mkdir()
    (cheat / "app" / JUNIT).write_text('<testsuite><testcase classname="test_calc" name="test_add"/></testsuite>')
    assert reward(cheat, env) == "0"
    assert outside.read_text() == "keep\n" and not (cheat / "app" / "test_calc.py").is_symlink()


def test_judge_decides_as_the_grader(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text('<testsuites><testsuite name="pytest">'
                      '<testcase classname="tests.test_a" name="test_x[1]"/>'
                      '<testcase classname="tests.test_a" name="test_x[2]"><failure message="no"/></testcase>'
                      '<testcase classname="tests.test_a.TestK" name="test_y"/>'
                      '<testcase classname="tests.test_a" name="test_z"><skipped/></testcase>'
                      "</testsuite></testsuites>")
    reported = read_junit(report.read_bytes(), "junit.xml")
    assert [(t.test_id, t.outcome) for t in reported] == harbor_judge.read_report(str(report))
    for f2p, p2p in [((), ()), (("tests/test_a.py::TestK::test_y",), ()), (("test_x[1]",), ("test_y",)),
                     (("test_x",), ()), (("tests/test_a.py::test_z",), ()), (("test_y",), ("test_x[2]",)),
                     (("test_y",), ("test_missing",)), (("test_y",), ("test_z",))]:
        grader = Grader("pytest", junit="junit.xml", fail_to_pass=f2p, pass_to_pass=p2p)
        for code in (0, 1):
            expected = judge_tests(grader, code, reported)[0] == "pass"
            data = {"command": "pytest", "junit": str(report), "fail_to_pass": list(f2p), "pass_to_pass": list(p2p)}
            assert harbor_judge.judge(data, code) == expected, (f2p, p2p, code)
    for wanted, got in [("a.py::t", "a.t"), ("t", "x.t[1]"), ("t[1]", "x.t[2]"), ("b.t", "ab.t"),
                        ("a.py::t[http://[::1]:80]", "a.t[http://[::1]:80]"), ("a.py::K::()::t", "a.K.t")]:
        assert harbor_judge.matches_test_id(wanted, got) == matches_test_id(wanted, got)
    assert harbor_judge.matches_test_id("a.py::t[x::y/z]", "a.t[x::y/z]")
    assert not harbor_judge.judge({"command": "pytest -q", "junit": str(report), "fail_to_pass": ["test_y"]}, 4)
    link = tmp_path / "link.xml"
    link.symlink_to(report)
    assert not harbor_judge.judge({"command": "x", "junit": str(link), "fail_to_pass": ["test_y"]}, 0)


def test_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    made = build_export_corpus(tmp_path)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "keep").write_text("x")
    code, out, err = call(capsys, "export", "--format", "harbor", "--corpus", str(tmp_path / "evals"), "--out",
                          str(busy))
    assert (code, out, err) == (ExitCode.BAD_INPUT, "", f"runner: error: --out {busy}: exists and is not empty\n")
    code, _, err = call(capsys, "export", "--format", "harbor", "--corpus", str(tmp_path / "evals"), "--out",
                        str(busy / "keep"))
    assert code == ExitCode.BAD_INPUT and err == f"runner: error: --out {busy / 'keep'}: exists and is not a directory\n"
    code, _, err = call(capsys, "export", "--format", "harbor", "--corpus", str(tmp_path / "evals"), "--out",
                        str(tmp_path / "t"), "--repo-name", "a/b")
    assert code == ExitCode.BAD_INPUT and "--repo-name goes with --format swe-bench" in err
    # A repository without the cases' commits: nothing can be exported, nothing is written.
    other = tmp_path / "other"
    other.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=other, check=True)
    code, out, err = call(capsys, "export", "--format", "harbor", "--corpus", str(tmp_path / "evals"), "--repo",
                          str(other), "--out", str(tmp_path / "t"))
    assert code == ExitCode.FAILED and out == "" and not (tmp_path / "t").exists()
    assert err.splitlines()[:2] == [
        f"warning: calc-exit: skipped: base_commit: base commit {made.base} is not in {other}",
        f"warning: calc-ids: skipped: base_commit: base commit {made.base} is not in {other}"]
    # An empty directory is filled.
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, _ = call(capsys, "export", "--format", "harbor", "--corpus", str(tmp_path / "evals"), "--out",
                      str(empty), "--case", "calc-ids")
    assert code == ExitCode.OK and [p.name for p in empty.iterdir()] == ["calc-ids"]
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".staging")]


def test_python_2_and_behaviour_fields_are_warnings() -> None:
    case = make_case("0" * 40, "1" * 40, setup=Setup(python="2.7"), bait=Bait("tool_calls", 3.0),
                     grader=Grader("pytest", junit="j.xml", fail_to_pass=("t",)))
    assert [n.line() for n in carried_notes(case)] == [
        ("calc-add: setup.python: 2.7: the image has neither a venv nor uv, and the JUnit judge needs a python3 the "
        "image lacks"),
        "calc-add: bait: not checked: Harbor's verifier grades the workspace only"]
    worded = make_case("0" * 40, "1" * 40, setup=Setup(python="3.11"), prompts=(Wording("terse", "Sums.\n"),))
    assert [n.line() for n in carried_notes(worded)] == [
        "calc-add: prompts: 1 further wording(s) left out: a Harbor task holds one task text, the prompt"]
    assert "RUN git config --system --add safe.directory /app\n" in dockerfile(case, Path("."))
