"""corpus.yaml's defaults.setup over inference, and the setup's origin in --json, the review facts and approval."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest
from rich.console import Console

from authoring.cli import cli as authoring_cli
from authoring.widgets.facts import render_facts
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from corpus.store import Corpus
from miner.cli import cli as miner_cli
from tests.testing.envrepos import candidate_of, fake_pythons, fix_on

PYPROJECT = '[project]\nname = "app"\nrequires-python = ">=3.9"\n\n[project.optional-dependencies]\n' \
            'test = ["pytest"]\n'


def corpus_with(path: Path, setup: str) -> Path:
    path.mkdir(parents=True)
    (path / "corpus.yaml").write_text(f"name: app\ndefaults:\n  owner: team\n  setup:\n{setup}")
    return path


def test_a_default_python_replaces_the_inferred_one_and_the_command_is_made_for_it(tmp_path: Path) -> None:
    repo, fix = fix_on(tmp_path / "repo", {"pyproject.toml": PYPROJECT})
    corpus = corpus_with(tmp_path / "evals", '    python: "3.7"\n')
    candidate = candidate_of(repo, fix, fake_pythons(tmp_path / "pyenv", "3.12.1"), corpus)
    assert (candidate.case.setup.python, candidate.case.setup.command) == ("3.7",
                                                                           "python -m pip install -e '.[test]'")
    assert candidate.case.mined is not None and candidate.case.mined.setup_origin == (
        "python 3.7: corpus.yaml defaults.setup",
        'command: extra "test" of pyproject.toml; pip, as uv does not install into Python 3.7')
    written = Corpus.open(corpus).load(candidate.case.id, "candidates").case
    assert written.setup == candidate.case.setup
    assert written.mined is not None and written.mined.setup_origin == candidate.case.mined.setup_origin


def test_a_default_command_replaces_the_inferred_one_for_every_language(tmp_path: Path) -> None:
    repo, fix = fix_on(tmp_path / "repo", {"package.json": "{}\n", "yarn.lock": ""}, "js")
    corpus = corpus_with(tmp_path / "evals", "    command: make deps\n")
    candidate = candidate_of(repo, fix, (), corpus)
    assert (candidate.case.setup.python, candidate.case.setup.command) == (None, "make deps")
    assert candidate.case.mined is not None
    assert candidate.case.mined.setup_origin == ("command: corpus.yaml defaults.setup",)


def test_an_empty_default_command_means_none(tmp_path: Path) -> None:
    repo, fix = fix_on(tmp_path / "repo", {"pyproject.toml": PYPROJECT})
    corpus = corpus_with(tmp_path / "evals", '    command: ""\n    python: "3.11"\n')
    candidate = candidate_of(repo, fix, fake_pythons(tmp_path / "pyenv", "3.12.1"), corpus)
    assert (candidate.case.setup.python, candidate.case.setup.command) == ("3.11", None)
    assert candidate.case.mined is not None and candidate.case.mined.setup_origin == (
        "python 3.11: corpus.yaml defaults.setup", "command: none, corpus.yaml defaults.setup")


@pytest.mark.parametrize(("setup", "message"), [
    ("    python: 3.10\n", ("5: defaults.setup.python: write the version as text, e.g. \"3.10\" (a YAML number "
                           "such as 3.1 loses trailing zeros)")),
    ("    python: three\n", "5: defaults.setup.python: expected a version such as 3.8, found 'three'"),
    ("    command: [a, b]\n", "5: defaults.setup.command: expected text, found a list"),
    ("    timeout: 5\n", "5: defaults.setup.timeout: unknown key 'timeout'"),
])
def test_a_bad_default_is_a_one_line_error_naming_corpus_yaml_and_the_field(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: str, message: str) -> None:
    repo, _ = fix_on(tmp_path / "repo", {})
    corpus = corpus_with(tmp_path / "evals", setup)
    code = run_cli(miner_cli, "miner", ["scan", "--repo", str(repo.path), "--corpus", str(corpus)])
    err = capsys.readouterr().err
    assert code == ExitCode.BAD_INPUT
    assert err == f"miner: error: {corpus / 'corpus.yaml'}:{message}\n"
    assert not (corpus / "candidates").exists()


def test_a_setup_that_is_not_a_mapping_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, _ = fix_on(tmp_path / "repo", {})
    corpus = tmp_path / "evals"
    corpus.mkdir()
    (corpus / "corpus.yaml").write_text("name: app\ndefaults:\n  setup: pip install .\n")
    code = run_cli(miner_cli, "miner", ["scan", "--repo", str(repo.path), "--corpus", str(corpus)])
    assert code == ExitCode.BAD_INPUT
    assert capsys.readouterr().err == (f"miner: error: {corpus / 'corpus.yaml'}:3: defaults.setup: expected a "
                                       f"mapping, found text\n")


def test_json_shows_the_setup_and_its_origin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, fix = fix_on(tmp_path / "repo", {"package.json": "{}\n", "pnpm-lock.yaml": "lock\n"}, "js")
    code = run_cli(miner_cli, "miner", ["scan", "--repo", str(repo.path), "--corpus", str(tmp_path / "evals"),
                                        "--json"])
    assert code == ExitCode.OK
    [candidate] = json.loads(capsys.readouterr().out)["candidates"]
    assert candidate["fix_commit"] == fix
    assert candidate["setup"] == {"python": None, "command": "pnpm install --frozen-lockfile"}
    assert candidate["setup_origin"] == ["command: pnpm, from pnpm-lock.yaml"]


def test_the_review_facts_show_the_setup_and_its_origin(tmp_path: Path) -> None:
    repo, fix = fix_on(tmp_path / "repo", {"pyproject.toml": PYPROJECT})
    candidate = candidate_of(repo, fix, fake_pythons(tmp_path / "pyenv", "3.10.13", "3.12.1"))
    console = Console(record=True, width=120)
    console.print(render_facts(candidate.case, None, date(2026, 1, 1), None))
    text = console.export_text()
    assert "Setup: python 3.12 · uv pip install -e '.[test]'\n" in text
    assert '  python 3.12: newest installed within requires-python ">=3.9" (pyproject.toml)\n' in text
    assert '  command: extra "test" of pyproject.toml\n' in text


def approve_args(corpus: Path, candidate: str, prompt: Path, *extra: str) -> list[str]:
    return ["approve", "--corpus", str(corpus), candidate, "--prompt-file", str(prompt), *extra]


def test_approval_keeps_the_setup_and_its_origin_unless_the_author_changes_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, fix = fix_on(tmp_path / "repo", {"pyproject.toml": PYPROJECT})
    fix2 = repo.commit({"app/__init__.py": "def f(x):\n    return x + 1 - 1\n",
                        "tests/test_app.py": "from app import f\n\n\ndef test_f():\n    assert f(3) == 3\n"},
                       "Fix f again")
    corpus = tmp_path / "evals"
    candidate_of(repo, fix, fake_pythons(tmp_path / "pyenv", "3.12.1"), corpus)
    ids = {Corpus.open(corpus).load(i, "candidates").case.fix_commit: i for i in Corpus.open(corpus).ids("candidates")}
    prompt = tmp_path / "prompt.md"
    prompt.write_text("Make the function return its argument unchanged.\n")
    assert run_cli(authoring_cli, "authoring", approve_args(corpus, ids[fix], prompt, "--id", "kept")) == 0
    kept = Corpus.open(corpus).load("kept", "cases").case
    assert (kept.setup.python, kept.setup.command) == ("3.12", "uv pip install -e '.[test]'")
    assert kept.mined is not None and kept.mined.setup_origin == (
        'python 3.12: newest installed within requires-python ">=3.9" (pyproject.toml)',
        'command: extra "test" of pyproject.toml')
    assert run_cli(authoring_cli, "authoring", approve_args(corpus, ids[fix2], prompt, "--id", "changed",
                                                            "--setup-command", "make test-deps")) == 0
    capsys.readouterr()
    changed = Corpus.open(corpus).load("changed", "cases").case
    assert (changed.setup.python, changed.setup.command) == ("3.12", "make test-deps")
    assert changed.mined is not None and changed.mined.setup_origin == (
        'python 3.12: newest installed within requires-python ">=3.9" (pyproject.toml)',
        "command: set by the author")
