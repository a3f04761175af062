"""The scriptable twins through click's CliRunner: exact output, exit codes, files on disk."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from authoring.cli import cli
from authoring.decisions import approve, undo
from authoring.draft import draft_from
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from corpus.fingerprint import case_fingerprint
from corpus.verdicts import RecordedVerdict, candidate_verdict, case_verdicts, write_candidate_verdict
from runner.verify.record import unverified
from tests.testing.shopfactory import Shop, tree

CLEAN = "Cart totals lose their cents: 1.25 + 2.50 comes to 3 instead of 3.75.\n"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Run through the real CLI edge (errors become one stderr line and an exit code)."""
    code = run_cli(cli, "authoring", args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_list_prints_the_queue_by_score(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["list", "--corpus", str(shop.corpus.root)], capsys)
    assert (code, err) == (0, "")
    assert out == (
        "SCORE  ID                SRC TEST  DATE        SUBJECT\n"
        " 0.92  cart-total-cents    1    1  2024-01-23  Fix cart total dropping cents\n"
        " 0.71  discount-percent    1    1  2024-01-28  Fix percent discounts\n"
        " 0.45  tax-of-zero         1    1  2024-01-31  Stop adding a unit of tax to every amount\n"
    )


def test_list_sorts_and_filters(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["list", "--corpus", str(shop.corpus.root), "--sort", "id", "--filter", "fix"], capsys)
    assert code == 0
    assert [line.split()[1] for line in out.splitlines()[1:]] == ["cart-total-cents", "discount-percent"]


def test_approve_writes_the_case(shop: Shop, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text(CLEAN)
    code, out, err = run(["approve", "cart-total-cents", "--corpus", str(shop.corpus.root), "--prompt-file",
                          str(prompt), "--id", "cart-cents", "--policy", "blocking", "--critical", "--tag", "money",
                          "--tag", "cart", "--grader-timeout", "60"], capsys)
    assert (code, out, err) == (0, "approved cart-total-cents as cases/cart-cents (critical: any regression blocks the gate)\n", "")
    case = shop.corpus.load("cart-cents", "cases").case
    assert (case.policy, case.critical, case.tags, case.grader.timeout, case.owner) == (
        "blocking", True, ("money", "cart"), 60, "team-shop")
    assert not shop.candidate("cart-total-cents").exists()


def test_approving_a_candidate_verify_found_not_valid_warns(shop: Shop, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text(CLEAN)
    write_candidate_verdict(shop.candidate("cart-total-cents"),
                            RecordedVerdict("ERROR", "baseline: no test ran: grader exited 1"))
    write_candidate_verdict(shop.candidate("discount-percent"), RecordedVerdict("INVALID", "baseline passes"))
    args = ["--corpus", str(shop.corpus.root), "--prompt-file", str(prompt)]
    code, out, err = run(["approve", "cart-total-cents", *args, "--id", "cart-cents"], capsys)
    assert (code, out) == (0, "approved cart-total-cents as cases/cart-cents (advisory: the gate warns on it, never blocks)\n")
    assert err == ("authoring: warning: runner verify found cart-total-cents ERROR (baseline: no test ran: grader "
                   "exited 1): a run scores it unproved; fix it (authoring set --cases cart-cents) and "
                   "runner verify --case cart-cents\n")
    code, _, err = run(["approve", "discount-percent", *args], capsys)
    assert code == 0
    assert err == ("authoring: warning: runner verify found discount-percent INVALID (baseline passes): "
                   "a run scores it unproved; fix it (authoring set --cases discount-percent) and "
                   "runner verify --case discount-percent\n")
    # an approval that changes what verify measures leaves the old verdict behind, and says nothing of it
    write_candidate_verdict(shop.candidate("tax-of-zero"), RecordedVerdict("ERROR", "grader timed out"))
    code, _, err = run(["approve", "tax-of-zero", *args, "--grader-timeout", "777"], capsys)
    assert (code, err) == (0, "")


def test_approve_names_an_interpreter(shop: Shop, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text(CLEAN)
    args = ["approve", "cart-total-cents", "--corpus", str(shop.corpus.root), "--prompt-file", str(prompt),
            "--setup-command", "pip install -e .", "--setup-python"]
    code, _, err = run([*args, "three"], capsys)
    assert (code, err) == (ExitCode.BAD_INPUT, "authoring: error: python: expected a version such as 3.8, found 'three'\n")
    assert shop.candidate("cart-total-cents").exists()
    code, _, _ = run([*args, "3.8"], capsys)
    assert code == 0
    setup = shop.corpus.load("cart-total-cents", "cases").case.setup
    assert (setup.command, setup.python) == ("pip install -e .", "3.8")


def test_approve_refuses_leaks_with_one_line_per_finding(shop: Shop, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text("Totals drop cents (#12).\nAdd round_half_up.\n")
    before = tree(shop.corpus.root)
    code, out, err = run(["approve", "cart-total-cents", "--corpus", str(shop.corpus.root),
                          "--prompt-file", str(prompt)], capsys)
    assert (code, out) == (1, "")
    assert err == (
        f"{prompt}:1:20: reference: an issue or pull request reference leads to the fix: '#12'\n"
        f"{prompt}:2:5: oracle-identifier: only the oracle's added lines in src/shop/cart.py use this name; "
        "it gives the fix away: 'round_half_up'\n"
        "authoring: error: approval refused: 2 leakage finding(s) in the prompt; "
        "fix them or override with a written justification\n"
    )
    assert tree(shop.corpus.root) == before


def test_approve_with_override(shop: Shop, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text("Add round_half_up.\n")
    code, out, _ = run(["approve", "cart-total-cents", "--corpus", str(shop.corpus.root), "--prompt-file",
                        str(prompt), "--override", "the helper is the requested API"], capsys)
    assert (code, out) == (0, "approved cart-total-cents as cases/cart-total-cents (advisory: the gate warns on it, never blocks)\n")
    assert shop.corpus.load("cart-total-cents", "cases").case.leak_override == "the helper is the requested API"


def test_approve_prompt_from_stdin(shop: Shop) -> None:
    result = CliRunner().invoke(cli, ["approve", "tax-of-zero", "--corpus", str(shop.corpus.root),
                                      "--prompt-file", "-"], input="Tax of zero must be zero.\n")
    assert (result.exit_code, result.output) == (0, "approved tax-of-zero as cases/tax-of-zero (advisory: the gate warns on it, never blocks)\n")


@pytest.mark.parametrize(("args", "message"), [
    (["approve", "nope", "--prompt-file", "{prompt}"], "no candidate 'nope'"),
    (["approve", "tax-of-zero", "--prompt-file", "{prompt}", "--id", "Bad Id"], "id 'Bad Id': must be lowercase"),
    (["approve", "tax-of-zero", "--prompt-file", "{prompt}", "--grader-timeout", "soon"],
     "Invalid value for '--grader-timeout': 'soon' is not a valid integer range."),
    (["approve", "tax-of-zero", "--prompt-file", "{prompt}", "--grader-timeout", "0"],
     "Invalid value for '--grader-timeout': 0 is not in the range x>=1."),
    (["approve", "tax-of-zero", "--prompt-file", "{tmp}/missing.md"], "missing.md': No such file or directory"),
    (["reject", "tax-of-zero", "--reason", " "], "a rejection needs a reason"),
    (["reject", "../x", "--reason", "r"], "candidates id '../x': must be lowercase letters"),
])
def test_usage_errors_are_one_line(shop: Shop, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   args: list[str], message: str) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text(CLEAN)
    args = [a.format(prompt=prompt, tmp=tmp_path) for a in args] + ["--corpus", str(shop.corpus.root)]
    code, out, err = run(args, capsys)
    assert (code, out) == (ExitCode.BAD_INPUT, "")
    assert err.startswith("authoring: error: ") and message in err and err.count("\n") == 1


def test_reject_records_the_rejection(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["reject", "tax-of-zero", "--corpus", str(shop.corpus.root), "--reason",
                          "grader depends on the clock"], capsys)
    fix = shop.fixes["tax-of-zero"][1]
    assert (code, err) == (0, "")
    assert out == f"rejected tax-of-zero (fix {fix[:12]}); it will not be proposed again\n"
    [rejection] = shop.corpus.rejections()
    assert (rejection.fix_commit, rejection.reason, rejection.candidate_id) == (
        fix, "grader depends on the clock", "tax-of-zero")
    assert rejection.patch_id and rejection.rejected_at
    assert not shop.candidate("tax-of-zero").exists()


def test_lint_reports_one_line_per_finding(shop: Shop, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(shop.corpus.root)
    prompt = tmp_path / "prompt.md"
    for candidate, text, override in [("cart-total-cents", "See #12; add round_half_up.\n", "reviewed"),
                                      ("discount-percent", "Percent discounts subtract the percent.\n", None)]:
        prompt.write_text(text)
        assert run(["approve", candidate, "--corpus", root, "--prompt-file", str(prompt)]
                   + (["--override", override] if override else []), capsys)[0] == 0
    code, out, err = run(["lint", "--corpus", root], capsys)
    assert (code, out, err) == (0, ("2 active case(s), no findings (2 leakage finding(s) justified by "
                                   "leak_override)\n"), "")
    case_yaml = shop.corpus.root / "cases" / "discount-percent" / "case.yaml"
    case_yaml.write_text(case_yaml.read_text().replace(
        "Percent discounts subtract the percent.", "Percent discounts subtract the percent; see PROJ-9 or ask "
        "dana@acme.io."))
    code, out, err = run(["lint", "--corpus", root], capsys)
    assert code == 1
    assert out == (
        "cases/discount-percent/case.yaml: prompt 1:45: reference: a ticket reference leads to the fix: 'PROJ-9'\n"
        "cases/discount-percent/case.yaml: prompt 1:59: email: an email address is personal data: 'dana@acme.io'\n"
    )
    assert err == "authoring: error: 2 finding(s) in 1 of 2 active case(s)\n"


def test_lint_of_an_empty_corpus_passes(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["lint", "--corpus", str(shop.corpus.root)], capsys) == (0, "0 active case(s), no findings\n", "")


def test_missing_corpus_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["list", "--corpus", str(tmp_path / "nope")], capsys)
    assert (code, err) == (ExitCode.BAD_INPUT, (f"authoring: error: {tmp_path / 'nope'}: corpus directory not found "
                              "(use --corpus DIR)\n"))


def test_review_of_a_missing_corpus_fails_before_any_screen(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    code, out, err = run(["review", "--corpus", str(tmp_path / "empty")], capsys)
    assert (code, out) == (ExitCode.BAD_INPUT, "")
    assert err == f"authoring: error: {tmp_path / 'empty' / 'corpus.yaml'}: file not found: not a corpus directory\n"


def test_every_command_and_option_has_help() -> None:
    assert cli.help
    for name, command in cli.commands.items():
        assert (command.help or "").strip(), name
        for param in command.params:
            if isinstance(param, click.Option):
                assert param.help, f"{name} {param.opts[0]}"
        result = CliRunner().invoke(cli, [name, "--help"])
        assert result.exit_code == 0 and result.output.startswith(f"Usage: cli {name}")


def test_an_approval_keeps_the_candidates_verdict_when_it_changed_nothing_verify_measures(
        shop: Shop, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text(CLEAN)
    valid = RecordedVerdict("VALID", "", "candidate-fingerprint", repeats=2, verified_at="2026-01-01T00:00:00+00:00")
    write_candidate_verdict(shop.candidate("cart-total-cents"), valid)
    write_candidate_verdict(shop.candidate("tax-of-zero"), valid)
    args = ["--corpus", str(shop.corpus.root), "--prompt-file", str(prompt)]
    code, _, err = run(["approve", "cart-total-cents", *args, "--id", "cart-cents", "--policy", "blocking"], capsys)
    assert (code, err) == (0, "")
    approved = shop.corpus.load("cart-cents", "cases")
    kept = case_verdicts(shop.corpus.root)["cart-cents"]
    assert (kept.verdict, kept.repeats, kept.verified_at) == ("VALID", 2, "2026-01-01T00:00:00+00:00")
    assert kept.case_fingerprint == case_fingerprint(approved.case, approved.files)
    assert unverified(shop.corpus, [approved]) == []  # runner run does not call it unproved
    # a grader edit changes what verify measured: that verdict is not carried
    code, _, _ = run(["approve", "tax-of-zero", *args, "--grader-timeout", "777"], capsys)
    assert code == 0 and "tax-of-zero" not in case_verdicts(shop.corpus.root)
    write_candidate_verdict(shop.candidate("discount-percent"), valid)
    stored = shop.corpus.load("discount-percent", "candidates")
    decision = approve(shop.corpus, "discount-percent",
                       replace(draft_from(stored.case, shop.corpus.config.defaults), prompt=CLEAN))
    assert case_verdicts(shop.corpus.root)["discount-percent"].verdict == "VALID"
    undo(shop.corpus, decision)  # undone, the case's entry goes with the case; the candidate has its own again
    assert "discount-percent" not in case_verdicts(shop.corpus.root)
    assert candidate_verdict(shop.candidate("discount-percent")) == valid
    assert set(case_verdicts(shop.corpus.root)) == {"cart-cents"}
