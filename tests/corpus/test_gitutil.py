"""The harness's git obeys only itself: no global or system config, excludes, attributes, hooks or GIT_* vars."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from corpus import gitutil
from corpus.gitutil import run_git
from tests.testing.gitrepo import GitRepo


def poison_home(home: Path) -> Path:
    """A ~/.gitconfig that ignores every .py file, runs a hook, and filters every file through a fake."""
    (home / "ignore").write_text("*.py\n")
    hooks = home / "hooks"
    hooks.mkdir()
    for hook in ("pre-commit", "post-index-change"):
        (hooks / hook).write_text(f"#!/bin/sh\ntouch {home}/hook-ran\n")
        (hooks / hook).chmod(stat.S_IRWXU)
    (home / "attributes").write_text("* filter=fake\n")
    config = home / ".gitconfig"
    config.write_text(f"[core]\n\texcludesFile = {home}/ignore\n\thooksPath = {hooks}\n"
                      f"\tattributesFile = {home}/attributes\n[filter \"fake\"]\n\tclean = echo forged\n")
    return config


def test_global_and_system_configuration_do_not_reach_the_harness(repo: GitRepo, tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    repo.commit({"a.txt": "one\n"}, "Initial")
    config = poison_home(Path(os.environ["HOME"]))
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.delenv("GIT_CONFIG_NOSYSTEM", raising=False)
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(config))
    (repo.path / "fix.py").write_text("x = 1\n")
    (repo.path / "a.txt").write_text("two\n")
    index = tmp_path / "index"
    run_git(["add", "-A"], repo.path, env=gitutil.git_env({"GIT_INDEX_FILE": str(index)}))
    listed = run_git(["ls-files", "-s"], repo.path, env=gitutil.git_env({"GIT_INDEX_FILE": str(index)}))
    assert "fix.py" in listed.stdout.decode()
    blob = listed.stdout.decode().split("\n")[0].split()[1]
    assert run_git(["cat-file", "-p", blob], repo.path).stdout == b"two\n"  # not the filter's "forged"
    assert not (Path(os.environ["HOME"]) / "hook-ran").exists()


def test_callers_git_variables_cannot_redirect_it(repo: GitRepo, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    repo.commit({"a.txt": "one\n"}, "Initial")
    decoy = tmp_path / "decoy"
    decoy.mkdir()
    run_git(["init", "-q"], decoy)
    monkeypatch.setenv("GIT_DIR", str(decoy / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "elsewhere"))
    assert run_git(["rev-parse", "--git-dir"], repo.path).stdout.decode().strip() == ".git"
    assert run_git(["log", "--format=%s"], repo.path).stdout == b"Initial\n"


def test_git_is_resolved_once_to_an_absolute_path() -> None:
    assert os.path.isabs(gitutil.GIT)
