"""Bad input gives a clear one-line message or a counted skip, never a traceback."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from miner.cli import cli
from miner.scan import ScanOptions, scan
from tests.testing.gitrepo import DAY, GitRepo, git_env, git_init
from tests.testing.minerrepos import SRC, TEST, changed_paths, small_fix, tree_after_oracle


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(cli, "miner", args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_not_a_git_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    code, _, err = run(["scan", "--repo", str(plain), "--corpus", str(tmp_path / "evals")], capsys)
    assert code == ExitCode.BAD_INPUT
    assert err == f"miner: error: {plain}: not a git repository\n"
    assert not (tmp_path / "evals").exists()


def test_missing_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["scan", "--repo", str(tmp_path / "nope"), "--corpus", str(tmp_path / "evals")], capsys)
    assert code == ExitCode.BAD_INPUT
    assert err == f"miner: error: {tmp_path / 'nope'}: no such directory\n"


def test_empty_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = git_init(tmp_path / "empty")
    code, _, err = run(["scan", "--repo", str(repo.path), "--corpus", str(tmp_path / "evals")], capsys)
    assert code == ExitCode.BAD_INPUT
    assert err == f"miner: error: {repo.path.resolve()}: the repository has no commits; nothing to scan\n"
    assert not (tmp_path / "evals").exists()


def test_bare_repository_scans_like_its_work_tree(tmp_path: Path) -> None:
    repo = small_fix(tmp_path / "repo")
    bare = tmp_path / "bare.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(bare)], env=git_env(), check=True)
    from_tree = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "a"))
    from_bare = scan(ScanOptions(repo=bare, corpus=tmp_path / "b"))
    assert [c.case for c in from_bare.candidates] == [c.case for c in from_tree.candidates]
    assert [c.read_files() for c in from_bare.candidates] == [c.read_files() for c in from_tree.candidates]


def test_shallow_clone_warns_that_history_is_cut(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = small_fix(tmp_path / "repo")
    repo.commit({"app/__init__.py": SRC.replace("x\n", "x * 1\n"),
                 "tests/test_app.py": TEST + "\n\ndef test_h():\n    assert f(3) == 3\n"}, "Fix f for three")
    shallow = tmp_path / "shallow"
    subprocess.run(["git", "clone", "-q", "--depth", "2", f"file://{repo.path}", str(shallow)], env=git_env(),
                   check=True)
    code, out, err = run(["scan", "--repo", str(shallow), "--corpus", str(tmp_path / "evals")], capsys)
    assert code == 0
    assert err.startswith("miner: warning: shallow clone: history is cut")
    assert "scanned 2 commits" in out
    assert "root-commit" in out  # the cut-off commit has no parent to be a base


def test_non_utf8_message_is_kept_readable(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    base = repo.commit({"app/__init__.py": SRC, "tests/test_app.py": TEST}, "Initial")
    repo.commit({"app/__init__.py": SRC + "\nX = 1\n", "tests/test_app.py": TEST + "\n\ndef test_x():\n    pass\n"},
                "placeholder")
    # git commit would re-encode the message; write the object by hand so the bytes stay Latin-1.
    tree = repo.git("rev-parse", "HEAD^{tree}")
    stamp = f"Ada Tester <ada@example.com> {repo.clock} +0000"
    raw = (f"tree {tree}\nparent {base}\nauthor {stamp}\ncommitter {stamp}\n\n".encode()
           + b"Fix caf\xe9 crash\n\nLatin-1 bytes, no encoding header.\n")
    sha = repo.git("hash-object", "-t", "commit", "-w", "--stdin", "--literally", input=raw)
    repo.git("update-ref", "refs/heads/main", sha)
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    [candidate] = result.candidates
    assert candidate.case.fix_commit == sha
    assert candidate.case.title == "Fix caf\ufffd crash"
    assert candidate.case.id.startswith("fix-caf-crash-")


def test_non_utf8_path_is_a_counted_skip(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"app/__init__.py": SRC, "tests/test_app.py": TEST}, "Initial")
    name = os.fsdecode(b"app/caf\xe9.py")
    repo.commit({name: "X = 1\n", "tests/test_app.py": TEST + "\n\ndef test_x():\n    pass\n"}, "Fix cafe")
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert result.candidates == []
    assert result.stats.skipped["non-utf8-path"] == 1


def test_binary_diff_in_the_oracle_applies(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"app/__init__.py": SRC, "app/table.bin": bytes(range(256)) * 4, "tests/test_app.py": TEST},
                "Initial")
    fix = repo.commit({"app/__init__.py": SRC + "\nX = 1\n", "app/table.bin": bytes(reversed(range(256))) * 4,
                       "tests/test_app.py": TEST + "\n\ndef test_x():\n    pass\n"}, "Fix lookup table")
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    [candidate] = result.candidates
    files = candidate.read_files()
    assert b"GIT binary patch" in files.oracle_patch
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    tree = tree_after_oracle(repo.path, candidate.case.base_commit, files.oracle_patch,
                             dict(files.grader_files), (), scratch)
    assert changed_paths(repo.path, tree, fix) == []


def test_a_commit_touching_2000_files_is_skipped_quickly(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"app/__init__.py": SRC, "tests/test_app.py": TEST}, "Initial")
    files: dict[str, str | bytes | None] = {f"app/gen/m{i}.py": f"X = {i}\n" for i in range(2001)}
    repo.commit(files | {"tests/test_app.py": TEST + "\n# more\n"}, "Fix generated code")
    started = time.perf_counter()
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert time.perf_counter() - started < 5
    assert result.stats.skipped["too-many-files"] == 1
    assert result.candidates == []


def _commit_with_gitlink(repo: GitRepo, files: dict[str, str], gitlink: str, message: str) -> str:
    repo.clock += DAY
    repo.write(dict(files))
    repo.git("add", *files)
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{gitlink},libs/sub")
    repo.git("commit", "-q", "-m", message)
    return repo.head()


def test_submodule_changes_are_left_out_and_counted(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"app/__init__.py": SRC, "tests/test_app.py": TEST}, "Initial")
    with_source = _commit_with_gitlink(
        repo, {"app/__init__.py": SRC + "\nX = 1\n", "tests/test_app.py": TEST + "\n\ndef test_x():\n    pass\n"},
        "a" * 40, "Fix x and bump sub")
    _commit_with_gitlink(repo, {"tests/test_app.py": TEST + "\n\ndef test_y():\n    pass\n"}, "b" * 40,
                         "Fix y by bumping sub")
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    [candidate] = result.candidates
    assert candidate.case.fix_commit == with_source
    assert candidate.case.mined.omitted_files == ("libs/sub",)
    assert b"Subproject" not in candidate.read_files().oracle_patch
    assert result.stats.skipped["submodule-only"] == 1


def test_bad_revision_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = small_fix(tmp_path / "repo")
    code, _, err = run(["scan", "--repo", str(repo.path), "--corpus", str(tmp_path / "evals"), "--rev",
                        "no-such-branch"], capsys)
    assert code == ExitCode.BAD_INPUT
    assert err.startswith("miner: error: git log failed in ") and err.count("\n") == 1
    assert "no-such-branch" in err


@pytest.mark.parametrize(("extra", "message"), [
    (["--rev", "HEAD", "--since", "2024-01-01"], "--rev cannot be combined with --since/--until"),
    (["--rev", "--output=/tmp/x"], "--rev '--output=/tmp/x': not a revision"),
    (["--max-candidates", "-1"], "Invalid value for '--max-candidates': -1 is not in the range x>=0."),
    (["--max-files", "0"], "Invalid value for '--max-files': 0 is not in the range x>=1."),
    (["--max-lines", "many"], "Invalid value for '--max-lines': 'many' is not a valid integer range."),
])
def test_bad_options(tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str) -> None:
    repo = small_fix(tmp_path / "repo")
    code, _, err = run(["scan", "--repo", str(repo.path), "--corpus", str(tmp_path / "evals"), *extra], capsys)
    assert code == ExitCode.BAD_INPUT
    assert err.startswith(f"miner: error: {message}")
    assert not (tmp_path / "evals").exists()


def test_corpus_path_that_is_not_a_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = small_fix(tmp_path / "repo")
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine\n")
    code, _, err = run(["scan", "--repo", str(repo.path), "--corpus", str(other)], capsys)
    assert code == ExitCode.BAD_INPUT
    assert err == f"miner: error: {other}: exists and is not a corpus (no corpus.yaml); pick another --corpus\n"
    assert sorted(p.name for p in other.iterdir()) == ["notes.txt"]


def test_no_repo_and_no_corpus(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["scan", "--corpus", str(tmp_path / "evals")], capsys)
    assert code == ExitCode.BAD_INPUT
    assert err == "miner: error: no repository: pass --repo PATH (or --corpus DIR of a corpus that names one)\n"


def test_mode_changes(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"app/__init__.py": SRC, "app/tool.py": "X = 1\n", "tests/test_app.py": TEST,
                 "tests/test_tool.py": "def test_tool():\n    pass\n"}, "Initial")
    os.chmod(repo.path / "app/tool.py", 0o755)
    repo.commit({"tests/test_app.py": TEST + "\n# more\n"}, "Fix permissions of tool")
    os.chmod(repo.path / "tests/test_tool.py", 0o755)
    fix = repo.commit({"app/__init__.py": SRC + "\nX = 1\n", "tests/test_app.py": TEST + "\n\ndef test_x():\n    pass\n"},
                      "Fix x")
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals"))
    assert result.stats.skipped["mode-only"] == 1
    [candidate] = result.candidates
    assert candidate.case.fix_commit == fix
    assert candidate.case.grader.deleted == ()
    assert dict(candidate.read_files().grader_files)["tests/test_tool.py"] == b"def test_tool():\n    pass\n"
