"""authoring holdout: a random share of the active cases marked holdout, stratified by critical, blocking and
advisory, the same for one seed, written atomically and in place, and nothing written on --dry-run."""

from __future__ import annotations

from pathlib import Path

import pytest

from authoring.cli import cli
from authoring.holdout import HoldoutOptions, draw_holdout, shares
from corpus import Corpus
from corpus.cli_support import run_cli
from corpus.errors import ExitCode, UsageError
from tests.testing.runbuilder import write_corpus

KINDS = {**{f"block-{i:02d}": "blocking" for i in range(10)}, **{f"adv-{i:02d}": "advisory" for i in range(14)},
         "crit-a": "critical", "crit-b": "critical", "crit-c": "critical", "crit-d": "critical",
         "crit-e": "critical", "old": "deprecated"}


def holdout(corpus: Corpus) -> list[str]:
    return sorted(s.case.id for s in corpus.load_all("cases") if s.case.holdout)


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(cli, "authoring", args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_shares_round_the_total_half_up_and_split_it_by_largest_remainder() -> None:
    assert shares({"critical": 5, "blocking": 10, "advisory": 14}, 0.2) == {"critical": 1, "blocking": 2,
                                                                             "advisory": 3}
    assert shares({"critical": 1, "blocking": 1, "advisory": 3}, 0.2) == {"critical": 0, "blocking": 0,
                                                                          "advisory": 1}
    assert sum(shares({"blocking": 3, "advisory": 4}, 0.5).values()) == 4


def test_one_seed_one_stratified_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = write_corpus(tmp_path / "a", KINDS)
    second = write_corpus(tmp_path / "b", KINDS)
    code, out, err = run(["holdout", "--corpus", str(first.root), "--fraction", "0.2", "--seed", "7"], capsys)
    assert (code, err) == (ExitCode.OK, "")
    marked = holdout(first)
    assert len(marked) == 6 and "old" not in marked
    assert [sum(c.startswith(p) for c in marked) for p in ("crit-", "block-", "adv-")] == [1, 2, 3]
    lines = out.splitlines()
    assert lines[0].startswith("critical: 1 of 5 holdout (0 already, 1 marked): crit-")
    assert lines[-1] == ("marked 6 cases as holdout; a holdout case's prompt must not retell its fix commit's "
                         "message (authoring lint)")
    draw_holdout(second, HoldoutOptions(0.2, 7))
    assert holdout(second) == marked
    assert (first.root / "cases" / marked[0] / "case.yaml").read_text() == \
        (second.root / "cases" / marked[0] / "case.yaml").read_text()
    assert "holdout: true" in (first.root / "cases" / marked[0] / "case.yaml").read_text()
    assert not list(first.root.rglob("*.tmp*"))
    third = write_corpus(tmp_path / "c", KINDS)
    draw_holdout(third, HoldoutOptions(0.2, 8))
    assert holdout(third) != marked and len(holdout(third)) == 6


def test_cases_already_holdout_stay_and_count(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "evals", KINDS)
    draw_holdout(corpus, HoldoutOptions(0.2, 1))
    before = holdout(corpus)
    draw = draw_holdout(corpus, HoldoutOptions(0.2, 2))
    assert draw.changes == () and holdout(corpus) == before
    draw_holdout(corpus, HoldoutOptions(0.4, 2))
    after = holdout(corpus)
    assert set(before) < set(after) and len(after) == 12


def test_dry_run_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = write_corpus(tmp_path / "evals", KINDS)
    before = tree(corpus.root)
    code, out, _ = run(["holdout", "--corpus", str(corpus.root), "--fraction", "0.2", "--seed", "7",
                        "--dry-run"], capsys)
    assert code == ExitCode.OK and out.splitlines()[-1].startswith("would mark 6 cases as holdout")
    assert "(0 already, 1 to mark)" in out and tree(corpus.root) == before


@pytest.mark.parametrize(("args", "message"), [
    (["--fraction", "0"], "Invalid value for '--fraction': 0.0 is not in the range 0.0<x<1.0."),
    (["--fraction", "1.5"], "Invalid value for '--fraction': 1.5 is not in the range 0.0<x<1.0."),
    (["--fraction", "0.2", "--seed", "x"], "Invalid value for '--seed': 'x' is not a valid integer."),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  args: list[str], message: str) -> None:
    corpus = write_corpus(tmp_path / "evals", KINDS)
    before = tree(corpus.root)
    code, out, err = run(["holdout", "--corpus", str(corpus.root), *args], capsys)
    assert (code, out, err) == (ExitCode.BAD_INPUT, "", f"authoring: error: {message}\n")
    assert tree(corpus.root) == before


def test_a_corpus_without_active_cases_is_bad_input(tmp_path: Path) -> None:
    corpus = write_corpus(tmp_path / "evals", {"old": "deprecated"})
    with pytest.raises(UsageError, match="no active case to hold out"):
        draw_holdout(corpus, HoldoutOptions(0.2, 1))


def test_set_unmarks_a_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = write_corpus(tmp_path / "evals", {"cart": "blocking"})
    original = (corpus.root / "cases" / "cart" / "case.yaml").read_text()
    assert run(["set", "--corpus", str(corpus.root), "--cases", "cart", "--holdout"], capsys)[0] == ExitCode.OK
    assert holdout(corpus) == ["cart"]
    assert run(["set", "--corpus", str(corpus.root), "--cases", "cart", "--no-holdout"], capsys)[0] == ExitCode.OK
    assert (corpus.root / "cases" / "cart" / "case.yaml").read_text() == original
