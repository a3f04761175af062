"""`miner scan --since/--until` with a value git cannot read as a date is an error, not an empty scan."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from miner.cli import cli
from tests.testing.minerrepos import small_fix


def scan(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    repo = small_fix(tmp_path / "repo")
    code = run_cli(cli, "miner", ["scan", "--repo", str(repo.path), "--corpus", str(tmp_path / "evals"), *extra])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(("option", "value"), [
    ("--since", "not a date"),
    ("--until", "garbage"),
    ("--since", ""),
    ("--until", "12345"),
])
def test_unreadable_date_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], option: str,
                                             value: str) -> None:
    code, out, err = scan(tmp_path, capsys, option, value)
    assert code == ExitCode.BAD_INPUT
    assert out == ""
    assert err == f"miner: error: {option} {value!r}: not a date git can read (e.g. 2024-01-31, \"2 weeks ago\")\n"
    assert not (tmp_path / "evals").exists()


def test_the_bad_one_of_two_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = scan(tmp_path, capsys, "--since", "2024-01-01", "--until", "next blursday")
    assert code == ExitCode.BAD_INPUT
    assert err.startswith("miner: error: --until 'next blursday': not a date")


@pytest.mark.parametrize(("extra", "scanned"), [
    (("--since", "2024-01-02 12:00"), 1),
    (("--until", "2024-01-02 12:00"), 1),
    (("--since", "2023-12-01", "--until", "now"), 2),
    (("--since", "5 years ago"), 2),
    (("--until", "today"), 2),
])
def test_readable_dates_still_scan(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: tuple[str, ...],
                                   scanned: int) -> None:
    code, out, err = scan(tmp_path, capsys, *extra)
    assert (code, err) == (0, "")
    assert f"scanned {scanned} commit" in out
