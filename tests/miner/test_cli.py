"""The `miner` command line, through click's CliRunner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from corpus.errors import ExitCode
from miner.cli import cli
from tests.testing.minerrepos import one_fix_repo

CANDIDATE_KEYS = {"id", "title", "fix_commit", "base_commit", "merge", "branch_commits", "score", "evidence", "test_files",
                  "source_files", "omitted_files", "deleted_tests", "grader_command", "grader_inferred", "junit",
                  "fail_to_pass", "test_ids", "trigger_paths", "patch_id", "introducing_commits", "escape_days",
                  "setup", "setup_origin", "path"}


def test_json_document_shape(tmp_path: Path) -> None:
    repo, fix = one_fix_repo(tmp_path / "repo")
    result = CliRunner().invoke(cli, ["scan", "--repo", str(repo), "--corpus", str(tmp_path / "evals"), "--json"])
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert set(document) == {"stats", "warnings", "candidates"}
    stats = document["stats"]
    assert set(stats) == {"commits_scanned", "prefiltered", "candidates", "skipped", "seconds", "range", "tip",
                          "span"}
    head = subprocess.run(["git", "rev-parse", "HEAD", "HEAD~2"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.split()
    assert stats["span"] == {"newest": {"sha": head[0], "date": "2024-01-04T00:00:00+00:00"},
                             "oldest": {"sha": head[1], "date": "2024-01-02T00:00:00+00:00"}}
    assert (stats["commits_scanned"], stats["prefiltered"], stats["candidates"]) == (3, 1, 1)
    assert stats["skipped"] == {"no-test-change": 1, "root-commit": 1}
    [candidate] = document["candidates"]
    assert set(candidate) == CANDIDATE_KEYS
    assert candidate["fix_commit"] == fix
    assert candidate["id"] == f"fix-f-for-negative-numbers-3-{fix[:7]}"
    assert candidate["test_files"] == ["tests/test_app.py"]
    assert candidate["source_files"] == ["app/__init__.py"]
    assert candidate["fail_to_pass"] == ["tests/test_app.py::test_negative"]
    assert candidate["grader_command"].endswith("tests/test_app.py::test_negative")
    assert Path(candidate["path"]).is_dir()


def test_summary_output(tmp_path: Path) -> None:
    repo, fix = one_fix_repo(tmp_path / "repo")
    evals = tmp_path / "evals"
    result = CliRunner().invoke(cli, ["scan", "--repo", str(repo), "--corpus", str(evals)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    newest, oldest = subprocess.run(["git", "rev-parse", "HEAD", "HEAD~2"], cwd=repo, capture_output=True, text=True,
                                    check=True).stdout.split()
    assert lines[0].startswith(f"scanned 3 commits from 2024-01-02 to 2024-01-04 ({oldest[:7]}..{newest[:7]}) in ")
    assert lines[1:] == [
        "  prefiltered: 1",
        f"  candidates:  1 written to {evals / 'candidates'}",
        "  skipped:",
        "    no-test-change  1",
        "    root-commit     1",
        "top 1:",
        f"   5.75  fix-f-for-negative-numbers-3-{fix[:7]}",  # its return line changed
    ]


def test_repo_defaults_to_the_corpus_repo(tmp_path: Path) -> None:
    repo, _ = one_fix_repo(tmp_path / "repo")
    evals = tmp_path / "evals"
    runner = CliRunner()
    assert runner.invoke(cli, ["scan", "--repo", str(repo), "--corpus", str(evals)]).exit_code == 0
    again = runner.invoke(cli, ["scan", "--corpus", str(evals), "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["stats"]["commits_scanned"] == 0


def test_dry_run_flag(tmp_path: Path) -> None:
    repo, _ = one_fix_repo(tmp_path / "repo")
    result = CliRunner().invoke(cli, ["scan", "--repo", str(repo), "--corpus", str(tmp_path / "evals"), "--dry-run",
                                      "--json"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["candidates"][0]["path"] is None
    assert not (tmp_path / "evals").exists()


def test_every_command_has_help() -> None:
    runner = CliRunner()
    assert cli.help
    for name, command in cli.commands.items():
        assert command.help, name
        result = runner.invoke(cli, [name, "--help"])
        assert result.exit_code == 0
        for option in ("--repo", "--corpus", "--rev", "--since", "--until", "--max-candidates", "--full",
                       "--no-merges", "--json", "--szz"):
            assert option in result.output


def run_console_script(*args: str) -> subprocess.CompletedProcess[str]:
    """`miner` as its console script runs it: the entry point that ends the process without teardown."""
    return subprocess.run([sys.executable, "-c", "from miner.cli import main; main()", *args], capture_output=True,
                          text=True, check=False)


def test_the_console_script_flushes_everything_before_it_ends(tmp_path: Path) -> None:
    repo, fix = one_fix_repo(tmp_path / "repo")
    done = run_console_script("scan", "--repo", str(repo), "--corpus", str(tmp_path / "evals"), "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)  # the whole document reached the pipe
    assert [c["fix_commit"] for c in document["candidates"]] == [fix]
    assert (tmp_path / "evals" / "scan-state.yaml").is_file()


def test_the_console_script_keeps_its_exit_codes(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    done = run_console_script("scan", "--repo", str(plain), "--corpus", str(tmp_path / "evals"))
    assert (done.returncode, done.stdout) == (ExitCode.BAD_INPUT, "")
    assert done.stderr == f"miner: error: {plain}: not a git repository\n"
    assert run_console_script("scan", "--no-such-option").returncode == ExitCode.BAD_INPUT


def test_a_scan_that_finds_nothing_new_says_so(tmp_path: Path) -> None:
    repo, _ = one_fix_repo(tmp_path / "repo")
    evals = tmp_path / "evals"
    assert CliRunner().invoke(cli, ["scan", "--repo", str(repo), "--corpus", str(evals)]).exit_code == 0
    again = CliRunner().invoke(cli, ["scan", "--repo", str(repo), "--corpus", str(evals)])
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                          check=True).stdout.strip()
    assert again.exit_code == 0 and again.stdout.splitlines()[-1] == (
        f"nothing new: every commit up to {head[:7]} was covered by an earlier scan (--full rescans the whole "
        "history)")
    full = CliRunner().invoke(cli, ["scan", "--repo", str(repo), "--corpus", str(evals), "--full"])
    assert full.exit_code == 0 and full.stdout.splitlines()[-1] == (
        "no new candidate: none of the 3 commits is a fix that changes tests and source and was not proposed before")
