"""`runner export --format swe-bench`: the instances load through the swebench package's own loader and test spec,
and its own grading resolves the oracle (and nothing else) from the log of the instance's eval script run against a
real checkout of the base; what a case sets that an instance cannot carry is a warning line."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from swebench.harness.grading import get_eval_report
from swebench.harness.utils import load_swebench_dataset, make_test_spec
from swebench.task.checks import expected_image

from corpus import CaseFiles, Grader
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from corpus.model import Wording
from runner.cli import cli
from runner.exports.common import base_entries
from runner.exports.swebench import carried_notes
from runner.exports.swebench import test_patch as make_test_patch
from tests.testing.casefactory import TEST_V2, make_case
from tests.testing.exportcorpus import build_export_corpus, clone_at

INSTANCE = "hindcast__calc-calc-ids"


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", list(args))
    out, err = capsys.readouterr()
    return code, out, err


def export(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[Path, str]:
    out = tmp_path / "out" / "instances.jsonl"
    code, stdout, err = call(capsys, "export", "--format", "swe-bench", "--corpus", str(tmp_path / "evals"),
                             "--out", str(out), *extra)
    assert code == ExitCode.OK, err
    assert stdout == f"exported 1 case(s) to {out}, 1 skipped\n"
    return out, err


def evaluate(instance: dict[str, object], testbed: Path, patch: str | None, tmp_path: Path) -> bool:
    """What the harness does in the container: apply the prediction, run the eval script, grade its log."""
    spec = make_test_spec(instance)
    if patch:
        subprocess.run(["git", "apply", "-v", "-"], cwd=testbed, input=patch.encode(), check=True,
                       capture_output=True)
    script = spec.eval_script.replace("cd /testbed", f"cd {testbed}")
    proc = subprocess.run(["bash", "-c", script], capture_output=False, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, check=False, cwd=tmp_path)
    log = tmp_path / f"{testbed.name}.log"
    log.write_bytes(proc.stdout)
    prediction = {"instance_id": spec.instance_id, "model_patch": patch or "", "model_name_or_path": "test"}
    report = get_eval_report(spec, prediction, str(log), include_tests_status=True)
    return bool(report[spec.instance_id]["resolved"])


def test_instances_load_and_grade_with_swebench(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    made = build_export_corpus(tmp_path)
    out, err = export(tmp_path, capsys)
    [instance] = load_swebench_dataset(str(out))
    assert instance["instance_id"] == INSTANCE and instance["repo"] == "hindcast/calc"
    assert instance["base_commit"] == made.base and instance["environment_setup_commit"] == made.base
    assert instance["problem_statement"] == made.ids_case.prompt and instance["hints_text"] == ""
    assert instance["patch"] == made.corpus.load("calc-ids").files.oracle_patch.decode()
    assert json.loads(instance["FAIL_TO_PASS"]) == ["test_calc.py::test_add"]
    assert json.loads(instance["PASS_TO_PASS"]) == ["test_calc.py::test_zero"]
    assert instance["created_at"].startswith("2024-01-04T00:00:00")
    data = json.loads(out.read_text())
    assert data["image"] == expected_image(INSTANCE) and data["log_parser"] == "parse_log_pytest"
    spec = make_test_spec(data)
    assert spec.FAIL_TO_PASS == ["test_calc.py::test_add"] and spec.eval_type == "pass_and_fail"
    # The test patch writes the fix's test file and deletes the test the fix deleted, against the base.
    tests = instance["test_patch"]
    assert "diff --git a/test_old.py b/test_old.py\ndeleted file mode 100644" in tests
    assert "+def test_add():" in tests
    checkout = clone_at(made.repo, made.base, tmp_path / "check")
    subprocess.run(["git", "apply", "-"], cwd=checkout, input=tests.encode(), check=True)
    assert (checkout / "test_calc.py").read_text() == TEST_V2 and not (checkout / "test_old.py").exists()
    # Warnings: one line per case and field, the skipped case saying why.
    lines = err.splitlines()
    assert "warning: calc-ids: setup.python: 3.11 is not part of an instance: build the instance's image with it" \
        in lines
    assert any(line.startswith("warning: calc-ids: setup.command: not run by the harness") for line in lines)
    assert "warning: calc-ids: max_turns: not checked: the harness grades the patch only" in lines
    assert any(line.startswith("warning: calc-ids: grader.timeout: 120s") for line in lines)
    assert any(line.startswith("warning: calc-exit: skipped: grader.fail_to_pass: none") for line in lines)
    assert len(lines) == len(set(lines))


def test_swebench_grading_resolves_the_oracle_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    made = build_export_corpus(tmp_path)
    out, _ = export(tmp_path, capsys)
    [instance] = load_swebench_dataset(str(out))
    assert evaluate(dict(instance), clone_at(made.repo, made.base, tmp_path / "gold"), instance["patch"], tmp_path)
    assert not evaluate(dict(instance), clone_at(made.repo, made.base, tmp_path / "none"), None, tmp_path)
    # A prediction that rewrites the tests to pass is graded on the restored tests, and fails.
    cheat = clone_at(made.repo, made.base, tmp_path / "cheat")
    (cheat / "test_calc.py").write_text("def test_add():\n    pass\n\n\ndef test_zero():\n    pass\n")
    patch = subprocess.run(["git", "diff"], cwd=cheat, capture_output=True, text=True, check=True).stdout
    subprocess.run(["git", "checkout", "-q", "--", "."], cwd=cheat, check=True)
    assert not evaluate(dict(instance), cheat, patch, tmp_path)


def test_one_case_by_name_and_the_repo_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    made = build_export_corpus(tmp_path)
    made.repo.git("remote", "add", "origin", "https://github.com/ada/calc.git")
    out = tmp_path / "one.jsonl"
    code, stdout, err = call(capsys, "export", "--format", "swe-bench", "--corpus", str(tmp_path / "evals"),
                             "--case", "calc-ids", "--out", str(out))
    assert code == ExitCode.OK and "calc-exit" not in err
    assert stdout == f"exported 1 case(s) to {out}\n"
    [instance] = load_swebench_dataset(str(out))
    assert instance["repo"] == "ada/calc" and instance["instance_id"] == "ada__calc-calc-ids"
    code, _, _ = call(capsys, "export", "--format", "swe-bench", "--corpus", str(tmp_path / "evals"),
                      "--case", "calc-ids", "--repo-name", "team/app", "--out", str(out))
    assert code == ExitCode.OK and load_swebench_dataset(str(out))[0]["instance_id"] == "team__app-calc-ids"


def test_nothing_exportable_writes_nothing_and_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_export_corpus(tmp_path)
    out = tmp_path / "none.jsonl"
    code, stdout, err = call(capsys, "export", "--format", "swe-bench", "--corpus", str(tmp_path / "evals"),
                             "--case", "calc-exit", "--out", str(out))
    assert code == ExitCode.FAILED and stdout == "" and not out.exists()
    assert err.splitlines()[0].startswith("warning: calc-exit: skipped: grader.fail_to_pass: none")
    assert err.splitlines()[-1] == f"runner: error: nothing exported: every case was skipped (1); {out} not written"


@pytest.mark.parametrize(("args", "message"), [
    (["--corpus", "{tmp}/nowhere", "--out", "{tmp}/x.jsonl"], "{tmp}/nowhere: corpus directory not found"),
    (["--corpus", "{tmp}/evals", "--out", "{tmp}"], "--out {tmp}: is a directory (give a FILE.jsonl)"),
    (["--corpus", "{tmp}/evals", "--out", "{tmp}/x.jsonl", "--case", "nope"], "--case nope: no such case in"),
    (["--corpus", "{tmp}/evals", "--out", "{tmp}/x.jsonl", "--repo", "{tmp}/evals"], "--repo {tmp}/evals: "),
    (["--corpus", "{tmp}/evals"], "--format swe-bench needs --out FILE.jsonl"),
    (["--corpus", "{tmp}/evals", "--out", "{tmp}/x.jsonl", "--jsonl", "-"], "--format exports the corpus's cases"),
])
def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str],
                               message: str) -> None:
    build_export_corpus(tmp_path)
    code, out, err = call(capsys, "export", "--format", "swe-bench", *[a.format(tmp=tmp_path) for a in args])
    assert code == ExitCode.BAD_INPUT and out == ""
    assert len(err.splitlines()) == 1 and message.format(tmp=tmp_path) in err
    assert not (tmp_path / "x.jsonl").exists()


def test_unknown_format_and_run_options(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(capsys, "export", "--format", "csv", "--out", str(tmp_path / "x"))
    assert code == ExitCode.BAD_INPUT and "--format" in err and "'csv' is not one of" in err
    code, _, err = call(capsys, "export", "--out", str(tmp_path / "x"))
    assert code == ExitCode.BAD_INPUT and "--out, --repo, --case and --repo-name go with --format" in err
    code, _, err = call(capsys, "export")
    assert code == ExitCode.BAD_INPUT and "missing argument RUN" in err



def test_a_test_patch_that_is_not_utf8_is_a_binary_patch(tmp_path: Path) -> None:
    made = build_export_corpus(tmp_path)
    stored = made.corpus.load("calc-ids")
    latin = "# café\n".encode("latin-1") + TEST_V2.encode()
    files = CaseFiles.of(stored.files.oracle_patch, {"test_calc.py": latin, "data/new.bin": b"\x00\xff\x00"})
    stored = replace(stored, files=files)
    patch = make_test_patch(stored, base_entries(made.repo.path, made.base, ["test_calc.py", "test_old.py",
                                                                         "data/new.bin"]))
    text = patch.decode("ascii")
    assert "GIT binary patch" in text and "diff --git a/data/new.bin b/data/new.bin\nnew file mode 100644" in text
    checkout = clone_at(made.repo, made.base, tmp_path / "check")
    subprocess.run(["git", "apply", "--binary", "-"], cwd=checkout, input=patch, check=True)
    assert (checkout / "test_calc.py").read_bytes() == latin
    assert (checkout / "data" / "new.bin").read_bytes() == b"\x00\xff\x00" and not (checkout / "test_old.py").exists()


def test_a_report_option_of_its_own_is_a_warning() -> None:
    case = make_case("0" * 40, "1" * 40, grader=Grader("pytest -rfE tests", network=True))
    assert [n.line() for n in carried_notes(case)] == [
        ("calc-add: grader.command: its own -r option replaces the -rA summary the log parser reads: tests it leaves "
        "out of the summary count as failed")]


def test_further_wordings_are_a_warning() -> None:
    case = make_case("0" * 40, "1" * 40, grader=Grader("pytest tests", network=True),
                     prompts=(Wording("terse", "Sums are wrong.\n"), Wording("story", "A total was off.\n")))
    assert [n.line() for n in carried_notes(case)] == [
        "calc-add: prompts: 2 further wording(s) left out: an instance holds one task text, the prompt"]
