"""`runner flakes`: labels, Wilson interval, pass@k and pass^k, exit codes and quarantine stubs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus import Corpus
from corpus.cli_support import run_cli
from runner.cli import cli
from runner.gate.flakes import FlakesOptions, detect_flakes
from runner.gate.pairing import case_index, load_trials
from runner.gate.quarantine import load_quarantine
from tests.testing.runbuilder import write_corpus, write_run

KINDS = {"cart": "blocking", "login": "critical", "docs": "advisory", "tax": "blocking"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    write_corpus(tmp_path / "evals", KINDS)
    write_run(tmp_path / "runs", "mixed", {"cart": "ppfpf", "login": "pppfp", "docs": "fffff", "tax": "ppepp"})
    write_run(tmp_path / "runs", "stable", {"cart": "ppppp", "login": "ppp", "docs": "fffef"})
    write_run(tmp_path / "runs", "short", {"cart": "ppppp", "tax": "pee"})
    return tmp_path


def flakes(root: Path, run: str, *extra: str) -> int:
    return run_cli(cli, "runner", ["flakes", str(root / "runs" / run), "--corpus", str(root / "evals"), *extra])


def test_labels_and_estimators(root: Path) -> None:
    report = detect_flakes(load_trials(root / "runs" / "mixed"), case_index(Corpus.open(root / "evals")), FlakesOptions(k=2))
    by_key = {c.key: c for c in report.cases}
    assert {k: c.stability for k, c in by_key.items()} == {
        "cart": "FLAKY", "docs": "STABLE_FAIL", "login": "FLAKY", "tax": "STABLE_PASS"}
    cart = by_key["cart"]
    # n=5, c=3, k=2: pass@2 = 1 - C(2,2)/C(5,2) = 0.9; pass^2 = C(3,2)/C(5,2) = 0.3.
    assert cart.pass_at_k == pytest.approx(0.9) and cart.pass_hat_k == pytest.approx(0.3)
    low, high = cart.wilson
    assert (round(low, 4), round(high, 4)) == (0.2307, 0.8824)
    tax = by_key["tax"]
    assert (tax.tally.passes, tax.tally.scored, tax.tally.errors) == (4, 4, 1)
    assert [c.key for c in report.cases if c.quarantine_candidate] == ["cart"]
    assert by_key["login"].critical and not by_key["login"].quarantine_candidate
    assert report.exit_code == 2


def test_text_report_and_exit_2(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert flakes(root, "mixed") == 2
    assert capsys.readouterr().out.splitlines() == [
        f"run mixed; criticality: the corpus {root / 'evals'} as it is today (--corpus)",
        "CASE   CLASS         PASSED  ERR  RATE  WILSON 95%  PASS@3  PASS^3  NOTE",
        "cart   FLAKY            3/5    0   60%  23%-88%      1.000   0.100  quarantine candidate",
        "docs   STABLE_FAIL      0/5    0    0%  0%-43%       0.000   0.000",
        "login  FLAKY            4/5    0   80%  38%-96%      1.000   0.400  critical, not quarantinable",
        "tax    STABLE_PASS      4/4    1  100%  51%-100%     1.000   1.000",
        "4 cases: 1 stable pass, 1 stable fail, 2 flaky (1 quarantine candidate)",
    ]


def test_stable_run_exits_0_and_short_run_refuses(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert flakes(root, "stable") == 0
    capsys.readouterr()
    assert flakes(root, "short", "--quarantine-out", str(root / "q.yaml")) == 4
    assert capsys.readouterr().out.splitlines()[-1] == "refused: fewer than 3 non-error trials for tax"
    assert not (root / "q.yaml").exists()


def test_bad_input_exits_3(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert flakes(root, "mixed", "--k", "0") == 3
    assert capsys.readouterr().err == "runner: error: --k must be at least 1, got 0\n"
    assert flakes(root, "absent") == 3
    assert run_cli(cli, "runner", ["flakes"]) == 3
    capsys.readouterr()


def test_k_larger_than_trials_shows_no_estimate(root: Path) -> None:
    report = detect_flakes(load_trials(root / "runs" / "stable"), {}, FlakesOptions(k=4))
    login = next(c for c in report.cases if c.key == "login")
    assert (login.pass_at_k, login.pass_hat_k) == (None, None)


def test_quarantine_stubs_are_written_then_block_the_gate(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = root / "q.yaml"
    assert flakes(root, "mixed", "--quarantine-out", str(out)) == 2
    assert capsys.readouterr().err == f"{out}: 1 stub entry added; fill in owner and expiry\n"
    [entry] = load_quarantine(out).entries
    assert (entry.case, entry.reason, entry.owner, entry.expiry) == (
        "cart", "flaky in run mixed: 3/5 passed", None, None)
    assert entry.problems() == ["no owner", "no expiry"]
    # A person fills the stub in; running again keeps it and adds nothing.
    out.write_text(out.read_text().replace("owner:\n", "owner: ada\n").replace("expiry:\n", "expiry: 2999-01-01\n"))
    assert flakes(root, "mixed", "--quarantine-out", str(out), "--json") == 2
    data = json.loads(capsys.readouterr().out)
    assert [c["key"] for c in data["cases"] if c["quarantine_candidate"]] == ["cart"]
    [entry] = load_quarantine(out).entries
    assert (entry.owner, entry.problems()) == ("ada", [])
    assert out.read_text().startswith("# Cases excluded from the gate while someone fixes them.")


def test_matrix_run_keys_by_variant(tmp_path: Path) -> None:
    run = write_run(tmp_path / "runs", "m", {"v1::cart": "ppppp", "v2::cart": "ppfpp"})
    report = detect_flakes(load_trials(run), {}, FlakesOptions())
    assert [(c.key, c.stability) for c in report.cases] == [("v1::cart", "STABLE_PASS"), ("v2::cart", "FLAKY")]
