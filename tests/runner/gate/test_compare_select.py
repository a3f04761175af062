"""`runner select`: trigger-path globs against changed files, given or taken from git."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus import Corpus, GitError
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from runner.gate.select import changed_since, matches, select_cases
from runner.runs.load import load_run
from tests.testing.gitrepo import GitRepo, git_init
from tests.testing.runbuilder import write_corpus

KINDS = {"cart": "blocking", "tax": "blocking", "shop-any": "advisory", "util": "advisory",
         "anywhere": "advisory", "untriggered": "advisory", "old": "deprecated"}
TRIGGERS = {"cart": ("src/shop/cart.py",), "tax": ("src/shop/tax.py",), "shop-any": ("src/shop/*.py",),
            "util": ("lib/",), "anywhere": ("util.py",), "old": ("src/shop/cart.py",)}
FILES = {"src/shop/cart.py": "cart\n", "src/shop/tax.py": "tax\n", "lib/util.py": "util\n", "README.md": "app\n"}


@pytest.fixture
def setup(tmp_path: Path) -> tuple[GitRepo, Corpus, str]:
    repo = git_init(tmp_path / "repo")
    first = repo.commit(FILES, "Initial commit")
    corpus = write_corpus(tmp_path / "evals", KINDS, TRIGGERS, repo="../repo")
    return repo, corpus, first


def test_glob_semantics() -> None:
    assert matches(["src/shop/*.py"], ["src/shop/cart.py", "src/shop/sub/x.py", "src/other.py"]) == [
        "src/shop/cart.py"]
    assert matches(["src/**/x.py"], ["src/shop/sub/x.py", "x.py"]) == ["src/shop/sub/x.py"]
    assert matches(["util.py"], ["lib/util.py", "util.py", "lib/util.pyc"]) == ["lib/util.py", "util.py"]
    assert matches(["lib/"], ["lib/a/b.py", "liberal.py"]) == ["lib/a/b.py"]
    assert matches([], ["anything"]) == []


def test_select_given_paths(setup: tuple[GitRepo, Corpus, str]) -> None:
    _, corpus, _ = setup
    assert select_cases(corpus, ["src/shop/cart.py"]) == ["cart", "shop-any"]
    assert select_cases(corpus, ["./lib/util.py", "docs/x.md"]) == ["anywhere", "util"]
    assert select_cases(corpus, ["README.md"]) == []


@pytest.mark.parametrize("flag", [[], ["--changed"]], ids=["paths", "--changed paths"])
def test_cli_changed(setup: tuple[GitRepo, Corpus, str], capsys: pytest.CaptureFixture[str],
                     flag: list[str]) -> None:
    _, corpus, _ = setup
    args = ["select", "--corpus", str(corpus.root), *flag, "src/shop/tax.py", "lib/util.py"]
    assert run_cli(cli, "runner", args) == 0
    assert capsys.readouterr().out.splitlines() == ["anywhere", "shop-any", "tax", "util"]


def test_cli_paths_before_options(setup: tuple[GitRepo, Corpus, str], capsys: pytest.CaptureFixture[str]) -> None:
    _, corpus, _ = setup
    assert run_cli(cli, "runner", ["select", "src/shop/cart.py", "--corpus", str(corpus.root)]) == 0
    assert capsys.readouterr().out.splitlines() == ["cart", "shop-any"]


def test_changed_since_commits_worktree_and_untracked(setup: tuple[GitRepo, Corpus, str]) -> None:
    repo, _, first = setup
    repo.commit({"src/shop/tax.py": "tax v2\n"}, "Change tax")
    repo.git("mv", "lib/util.py", "lib/helpers.py")
    repo.git("commit", "-q", "-m", "Rename util")
    repo.write({"README.md": "app, edited\n", "notes/new.txt": "untracked\n"})
    assert changed_since(repo.path, first) == [
        "README.md", "lib/helpers.py", "lib/util.py", "notes/new.txt", "src/shop/tax.py"]
    assert changed_since(repo.path, "HEAD") == ["README.md", "notes/new.txt"]


def test_since_counts_only_this_branch(setup: tuple[GitRepo, Corpus, str],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    repo, corpus, _ = setup
    repo.git("checkout", "-q", "-b", "feature")
    repo.commit({"src/shop/tax.py": "tax v2\n"}, "Change tax on the feature branch")
    repo.git("checkout", "-q", "main")
    repo.commit({"src/shop/cart.py": "cart v2\n"}, "Change cart on main afterwards")
    repo.git("checkout", "-q", "feature")
    assert changed_since(repo.path, "main") == ["src/shop/tax.py"]
    assert run_cli(cli, "runner", ["select", "--corpus", str(corpus.root), "--since", "main"]) == 0
    assert capsys.readouterr().out.splitlines() == ["shop-any", "tax"]


def test_errors(setup: tuple[GitRepo, Corpus, str], capsys: pytest.CaptureFixture[str]) -> None:
    repo, corpus, _ = setup
    with pytest.raises(GitError, match="unknown revision 'nope'"):
        changed_since(repo.path, "nope")
    root = str(corpus.root)
    assert run_cli(cli, "runner", ["select", "--corpus", root, "--since", "nope"]) == ExitCode.BAD_INPUT
    assert run_cli(cli, "runner", ["select", "--corpus", root]) == ExitCode.BAD_INPUT
    assert run_cli(cli, "runner", ["select", "--corpus", root, "--changed"]) == ExitCode.BAD_INPUT
    assert run_cli(cli, "runner", ["select", "--corpus", root, "--since", "HEAD", "a.py"]) == ExitCode.BAD_INPUT
    assert run_cli(cli, "runner", ["select", "--corpus", root, "--since", "HEAD", "--changed"]) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err.splitlines() == [
        f"runner: error: {repo.path}: unknown revision 'nope'",
        "runner: error: give the changed files (runner select PATH...) or --since REV",
        "runner: error: --changed needs at least one path",
        "runner: error: give either the changed PATH... or --since REV, not both",
        "runner: error: give either the changed PATH... or --since REV, not both",
    ]


def test_run_select_since(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.testing.casefactory import build_corpus

    corpus, _, case = build_corpus(tmp_path)
    base = ["run", "--corpus", str(corpus.root), "--results-dir", str(tmp_path / "results"), "--mode", "oracle"]
    assert run_cli(cli, "runner", [*base, "--select-since", "HEAD"]) == 0
    assert capsys.readouterr().err == (
        "no case's trigger paths match the files changed since HEAD; nothing to run\n")
    assert run_cli(cli, "runner", [*base, "--select-since", "HEAD", "--all"]) == ExitCode.BAD_INPUT
    assert "--select-since cannot be combined" in capsys.readouterr().err
    assert run_cli(cli, "runner", [*base, "--select-since", case.base_commit]) == 0
    assert "run directory: " in capsys.readouterr().out
    [run_dir] = (tmp_path / "results").iterdir()
    assert load_run(run_dir).manifest.config.cases == ("calc-add",)
