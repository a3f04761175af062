from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from corpus.errors import GitError, WorkspaceError
from runner.grading.frompatch import CandidateError, patch_paths
from runner.workspace.snapshots import Snapshots
from runner.workspace.workspace import (
    assert_isolated,
    build_template,
    create_workspace,
    template_tree,
    workspace_from_template,
)
from tests.testing.casefactory import CALC_BUGGY, build_repo
from tests.testing.gitrepo import git_init


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=True).stdout.strip()


def test_workspace_holds_base_tree_and_no_future(tmp_path: Path) -> None:
    repo, base, fix = build_repo(tmp_path / "repo")
    repo.git("tag", "v1", fix)
    ws = create_workspace(repo.path, base, tmp_path / "ws")
    assert (ws / "calc.py").read_text() == CALC_BUGGY
    assert git(ws, "rev-list", "--all").count("\n") == 0
    assert git(ws, "tag") == "" and git(ws, "remote") == ""
    log = git(ws, "log", "--all", "--format=%H %s")
    assert fix not in log and base not in log and log.endswith(" base")
    # the fix's objects are not in the workspace at all
    assert subprocess.run(["git", "cat-file", "-e", fix], cwd=ws, capture_output=True, check=False).returncode != 0
    assert_isolated(ws)


def test_workspace_is_reproducible(tmp_path: Path) -> None:
    repo, base, _ = build_repo(tmp_path / "repo")
    one = create_workspace(repo.path, base, tmp_path / "a")
    two = create_workspace(repo.path, base, tmp_path / "b")
    assert git(one, "rev-parse", "HEAD") == git(two, "rev-parse", "HEAD")


def test_export_ignore_and_gitignored_tracked_files_are_kept(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.write({".gitignore": "*.log\n", ".gitattributes": "tests/ export-ignore\n", "tests/test_a.py": "x\n"})
    repo.git("add", "-A")
    repo.write({"keep.log": "tracked anyway\n"})
    repo.git("add", "-f", "keep.log")
    repo.git("commit", "-qm", "init")
    ws = create_workspace(repo.path, repo.head(), tmp_path / "ws")
    assert (ws / "tests" / "test_a.py").read_text() == "x\n"
    assert (ws / "keep.log").exists() and "keep.log" in git(ws, "ls-files")


def test_missing_commit_and_not_a_repo(tmp_path: Path) -> None:
    repo, _, _ = build_repo(tmp_path / "repo")
    with pytest.raises(GitError, match=r"commit 0{40} is not in the repository"):
        create_workspace(repo.path, "0" * 40, tmp_path / "ws")
    assert not (tmp_path / "ws").exists()
    (tmp_path / "plain").mkdir()
    with pytest.raises(GitError):
        create_workspace(tmp_path / "plain", "HEAD", tmp_path / "ws2")


def test_extra_commit_breaks_isolation(tmp_path: Path) -> None:
    repo, base, _ = build_repo(tmp_path / "repo")
    ws = create_workspace(repo.path, base, tmp_path / "ws")
    subprocess.run(["git", "-c", "user.name=x", "-c", "user.email=x@x", "commit", "-q", "--allow-empty", "-m", "more"],
                   cwd=ws, check=True)
    with pytest.raises(WorkspaceError, match="exactly one commit, found 2"):
        assert_isolated(ws)


def test_changes_and_patches(tmp_path: Path) -> None:
    repo, base, _ = build_repo(tmp_path / "repo")
    template = build_template(repo.path, base, tmp_path / "template")
    ws = workspace_from_template(template, tmp_path / "ws")
    snapshots = Snapshots(template, ws, tmp_path / "private")
    shutil.copy2(ws / ".git" / "index", snapshots.index("setup"))
    (ws / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (ws / "new.bin").write_bytes(b"\x00\x01\x02")
    (ws / "README.md").unlink()
    snapshots.take("final", stat_cache=snapshots.index("setup"))
    patch, changed = snapshots.diff(template_tree(template)[0], "final")
    assert sorted(changed) == ["README.md", "calc.py", "new.bin"]
    assert b"GIT binary patch" in patch and b"deleted file" in patch
    other = workspace_from_template(template, tmp_path / "ws2")
    assert sorted(patch_paths(other, patch)) == sorted(changed)
    with pytest.raises(CandidateError, match="oracle patch is not a readable patch"):
        patch_paths(other, b"diff --git a/x b/x\nnonsense\n@@ -1 +1 @@\n", "oracle patch")


def test_bare_repository_is_a_usable_source(tmp_path: Path) -> None:
    from corpus.gitutil import open_repository

    repo, base, _ = build_repo(tmp_path / "repo")
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(tmp_path / "bare.git")], check=True)
    assert open_repository(tmp_path / "bare.git") == (tmp_path / "bare.git").resolve()
    ws = create_workspace(tmp_path / "bare.git", base, tmp_path / "ws")
    assert (ws / "calc.py").read_text() == CALC_BUGGY
