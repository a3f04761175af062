"""`authoring approve` and `authoring set` flags for allowed_paths, risk_flags, invariants and invariant_policy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authoring.cli import cli
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from corpus.model import Invariant
from tests.testing.shopfactory import Shop, tree

CLEAN = "Cart totals lose their cents: 1.25 + 2.50 comes to 3 instead of 3.75.\n"
IMPORTS = "imports=python -c 'import shop'"
FLOOR = "empty-total@30: PYTHONPATH=src python -c 'from shop.cart import total; assert total([]) == 0'"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(cli, "authoring", args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def approve_args(shop: Shop, tmp_path: Path, *extra: str) -> list[str]:
    prompt = tmp_path / "prompt.md"
    prompt.write_text(CLEAN)
    return ["approve", "cart-total-cents", "--corpus", str(shop.corpus.root), "--prompt-file", str(prompt), *extra]


def test_approve_sets_the_scorecard_fields(shop: Shop, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(approve_args(shop, tmp_path, "--allowed-path", "src/shop/", "--allowed-path",
                                      "!src/shop/vendored/", "--risk-flag", "payments", "--risk-flag", "auth",
                                      "--invariant", IMPORTS, "--invariant", FLOOR, "--policy", "blocking",
                                      "--invariant-policy", "blocking"), capsys)
    assert (code, out, err) == (0, "approved cart-total-cents as cases/cart-total-cents (blocking: a significant drop blocks the gate)\n", "")
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert case.allowed_paths == ("src/shop/", "!src/shop/vendored/")
    assert case.risk_flags == ("payments", "auth")
    assert case.invariants == (
        Invariant("imports", "python -c 'import shop'"),
        Invariant("empty-total", "PYTHONPATH=src python -c 'from shop.cart import total; assert total([]) == 0'", 30))
    assert (case.policy, case.invariant_policy) == ("blocking", "blocking")


def test_approve_replaces_or_clears_the_candidates_lists(shop: Shop, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    path = shop.candidate("cart-total-cents") / "case.yaml"
    path.write_text(path.read_text() + "allowed_paths: [src/]\nrisk_flags: [money]\ninvariants:\n"
                    "  - {name: old, command: 'true'}\n")
    assert run(approve_args(shop, tmp_path, "--allowed-path", "src/shop/cart.py", "--clear-risk-flags",
                            "--clear-invariants"), capsys)[0] == 0
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert (case.allowed_paths, case.risk_flags, case.invariants) == (("src/shop/cart.py",), (), ())
    text = (shop.corpus.root / "cases" / "cart-total-cents" / "case.yaml").read_text()
    assert "risk_flags" not in text and "invariants" not in text


def test_approve_without_the_flags_keeps_the_candidates(shop: Shop, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = shop.candidate("cart-total-cents") / "case.yaml"
    path.write_text(path.read_text() + "risk_flags: [money]\ninvariants:\n  - {name: old, command: 'true'}\n")
    assert run(approve_args(shop, tmp_path), capsys)[0] == 0
    case = shop.corpus.load("cart-total-cents", "cases").case
    assert (case.risk_flags, case.invariants) == (("money",), (Invariant("old", "true"),))


@pytest.mark.parametrize(("extra", "message"), [
    (["--invariant", "python -c 'x=1'"],
     ("--invariant \"python -c 'x=1'\": the name must be up to 64 letters, digits, '.', '_' or '-', found "
     "\"python -c 'x\" (expected NAME: COMMAND, NAME=COMMAND or NAME@SECONDS: COMMAND)")),
    (["--invariant", "no separator"],
     ("--invariant 'no separator': expected NAME: COMMAND, NAME=COMMAND or NAME@SECONDS: COMMAND, found "
     "'no separator'")),
    (["--invariant", "imports="], "--invariant 'imports=': invariant 'imports' has no command"),
    (["--invariant", "imports@0=true"], ("--invariant 'imports@0=true': invariant 'imports': the timeout must be "
                                        "at least 1 second")),
    (["--invariant", "imports@1m=true"], ("--invariant 'imports@1m=true': invariant 'imports': the timeout after "
                                         "'@' must be a whole number of seconds, found '1m'")),
    (["--invariant", "a=true", "--invariant", "a=false"], "--invariant: invariant 'a' is given twice"),
    (["--risk-flag", "Payments"], ("--risk-flag 'Payments': expected a lowercase label of letters, digits, '-' or "
                                  "'_' (at most 40), such as payments")),
    (["--allowed-path", "../elsewhere/"], "--allowed-path '../elsewhere/': must stay inside the repository"),
    (["--allowed-path", "!"], ("--allowed-path '!': expected a path glob such as src/shop/ or "
                              "'!src/shop/vendored/'")),
    (["--invariant", "a=true", "--invariant-policy", "blocking"],
     "--invariant-policy blocking: needs the case's policy (--policy) to be blocking (it is advisory)"),
    (["--policy", "blocking", "--invariant-policy", "blocking"],
     "--invariant-policy blocking: needs at least one invariant (--invariant)"),
    (["--invariant-policy", "strict"],
     "Invalid value for '--invariant-policy': 'strict' is not one of 'advisory', 'blocking'."),
])
def test_approve_refuses_bad_values_in_one_line(shop: Shop, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                extra: list[str], message: str) -> None:
    args = approve_args(shop, tmp_path, *extra)
    before = tree(shop.corpus.root)
    assert run(args, capsys) == (ExitCode.BAD_INPUT, "", f"authoring: error: {message}\n")
    assert tree(shop.corpus.root) == before


def test_set_adds_to_the_lists_and_replaces_an_invariant_by_name(shop: Shop,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    path = shop.candidate("cart-total-cents") / "case.yaml"
    path.write_text(path.read_text() + "risk_flags:\n  - money  # the cart's totals\ninvariants:\n"
                    "  - {name: imports, command: 'true'}\n  - {name: kept, command: 'true'}\n")
    code, out, err = run(["set", "cart-total-cents", "discount-percent", "--corpus", str(shop.corpus.root),
                          "--risk-flag", "payments", "--allowed-path", "src/shop/", "--invariant", IMPORTS,
                          "--invariant", FLOOR], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        ("candidates/cart-total-cents: allowed_paths (none) -> src/shop/; risk_flags money -> money, payments; "
        "invariants 'imports: true', 'kept: true' -> \"imports: python -c 'import shop'\", 'kept: true', "
        "\"empty-total@30: PYTHONPATH=src python -c 'from shop.cart import total; assert total([]) == 0'\""),
        ("candidates/discount-percent: allowed_paths (none) -> src/shop/; risk_flags (none) -> payments; "
        "invariants (none) -> \"imports: python -c 'import shop'\", "
        "\"empty-total@30: PYTHONPATH=src python -c 'from shop.cart import total; assert total([]) == 0'\""),
        "changed 2 of 2 candidates",
    ]
    case = shop.corpus.load("cart-total-cents", "candidates").case
    assert [invariant.name for invariant in case.invariants] == ["imports", "kept", "empty-total"]
    assert case.invariants[0].command == "python -c 'import shop'"
    assert case.risk_flags == ("money", "payments")
    assert "  - money  # the cart's totals\n" in path.read_text()  # appended to the list as written


def test_set_clears_and_sets_the_invariant_policy(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(shop.corpus.root)
    code, out, _ = run(["set", "tax-of-zero", "--corpus", root, "--policy", "blocking", "--invariant", IMPORTS,
                        "--invariant-policy", "blocking", "--risk-flag", "tax", "--json"], capsys)
    assert code == 0
    fields = json.loads(out)["changes"][0]["fields"]
    assert fields["invariants"] == {"before": [], "after": [{"name": "imports", "command": "python -c 'import shop'",
                                                             "timeout": 120}]}
    assert fields["invariant_policy"] == {"before": "advisory", "after": "blocking"}
    case = shop.corpus.load("tax-of-zero", "candidates").case
    assert (case.policy, case.invariant_policy, case.risk_flags) == ("blocking", "blocking", ("tax",))
    code, _, _ = run(["set", "tax-of-zero", "--corpus", root, "--clear-invariants", "--clear-risk-flags",
                      "--invariant-policy", "advisory"], capsys)
    assert code == 0
    case = shop.corpus.load("tax-of-zero", "candidates").case
    assert (case.invariants, case.invariant_policy, case.risk_flags) == ((), "advisory", ())
    text = (shop.candidate("tax-of-zero") / "case.yaml").read_text()
    assert "invariant" not in text and "risk_flags" not in text


@pytest.mark.parametrize(("args", "message"), [
    (["--invariant-policy", "blocking", "--invariant", "a=true"],
     ("candidates/cart-total-cents: invariant_policy blocking needs policy blocking (give --policy blocking, or "
     "--invariant-policy advisory)")),
    (["--invariant-policy", "blocking", "--policy", "blocking"],
     ("candidates/cart-total-cents: invariant_policy blocking needs at least one invariant (give --invariant, or "
     "--invariant-policy advisory)")),
    (["--invariant", "a b=true"], ("--invariant 'a b=true': the name must be up to 64 letters, digits, '.', '_' or "
                                  "'-', found 'a b' (expected NAME: COMMAND, NAME=COMMAND or NAME@SECONDS: COMMAND)")),
    (["--risk-flag", "two words"], ("--risk-flag 'two words': expected a lowercase label of letters, digits, '-' or "
                                   "'_' (at most 40), such as payments")),
    (["--allowed-path", "src/../../etc"], "--allowed-path 'src/../../etc': must stay inside the repository"),
])
def test_set_refuses_bad_values_in_one_line(shop: Shop, capsys: pytest.CaptureFixture[str], args: list[str],
                                            message: str) -> None:
    before = tree(shop.corpus.root)
    code, out, err = run(["set", "--all", "--corpus", str(shop.corpus.root), *args], capsys)
    assert (code, out, err) == (ExitCode.BAD_INPUT, "", f"authoring: error: {message}\n")
    assert tree(shop.corpus.root) == before


def test_set_refuses_clearing_what_a_blocking_invariant_policy_needs(shop: Shop,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    root = str(shop.corpus.root)
    assert run(["set", "tax-of-zero", "--corpus", root, "--policy", "blocking", "--invariant", IMPORTS,
                "--invariant-policy", "blocking"], capsys)[0] == 0
    before = tree(shop.corpus.root)
    code, _, err = run(["set", "tax-of-zero", "--corpus", root, "--clear-invariants"], capsys)
    assert (code, err) == (ExitCode.BAD_INPUT, ("authoring: error: candidates/tax-of-zero: invariant_policy blocking "
                                               "needs at least one invariant (give --invariant, or "
                                               "--invariant-policy advisory)\n"))
    code, _, err = run(["set", "tax-of-zero", "--corpus", root, "--policy", "advisory"], capsys)
    assert code == ExitCode.BAD_INPUT and "needs policy blocking" in err
    assert tree(shop.corpus.root) == before
