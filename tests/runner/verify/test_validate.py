from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpus import Case, corpus_fingerprint
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from tests.testing.casefactory import build_corpus


def test_validate_prints_counts_and_fingerprint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    assert run_cli(cli, "runner", ["validate", "--corpus", str(corpus.root)]) == 0
    expected = corpus_fingerprint((s.case, s.files) for s in corpus.load_all())
    assert capsys.readouterr().out == (f"corpus {corpus.root}: 1 cases (1 active), 0 candidates, 0 rejected\n"
                                       f"dataset fingerprint: {expected}\n")


def test_validate_base_commit_not_in_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, case = build_corpus(tmp_path)
    stored = corpus.load(case.id)
    corpus.write(Case(**{**case.__dict__, "base_commit": "2" * 40}), stored.files)
    assert run_cli(cli, "runner", ["validate", "--corpus", str(corpus.root)]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith(f"runner: error: {corpus.root / 'cases' / 'calc-add' / 'case.yaml'}: base_commit: commit "
                          f"{'2' * 40} is not in the repository")
    assert err.splitlines()[1:] == [f"runner: error: {corpus.root}: 1 problem found"]


def test_validate_repo_that_is_not_git(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    plain = tmp_path / "plain"
    plain.mkdir()
    assert run_cli(cli, "runner", ["validate", "--corpus", str(corpus.root), "--repo", str(plain)]) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err == f"runner: error: {plain.resolve()}: not a git repository\n"


def test_validate_malformed_yaml_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    path = corpus.root / "cases" / "calc-add" / "case.yaml"
    path.write_text(path.read_text() + "tags: [oops\n")
    assert run_cli(cli, "runner", ["validate", "--corpus", str(corpus.root)]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith(f"runner: error: {path}:") and "malformed YAML" in err.splitlines()[0]
    assert err.splitlines()[1:] == [f"runner: error: {corpus.root}: 1 problem found"]


def test_unknown_option_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(cli, "runner", ["validate", "--bogus"]) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err.startswith("runner: error: No such option '--bogus'")


def test_an_empty_corpus_has_no_fingerprint_to_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    shutil.rmtree(corpus.root / "cases" / "calc-add")
    assert run_cli(cli, "runner", ["validate", "--corpus", str(corpus.root)]) == 0
    assert capsys.readouterr().out == (f"corpus {corpus.root}: 0 cases (0 active), 0 candidates, 0 rejected\n"
                                       "dataset fingerprint: none (no active case)\n")
