"""`authoring set`: fields set on many candidates or cases at once, through the real CLI edge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from authoring.bulk import Change, Changes, set_fields
from authoring.cli import cli
from corpus import Corpus
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from tests.testing.casefactory import build_corpus
from tests.testing.shopfactory import Shop, tree

IDS = ("cart-total-cents", "discount-percent", "tax-of-zero")


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(cli, "authoring", args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def case_yaml(shop: Shop, case_id: str) -> Path:
    return shop.candidate(case_id) / "case.yaml"


def test_set_on_named_candidates_changes_only_them(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    untouched = case_yaml(shop, "tax-of-zero").read_bytes()
    path = case_yaml(shop, "cart-total-cents")
    path.write_text("# reviewed by ada\n" + path.read_text())
    code, out, err = run(["set", "cart-total-cents", "discount-percent", "--corpus", str(shop.corpus.root),
                          "--setup-python", "3.11", "--setup-command", "pip install -e .", "--tag", "slow"], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        ("candidates/cart-total-cents: setup.command (none) -> 'pip install -e .'; setup.python (none) -> '3.11'; "
        "tags (none) -> slow"),
        ("candidates/discount-percent: setup.command (none) -> 'pip install -e .'; setup.python (none) -> '3.11'; "
        "tags (none) -> slow"),
        "changed 2 of 2 candidates",
    ]
    for case_id in IDS[:2]:
        case = shop.corpus.load(case_id, "candidates").case
        assert (case.setup.command, case.setup.python, case.tags) == ("pip install -e .", "3.11", ("slow",))
    assert case_yaml(shop, "tax-of-zero").read_bytes() == untouched
    assert path.read_text().startswith("# reviewed by ada\n")
    mined = shop.corpus.load("cart-total-cents", "candidates").case.mined
    assert mined is not None  # the rest is intact, and the setup now says who chose it
    assert mined.setup_origin == ("python 3.11: set by the author", "command: set by the author")


def test_the_edit_touches_no_other_line(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    path = case_yaml(shop, "discount-percent")
    before = path.read_text().splitlines()
    code, _, _ = run(["set", "discount-percent", "--corpus", str(shop.corpus.root), "--grader-timeout", "900"],
                     capsys)
    assert code == 0
    after = path.read_text().splitlines()
    changed = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
    assert changed == [("  timeout: 120", "  timeout: 900")]


def test_all_candidates_and_a_second_run_changes_nothing(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["set", "--all", "--corpus", str(shop.corpus.root), "--policy", "blocking", "--owner", "bob",
            "--setup-timeout", "1200"]
    code, out, _ = run(args, capsys)
    assert code == 0 and out.splitlines()[-1] == "changed 3 of 3 candidates"
    for case_id in IDS:
        case = shop.corpus.load(case_id, "candidates").case
        assert (case.policy, case.owner, case.setup.timeout) == ("blocking", "bob", 1200)
    before = tree(shop.corpus.root)
    code, out, _ = run(args, capsys)
    assert (code, out) == (0, "changed 0 of 3 candidates\n")
    assert tree(shop.corpus.root) == before


def test_dry_run_reports_and_writes_nothing(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree(shop.corpus.root)
    code, out, _ = run(["set", "--all", "--dry-run", "--json", "--corpus", str(shop.corpus.root),
                        "--setup-python", "3.8", "--tag", "py38"], capsys)
    assert code == 0
    document = json.loads(out)
    assert (document["kind"], document["dry_run"], document["selected"], document["changed"]) == (
        "candidates", True, 3, 3)
    assert document["changes"][0]["fields"] == {"setup.python": {"before": None, "after": "3.8"},
                                                "tags": {"before": [], "after": ["py38"]}}
    assert tree(shop.corpus.root) == before
    code, out, _ = run(["set", "tax-of-zero", "--dry-run", "--corpus", str(shop.corpus.root), "--owner", "x"],
                       capsys)
    assert out.splitlines()[-1] == "would change 1 of 1 candidate"
    assert tree(shop.corpus.root) == before


def test_empty_values_clear_the_fields(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(shop.corpus.root)
    run(["set", "tax-of-zero", "--corpus", root, "--setup-command", "make deps", "--setup-python", "3.12",
         "--owner", "bob"], capsys)
    assert "setup:" in case_yaml(shop, "tax-of-zero").read_text()
    code, out, _ = run(["set", "tax-of-zero", "--corpus", root, "--setup-command", "", "--setup-python", "",
                        "--owner", ""], capsys)
    assert code == 0
    assert out.splitlines()[0] == ("candidates/tax-of-zero: setup.command 'make deps' -> (none); "
                                   "setup.python '3.12' -> (none); owner 'bob' -> (none)")
    case = shop.corpus.load("tax-of-zero", "candidates").case
    assert (case.setup.command, case.setup.python, case.owner) == (None, None, None)
    text = case_yaml(shop, "tax-of-zero").read_text()
    assert "setup:" not in text and "owner:" not in text  # an emptied mapping goes with its last key


def test_tags_are_added_once_and_the_own_ones_stay(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(shop.corpus.root)
    run(["set", "cart-total-cents", "--corpus", root, "--tag", "money", "--tag", "slow"], capsys)
    code, out, _ = run(["set", "cart-total-cents", "--corpus", root, "--tag", "slow", "--tag", "core"], capsys)
    assert code == 0 and "tags money, slow -> money, slow, core" in out
    assert shop.corpus.load("cart-total-cents", "candidates").case.tags == ("money", "slow", "core")


def test_cases_are_edited_with_their_comments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, case = build_corpus(tmp_path)
    path = corpus.root / "cases" / case.id / "case.yaml"
    path.write_text(path.read_text().replace("owner: ada", "owner: ada  # on call for calc"))
    oracle = (path.parent / "oracle.patch").read_bytes()
    code, out, _ = run(["set", "--cases", case.id, "--corpus", str(corpus.root), "--setup-python", "3.11",
                        "--policy", "blocking"], capsys)
    assert code == 0 and out.splitlines()[-1] == "changed 1 of 1 case"
    assert "owner: ada  # on call for calc" in path.read_text()
    stored = Corpus.open(corpus.root).load(case.id, "cases")
    assert (stored.case.setup.python, stored.case.policy) == ("3.11", "blocking")
    assert stored.files.oracle_patch == oracle
    code, _, err = run(["set", case.id, "--corpus", str(corpus.root), "--owner", "x"], capsys)
    assert code == ExitCode.BAD_INPUT and err == f"authoring: error: unknown candidate id in candidates/: {case.id}\n"


def test_the_library_returns_the_changes(shop: Shop) -> None:
    changes = set_fields(shop.corpus, ["tax-of-zero"], "candidates", Changes(grader_timeout=30))
    assert changes == [Change("tax-of-zero", case_yaml(shop, "tax-of-zero"), (("grader.timeout", 120, 30),))]
    assert set_fields(shop.corpus, ["tax-of-zero"], "candidates", Changes(grader_timeout=30)) == []


@pytest.mark.parametrize(("args", "message"), [
    (["nope", "--owner", "x"], "unknown candidate id in candidates/: nope"),
    (["nope", "gone", "--owner", "x"], "unknown candidate ids in candidates/: nope, gone"),
    (["--owner", "x"], "no candidates selected: give candidate ids or --all"),
    (["--all", "tax-of-zero", "--owner", "x"], "give candidate ids or --all, not both"),
    (["--all", "--setup-python", "3"], "--setup-python '3': expected a version such as 3.11 ('' for the harness's own)"),
    (["--all", "--setup-python", "python3.11"],
     "--setup-python 'python3.11': expected a version such as 3.11 ('' for the harness's own)"),
    (["--all"], ("nothing to set: give at least one of --setup-command, --setup-python, --setup-timeout, "
                "--grader-timeout, --owner, --policy, --critical, --tag, --allowed-path, --risk-flag, --invariant, "
                "--invariant-policy, --holdout/--no-holdout or a --clear-... option")),
    (["--all", "--setup-timeout", "0"], "Invalid value for '--setup-timeout': 0 is not in the range x>=1."),
    (["--all", "--grader-timeout", "-5"], "Invalid value for '--grader-timeout': -5 is not in the range x>=1."),
    (["--all", "--grader-timeout", "soon"], "Invalid value for '--grader-timeout': 'soon' is not a valid integer range."),
    (["--all", "--policy", "strict"], "Invalid value for '--policy': 'strict' is not one of 'advisory', 'blocking'."),
    (["--all", "--tag", "two words"], "--tag 'two words': a tag is one word (no spaces or commas)"),
    (["--cases", "--all"], ("nothing to set: give at least one of --setup-command, --setup-python, "
                           "--setup-timeout, --grader-timeout, --owner, --policy, --critical, --tag, --allowed-path, "
                           "--risk-flag, --invariant, --invariant-policy, --holdout/--no-holdout or a --clear-... "
                           "option")),
])
def test_bad_input_is_one_line_and_writes_nothing(shop: Shop, capsys: pytest.CaptureFixture[str], args: list[str],
                                                  message: str) -> None:
    before = tree(shop.corpus.root)
    code, out, err = run(["set", "--corpus", str(shop.corpus.root), *args], capsys)
    assert (code, out, err) == (ExitCode.BAD_INPUT, "", f"authoring: error: {message}\n")
    assert tree(shop.corpus.root) == before


def test_a_case_file_that_does_not_load_stops_everything(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    broken = case_yaml(shop, "tax-of-zero")
    broken.write_text(broken.read_text().replace("fix_commit:", "fix_commit: nope\nfixed:"))
    before = tree(shop.corpus.root)
    code, _, err = run(["set", "--all", "--corpus", str(shop.corpus.root), "--owner", "bob"], capsys)
    assert code == ExitCode.BAD_INPUT and err.startswith(f"authoring: error: {broken}:") and err.count("\n") == 1
    assert tree(shop.corpus.root) == before


def test_critical_is_set_and_unset_with_the_key_removed(shop: Shop, capsys: pytest.CaptureFixture[str]) -> None:
    path = case_yaml(shop, "tax-of-zero")
    original = path.read_text()
    code, out, err = run(["set", "tax-of-zero", "--corpus", str(shop.corpus.root), "--critical"], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines() == ["candidates/tax-of-zero: critical False -> True", "changed 1 of 1 candidate"]
    assert shop.corpus.load("tax-of-zero", "candidates").case.critical is True
    assert "critical: true" in path.read_text()
    code, _, _ = run(["set", "tax-of-zero", "--corpus", str(shop.corpus.root), "--not-critical"], capsys)
    assert code == 0 and path.read_text() == original
