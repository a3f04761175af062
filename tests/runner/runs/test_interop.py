"""`runner import` and `runner export`: per-trial JSONL rows made elsewhere become a run that compare, flakes and
report read, and a run goes back out as such rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from corpus.fsutil import FILE_MODE
from runner.cli import cli
from runner.runs.load import load_run
from tests.testing.fulldisk import FILLER, contents, full_disk
from tests.testing.runbuilder import write_run


def rows(path: Path, outcomes: dict[str, str], *, cost: float = 0.01, critical: tuple[str, ...] = ()) -> Path:
    lines = []
    for case, letters in outcomes.items():
        for trial, letter in enumerate(letters, start=1):
            lines.append({"case_id": case, "trial": trial, "passed": letter == "p", "critical": case in critical,
                          "cost_usd": cost,
                          "trajectory": [{"tool": "get_order", "args": {"id": trial}},
                                         {"tool": "bash", "args": {"command": "ls"}, "exit_code": 0}]})
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_import_compare_flakes_and_export(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = rows(tmp_path / "baseline.jsonl", {"refund-lookup": "ppp", "cancel-order": "ppp", "faq": "ppp"},
                critical=("refund-lookup",))
    cand = rows(tmp_path / "candidate.jsonl", {"refund-lookup": "pfp", "cancel-order": "ppp", "faq": "ppp"},
                cost=0.02, critical=("refund-lookup",))
    for source, out in ((base, "b"), (cand, "c")):
        code, out_text, err = call(capsys, "import", str(source), "--out", str(tmp_path / out))
        assert code == ExitCode.OK, err
        assert out_text == f"imported {source} as run {tmp_path / out}\n"
    run = load_run(tmp_path / "c")
    assert len(run.trials) == 9 and run.manifest.cases_meta["refund-lookup"].critical
    assert run.manifest.cases_meta["faq"].policy == "blocking" and run.trials[0].cost_usd == 0.02
    code, out, _ = call(capsys, "compare", "--baseline", str(tmp_path / "b"), "--candidate", str(tmp_path / "c"))
    assert code == ExitCode.BLOCK and "critical case refund-lookup passed all 3 baseline trials" in out
    assert "cost" in out
    code, out, _ = call(capsys, "flakes", str(tmp_path / "c"))
    assert code == ExitCode.WARN and "refund-lookup  FLAKY" in out
    code, out, _ = call(capsys, "export", str(tmp_path / "c"), "--jsonl", "-")
    exported = [json.loads(line) for line in out.splitlines()]
    first = next(r for r in exported if r["case_id"] == "refund-lookup" and r["trial"] == 2)
    assert first == {"case_id": "refund-lookup", "variant": "imported", "trial": 2, "passed": False,
                     "outcome": "fail", "reason": "imported: failed", "critical": True, "cost_usd": 0.02,
                     "tokens": None, "trajectory": [{"tool": "get_order", "args": {"id": 2}},
                                                    {"tool": "bash", "args": {"command": "ls"}, "exit_code": 0}],
                     "dataset_fingerprint": run.manifest.dataset_fingerprint, "policy": "blocking",
                     "title": "refund-lookup", "owner": None}
    # the export imports back to the same outcomes
    (tmp_path / "again.jsonl").write_text(out)
    assert call(capsys, "import", str(tmp_path / "again.jsonl"), "--out", str(tmp_path / "again"))[0] == 0
    assert [(t.case_id, t.trial, t.outcome) for t in load_run(tmp_path / "again").trials] == [
        (t.case_id, t.trial, t.outcome) for t in run.trials]


def test_an_exported_run_imported_again_compares_with_itself(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    original = write_run(tmp_path / "runs", "orig", {"cart": "ppp", "login": "pfep", "docs": "fff"},
                         kinds={"cart": "critical", "login": "blocking", "docs": "advisory"})
    code, out, _ = call(capsys, "export", str(original), "--jsonl", str(tmp_path / "rows.jsonl"))
    assert code == ExitCode.OK
    code, _, err = call(capsys, "import", str(tmp_path / "rows.jsonl"), "--out", str(tmp_path / "again"),
                        "--variant", "default")
    assert code == ExitCode.OK, err
    before, after = load_run(original), load_run(tmp_path / "again")
    assert after.manifest.dataset_fingerprint == before.manifest.dataset_fingerprint
    assert after.manifest.cases_meta == before.manifest.cases_meta  # policy, criticality, title and owner
    assert [(t.variant, t.case_id, t.trial, t.outcome, t.reason) for t in after.trials] == [
        (t.variant, t.case_id, t.trial, t.outcome, t.reason) for t in before.trials]
    code, out, _ = call(capsys, "compare", "--baseline", str(original), "--candidate", str(tmp_path / "again"))
    assert "refused" not in out and "different datasets" not in out and "verdict: " in out
    assert code in (ExitCode.OK, ExitCode.WARN), out
    rows_text = (tmp_path / "rows.jsonl").read_text()
    (tmp_path / "mixed.jsonl").write_text(rows_text.replace(before.manifest.dataset_fingerprint, "0" * 64, 1))
    code, _, err = call(capsys, "import", str(tmp_path / "mixed.jsonl"), "--out", str(tmp_path / "mixed"))
    assert code == ExitCode.BAD_INPUT and "the rows name 2 dataset fingerprints" in err


def test_an_export_to_a_file_says_what_it_wrote_and_where(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    run = write_run(tmp_path / "runs", "orig", {"cart": "ppp", "login": "pf"})
    target = tmp_path / "out" / "rows.jsonl"
    code, out, err = call(capsys, "export", str(run), "--jsonl", str(target))
    assert (code, err) == (ExitCode.OK, "")
    assert out == f"exported 5 trial(s) of run {run} as JSONL rows to {target}\n"
    assert len(target.read_text().splitlines()) == 5
    code, out, err = call(capsys, "export", str(run), "--json", str(tmp_path / "frozen.json"))
    assert (code, err) == (ExitCode.OK, "")
    assert out == f"exported 5 trial(s) of run {run} as one frozen file to {tmp_path / 'frozen.json'}\n"
    code, out, _ = call(capsys, "export", str(run), "--jsonl", "-")
    assert code == ExitCode.OK and len(out.splitlines()) == 5 and "exported" not in out


@pytest.mark.parametrize(("line", "message"), [
    ('{"case_id": "Bad Id", "passed": true}', "case_id 'Bad Id' is not a case id (lower-case letters, digits and '-')"),
    ('{"case_id": "a", "passed": "yes"}', "passed must be true or false, got 'yes'"),
    ('{"case_id": "a", "passed": true, "trial": 0}', "trial must be a number from 1, got 0"),
    ('{"case_id": "a", "passed": true, "cost_usd": -1}', "cost_usd must be a number >= 0, got -1"),
    ("not json", "not JSON (Expecting value)"),
    ('{"case_id": "a", "passed": true, "outcome": "fail"}', "outcome 'fail' disagrees with passed True"),
    ('{"case_id": "a", "passed": false, "outcome": "maybe"}', "outcome must be one of pass, fail, error, got 'maybe'"),
    ('{"case_id": "a", "passed": true, "policy": "strict"}', "policy must be one of advisory, blocking, got 'strict'"),
    ('{"case_id": "a", "passed": true, "title": 3}', "title must be a string, got 3"),
])
def test_a_bad_row_is_one_line_naming_the_file_and_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       line: str, message: str) -> None:
    source = tmp_path / "rows.jsonl"
    source.write_text('{"case_id": "a", "passed": true}\n' + line + "\n")
    code, _, err = call(capsys, "import", str(source), "--out", str(tmp_path / "run"))
    assert code == ExitCode.BAD_INPUT and err == f"runner: error: {source}:2: {message}\n"
    assert list(tmp_path.iterdir()) == [source]  # no run directory, no staging folder


def test_import_refuses_an_existing_directory_and_duplicates(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "rows.jsonl"
    source.write_text('{"case_id": "a", "trial": 1, "passed": true}\n{"case_id": "a", "trial": 1, "passed": false}\n')
    code, _, err = call(capsys, "import", str(source), "--out", str(tmp_path / "run"))
    assert code == ExitCode.BAD_INPUT and err == f"runner: error: {source}:2: trial 1 of a is given twice\n"
    (tmp_path / "run").mkdir()
    code, _, err = call(capsys, "import", str(source), "--out", str(tmp_path / "run"))
    assert code == ExitCode.BAD_INPUT and err == f"runner: error: --out {tmp_path / 'run'}: already exists\n"


def harbor_trial(job: Path, task: str, index: int, reward: float | None, *, started: str, cost: float = 0.05,
                 exception: str | None = None) -> None:
    trial = job / f"{task}__{index:04d}"
    trial.mkdir(parents=True)
    data = {
        "id": f"00000000-0000-0000-0000-{index:012d}", "task_name": task, "trial_name": trial.name,
        "trial_uri": f"file://{trial}", "task_checksum": "abc",
        "agent_info": {"name": "claude-code", "version": "2.1", "model_info": {"name": "claude-sonnet-4-5",
                                                                              "provider": "anthropic"}},
        "agent_result": {"n_input_tokens": 12000, "n_cache_tokens": 9000, "n_output_tokens": 800,
                         "cost_usd": cost},
        "verifier_result": None if reward is None else {"rewards": {"reward": reward}},
        "exception_info": None if exception is None else {
            "exception_type": "AgentTimeoutError", "exception_message": exception, "exception_traceback": "",
            "occurred_at": started},
        "started_at": started, "finished_at": started,
    }
    (trial / "result.json").write_text(json.dumps(data))


def test_a_harbor_job_directory_imports_as_a_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    job = tmp_path / "jobs" / "2026-11-30__12-00-00"
    rewards = {"fix_login": [1.0, 1.0, 0.0], "Tax Rounding": [0.0, 0.0, None]}
    for task, outcomes in rewards.items():
        for number, reward in enumerate(outcomes):
            harbor_trial(job, task, number + (10 if task == "fix_login" else 20), reward,
                         started=f"2026-11-30T12:0{number}:00", exception=None if reward is not None else "timed out")
    (job / "result.json").write_text("{}")  # the job's own summary sits beside the trials
    code, out, err = call(capsys, "import", str(job), "--out", str(tmp_path / "run"))
    assert code == ExitCode.OK, err
    run = load_run(tmp_path / "run")
    assert [v.name for v in run.manifest.config.variants] == ["claude-code-claude-sonnet-4-5"]
    assert [(t.case_id, t.trial, t.outcome, t.reason) for t in run.trials] == [
        ("fix-login", 1, "pass", "harbor: reward 1"), ("fix-login", 2, "pass", "harbor: reward 1"),
        ("fix-login", 3, "fail", "harbor: reward 0"), ("tax-rounding", 1, "fail", "harbor: reward 0"),
        ("tax-rounding", 2, "fail", "harbor: reward 0"),
        ("tax-rounding", 3, "error", "harbor: AgentTimeoutError: timed out")]
    assert {(t.cost_usd, t.tokens) for t in run.trials} == {(0.05, 12800)}
    code, out, _ = call(capsys, "flakes", str(tmp_path / "run"))
    # the errored trial leaves tax-rounding two scored trials: too few to label, as for any run
    assert code == ExitCode.BLOCK and out.splitlines()[-1] == "refused: fewer than 3 non-error trials for tax-rounding"
    broken = tmp_path / "broken"
    harbor_trial(broken, "x", 1, None, started="2026-11-30T12:00:00")
    code, _, err = call(capsys, "import", str(broken), "--out", str(tmp_path / "run2"))
    assert code == ExitCode.BAD_INPUT and err == (
        f"runner: error: {broken / 'x__0001' / 'result.json'}: neither a verifier reward nor an exception: the "
        "trial's outcome is unknown\n")
    assert not (tmp_path / "run2").exists()


def test_an_import_that_fills_the_disk_leaves_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = rows(tmp_path / "rows.jsonl", {f"case-{i}": "pfp" for i in range(40)})
    with full_disk(tmp_path / "disk", size="256k", free_pages=8) as disk:
        code, out, err = call(capsys, "import", str(source), "--out", str(disk / "run"))
        assert code == ExitCode.FAILED and out == ""
        assert err.startswith(f"runner: error: cannot write {disk / 'run'}: No space left on device")
        assert err.count("\n") == 1 and contents(disk) == [FILLER]  # no run, no staging directory
    made = tmp_path / "run"
    code, out, _ = call(capsys, "import", str(source), "--out", str(made))
    assert code == ExitCode.OK and len(load_run(made).trials) == 120  # every digest matches what was written
    result = made / "imported" / "case-3" / "2" / "result.json"
    assert json.loads(result.read_text())["outcome"] == "fail" and result.stat().st_mode & 0o777 == FILE_MODE
