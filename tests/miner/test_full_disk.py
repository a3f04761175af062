"""`miner scan` on a full disk: one error naming the path, no staging area, no half-made corpus or state."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from corpus.store import Corpus
from miner.cli import cli
from tests.testing.fulldisk import FILLER, contents, fill, full_disk
from tests.testing.minerrepos import base_repo, numbered_fix

NO_SPACE = "No space left on device"


def scan(repo: Path, corpus: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = run_cli(cli, "miner", ["scan", "--repo", str(repo), "--corpus", str(corpus), *extra])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = base_repo(tmp_path / "repo")
    for number in range(1, 4):
        numbered_fix(repo, number)
    return repo.path


@pytest.mark.parametrize("extra", [[], ["--max-candidates", "5"]], ids=["staged", "written at the end"])
def test_a_new_corpus_on_a_full_disk(tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str],
                                     extra: list[str]) -> None:
    with full_disk(tmp_path / "disk") as disk:
        code, out, err = scan(repo, disk / "evals", capsys, *extra)
        assert (code, out) == (ExitCode.FAILED, ""), err
        assert err.startswith(f"miner: error: cannot write {disk / 'evals'}") and err.endswith(f": {NO_SPACE}\n")
        assert err.count("\n") == 1
        assert contents(disk) == [FILLER]


@pytest.mark.parametrize("extra", [[], ["--max-candidates", "5"]], ids=["staged", "written at the end"])
def test_an_existing_corpus_on_a_full_disk(tmp_path: Path, repo: Path, capsys: pytest.CaptureFixture[str],
                                           extra: list[str]) -> None:
    with full_disk(tmp_path / "disk") as disk:
        (disk / FILLER).unlink()
        Corpus.init(disk / "evals", "app", repo=str(repo))
        fill(disk)
        code, out, err = scan(repo, disk / "evals", capsys, *extra)
        assert (code, out) == (ExitCode.FAILED, ""), err
        assert err == f"miner: error: cannot write {disk / 'evals' / 'candidates'}: {NO_SPACE}\n"
        assert contents(disk / "evals") == ["corpus.yaml"]  # no candidate, staging area or scan state
        assert Corpus.open(disk / "evals").config.name == "app"
