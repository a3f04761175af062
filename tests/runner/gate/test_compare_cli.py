"""`runner compare` through the CLI: the report's exact lines, --json, and every exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from runner.cli import cli
from tests.runner.report.htmlkit import parse
from tests.testing.runbuilder import write_corpus, write_run

KINDS = {"cart": "blocking", "login": "critical", "docs": "advisory", "refund": "blocking",
         "search": "blocking", "net": "blocking", "tax": "blocking"}
BASE = {"cart": "ppppp", "login": "ppppp", "docs": "ppppp", "refund": "ppppp", "search": "fffff",
        "net": "ppppp", "tax": "ppppf"}
CAND = {"cart": "ppfpp", "login": "ppppp", "docs": "pfffp", "search": "ppppp", "net": "fffff",
        "tax": "pffff", "new-case": "ppppp"}
QUARANTINE = "quarantine:\n  - case: net\n    reason: network flake\n    owner: bob\n    expiry: 2999-01-01\n"


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    write_corpus(tmp_path / "evals", KINDS)
    (tmp_path / "q.yaml").write_text(QUARANTINE)
    write_run(tmp_path / "runs", "base", BASE, cost_usd=0.1)
    write_run(tmp_path / "runs", "cand", CAND, cost_usd=0.1, reasons={"cart": "grader: test_total failed"})
    return tmp_path


def compare(root: Path, *extra: str) -> int:
    return run_cli(cli, "runner", ["compare", "--baseline", str(root / "runs" / "base"), "--candidate",
                                   str(root / "runs" / "cand"), "--corpus", str(root / "evals"), *extra])


def test_report_leads_with_regressions(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert compare(runs, "--quarantine", str(runs / "q.yaml")) == 4
    lines = capsys.readouterr().out.splitlines()
    assert lines[:35] == [
        "baseline base (default) vs candidate cand (default), compared by case",
        f"policy and criticality: the corpus {runs / 'evals'} as it is today (--corpus)",
        "",
        "Regressions (2):",
        "  cart  [blocking]",
        "    baseline:  pass (5/5)",
        "    candidate: fail (4/5 passed): grader: test_total failed",
        "  docs  [advisory]",
        "    baseline:  pass (5/5)",
        "    candidate: fail (2/5 passed): grader: 1 test failed",
        "Lower pass rate (1):",
        "  tax  [blocking]",
        "    baseline:  fail (4/5 passed): grader: 1 test failed",
        "    candidate: fail (1/5 passed): grader: 1 test failed",
        "Fixes (1):",
        "  search  [blocking]",
        "    baseline:  fail (0/5 passed): grader: 1 test failed",
        "    candidate: pass (5/5)",
        "New cases (1):",
        "  new-case  [advisory: not in corpus]",
        "    candidate: pass (5/5)",
        "Missing from candidate (1):",
        "  refund  [blocking]",
        "    baseline:  pass (5/5)",
        "Quarantined (1):",
        "  net  [blocking]",
        "    baseline:  pass (5/5)",
        "    candidate: fail (0/5 passed): grader: 1 test failed",
        "    owner bob, until 2999-01-01: network flake",
        "",
        "Summary:",
        "  pass rate, blocking (4 cases): 70.0% -> 75.0% (+5.0 pp)",
        "  pass rate, advisory (1 case): 100.0% -> 40.0% (-60.0 pp)",
        "  error rate, default: 0.0% (0 of 30 trials) -> 0.0% (0 of 30)",
        "  duration p50: 13.0s -> 13.0s; p99: 15.0s -> 15.0s",
    ]
    assert "  cost: $3.0000 -> $3.0000; per trial $0.1000 -> $0.1000 (+0.0%) over 30/30 trials" in lines
    assert "  exact McNemar (one-sided): 1 regression, 1 fix, p = 0.75" in lines
    assert any(line.startswith("  power: 4 blocking cases x 5 trials") for line in lines)
    assert lines[-4:] == [
        "BLOCK: 1 blocking case of the baseline missing from the candidate: refund",
        ("WARN: advisory cases fell 60.0 pp (tolerance 2 pp), not significant with 1 case: docs "
        "(rule advisory-tolerance)"),
        ("WARN: 1 advisory case passed every baseline trial and not every candidate trial: docs "
        "(rule advisory-regression)"),
        "verdict: BLOCK (exit 4)"]


def test_json_shape(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert compare(runs, "--quarantine", str(runs / "q.yaml"), "--json") == 4
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"verdict", "exit_code", "refused", "findings", "baseline", "candidate", "keyed_by",
                         "regressions", "declined", "fixes", "new", "missing", "quarantined", "summary", "test",
                         "advisory_test", "power", "options", "policy_source", "triage", "behaviour",
                         "scorecard", "cannot_block", "held_out", "holdout"}
    assert data["cannot_block"] is None  # the corpus has blocking cases
    assert (data["verdict"], data["exit_code"], data["refused"]) == ("BLOCK", 4, False)
    assert data["findings"][0] == {"level": "BLOCK", "rule": "missing-case",
                                   "message": "1 blocking case of the baseline missing from the candidate: refund"}
    assert [(f["level"], f["rule"]) for f in data["findings"][1:]] == [
        ("WARN", "advisory-tolerance"), ("WARN", "advisory-regression")]
    assert [r["key"] for r in data["regressions"]] == ["cart", "docs"]
    assert data["regressions"][0] == {
        "key": "cart", "triage": None, "case_id": "cart", "policy": "blocking", "critical": False, "blocking": True,
        "corpus_status": "active", "quarantined_by": None, "risk_flags": [],
        "excerpts": {"baseline": None, "candidate": None},  # written without a grader log: nothing to quote
        "baseline": {"passes": 5, "fails": 0, "errors": 0, "passed": True, "rate": 1.0, "reason": ""},
        "candidate": {"passes": 4, "fails": 1, "errors": 0, "passed": False, "rate": 0.8,
                      "reason": "grader: test_total failed"}}
    assert [r["key"] for r in data["quarantined"]] == ["net"]
    assert data["test"]["cases"] == 4 and data["test"]["mcnemar_p"] == 0.75
    assert data["summary"]["blocking"] == {"cases": 4, "baseline": 0.7, "candidate": 0.75}
    assert data["power"]["cases"] == 4 and data["power"]["text"].startswith("4 blocking cases")


def test_exit_codes_pass_warn_block(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_corpus(tmp_path / "evals", {"a": "blocking", "b": "blocking", "c": "blocking", "d": "blocking"})
    same = {"a": "ppppp", "b": "ppppp", "c": "ppppp", "d": "ppppp"}
    write_run(tmp_path / "runs", "base", same)
    write_run(tmp_path / "runs", "same", same)
    write_run(tmp_path / "runs", "worse", {**same, "a": "pppff"})
    write_run(tmp_path / "runs", "gone", {"a": "ppppp", "b": "ppppp", "c": "ppppp"})

    def gate(candidate: str, *extra: str) -> int:
        return run_cli(cli, "runner", ["compare", "--baseline", str(tmp_path / "runs" / "base"), "--candidate",
                                       str(tmp_path / "runs" / candidate), "--corpus", str(tmp_path / "evals"),
                                       *extra])

    assert gate("same") == 0
    assert capsys.readouterr().out.splitlines()[-1] == "verdict: PASS (exit 0)"
    assert gate("worse") == 2
    assert capsys.readouterr().out.splitlines()[-1] == "verdict: WARN (exit 2)"
    assert gate("worse", "--tolerance", "15") == 0
    assert gate("gone") == 4
    capsys.readouterr()


def test_failures_turned_errors_warn_in_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_corpus(tmp_path / "evals", {"a": "blocking", "b": "blocking", "c": "blocking"})
    write_run(tmp_path / "runs", "base", {"a": "ppppf", "b": "ppppe", "c": "ppppp"})
    write_run(tmp_path / "runs", "cand", {"a": "ppppe", "b": "ppppe", "c": "ppppp"})
    argv = ["compare", "--baseline", str(tmp_path / "runs" / "base"), "--candidate", str(tmp_path / "runs" / "cand"),
            "--corpus", str(tmp_path / "evals")]
    assert run_cli(cli, "runner", argv) == 2
    lines = capsys.readouterr().out.splitlines()
    assert "  error rate, default: 6.7% (1 of 15 trials) -> 13.3% (2 of 15)" in lines
    warning = ("WARN: error rate of default rose from 6.7% (1 of 15 trials) to 13.3% (2 of 15): errored trials "
               "leave the pass rates, so failures turned errors look like passes; resume the candidate run to run "
               "them again")
    assert lines[-2:] == [warning, "verdict: WARN (exit 2)"]
    assert run_cli(cli, "runner", [*argv, "--json"]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["error_rate"] == [{
        "baseline_variant": "default", "candidate_variant": "default", "rose": True,
        "baseline": {"errors": 1, "trials": 15, "rate": pytest.approx(1 / 15)},
        "candidate": {"errors": 2, "trials": 15, "rate": pytest.approx(2 / 15)}}]
    assert [(f["level"], f["rule"]) for f in data["findings"]] == [("WARN", "error-rate")]
    assert (data["verdict"], data["exit_code"]) == ("WARN", 2)


def test_refusals_exit_4_with_the_reason(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_corpus(tmp_path / "evals", {"a": "blocking", "b": "blocking"})
    write_run(tmp_path / "runs", "base", {"a": "ppppp", "b": "ppppp"}, fingerprint="1" * 64)
    write_run(tmp_path / "runs", "short", {"a": "ppe", "b": "ppp"}, fingerprint="1" * 64)
    write_run(tmp_path / "runs", "moved", {"a": "ppppp", "b": "ppppp"}, fingerprint="2" * 64)
    write_run(tmp_path / "runs", "errored", {"a": "eee", "b": "eee"}, fingerprint="1" * 64)  # a CLI without its key

    def gate(candidate: str, *extra: str) -> int:
        return run_cli(cli, "runner", ["compare", "--baseline", str(tmp_path / "runs" / "base"), "--candidate",
                                       str(tmp_path / "runs" / candidate), "--corpus", str(tmp_path / "evals"),
                                       *extra])

    assert gate("short") == 4
    assert capsys.readouterr().out.splitlines()[-3:] == [  # the refusal first, and what else the runs show
        "BLOCK: refused: the candidate run has fewer than 3 non-error trials for a (2)",
        ("WARN: error rate of default rose from 0.0% (0 of 10 trials) to 16.7% (1 of 6): errored trials leave the "
        "pass rates, so failures turned errors look like passes; resume the candidate run to run them again"),
        "verdict: BLOCK (exit 4)"]
    assert gate("moved") == 4
    assert "refused: the runs were made on different datasets (111111111111 vs 222222222222)" in (
        capsys.readouterr().out)
    assert gate("moved", "--allow-dataset-change") == 0
    capsys.readouterr()
    for extra in ((), ("--json",), ("--html", str(tmp_path / "errored.html"))):
        assert gate("errored", *extra) == 4
        out = capsys.readouterr().out
        assert "refused: the candidate run has fewer than 3 non-error trials for a (0), b (0)" in out


def test_bad_input_exits_3(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert compare(runs, "--alpha", "2") == 3
    assert capsys.readouterr().err == "runner: error: --alpha must be between 0 and 0.5, got 2\n"
    assert compare(runs, "--alpha", "often") == 3
    assert "'often' is not a valid float" in capsys.readouterr().err
    assert run_cli(cli, "runner", ["compare", "--baseline", str(runs / "runs" / "base")]) == 3
    assert capsys.readouterr().err == "runner: error: Missing option '--candidate'.\n"
    assert run_cli(cli, "runner", ["compare", "--baseline", str(runs / "nowhere"), "--candidate",
                                   str(runs / "runs" / "cand"), "--corpus", str(runs / "evals")]) == 3
    assert capsys.readouterr().err == (f"runner: error: {runs / 'nowhere'}: not a run directory (nor the --name of "
                                       f"a run in {runs})\n")
    assert compare(runs, "--quarantine", str(runs / "missing.yaml")) == 3
    assert capsys.readouterr().err == f"runner: error: {runs / 'missing.yaml'}: file not found\n"
    (runs / "bad.yaml").write_text("quarantine: {case: a}\n")
    assert compare(runs, "--quarantine", str(runs / "bad.yaml")) == 3
    assert capsys.readouterr().err == f"runner: error: {runs / 'bad.yaml'}:1: quarantine: expected a list of entries\n"
    assert run_cli(cli, "runner", ["compare", "--baseline", str(runs / "runs" / "base"), "--candidate",
                                   str(runs / "runs" / "cand"), "--corpus", str(runs / "none")]) == 3
    capsys.readouterr()


def test_stub_quarantine_entries_block_until_filled(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (runs / "q.yaml").write_text("quarantine:\n  - case: net\n    reason: flaky\n    owner:\n    expiry:\n")
    assert compare(runs, "--quarantine", str(runs / "q.yaml")) == 4
    out = capsys.readouterr().out
    assert f"BLOCK: quarantine entry net ({runs / 'q.yaml'}:2): no owner, no expiry" in out.splitlines()
    assert "Quarantined" not in out


def test_commands_have_help() -> None:
    for name in ("compare", "flakes", "select"):
        command = cli.commands[name]
        assert command.help and all(p.help for p in command.params if hasattr(p, "help") and p.name != "run"
                                    and p.name != "paths")


def test_a_gate_over_advisory_cases_only_says_first_that_it_cannot_block(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    kinds = {"cart": "advisory", "docs": "advisory"}
    write_run(tmp_path / "runs", "base", {"cart": "ppppp", "docs": "ppppp"}, kinds=kinds)
    write_run(tmp_path / "runs", "cand", {"cart": "fffff", "docs": "fffff"}, kinds=kinds)
    argv = ["compare", "--baseline", str(tmp_path / "runs" / "base"), "--candidate", str(tmp_path / "runs" / "cand")]
    note = ("note: every case is advisory, so this gate can warn but never block on a drop or a regression (make "
            "the cases that must hold blocking: authoring set --policy blocking ID..., or --critical)")
    assert run_cli(cli, "runner", argv) == 2
    assert capsys.readouterr().out.splitlines()[0] == note
    assert run_cli(cli, "runner", [*argv, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["cannot_block"] == note
    assert run_cli(cli, "runner", [*argv, "--html", str(tmp_path / "c.html")]) == 2
    capsys.readouterr()
    page = parse((tmp_path / "c.html").read_text())
    assert page.ids["cannot-block"].text == note
    write_run(tmp_path / "runs", "gated", {"cart": "ppppp", "docs": "ppppp"}, kinds={**kinds, "cart": "blocking"})
    assert run_cli(cli, "runner", ["compare", "--baseline", str(tmp_path / "runs" / "gated"), "--candidate",
                                   str(tmp_path / "runs" / "gated")]) in (0, 2)
    assert "note: every case is advisory" not in capsys.readouterr().out
