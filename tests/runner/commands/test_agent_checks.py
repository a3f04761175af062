"""`runner run` checks every agent command before any trial, and --dry-run shows what the first trials would run."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from runner.trial.agent import command_problem, render_command
from tests.testing.trialkit import PY, SANDBOX_ARGS, Bench, agent, graded_quickly


def call(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", argv)
    out, err = capsys.readouterr()
    return code, out, err


def base(bench: Bench) -> list[str]:
    return ["run", "--corpus", str(bench.corpus.root), "--results-dir", str(bench.results), "--all", *SANDBOX_ARGS]


@pytest.fixture
def not_executable(tmp_path: Path) -> Path:
    path = tmp_path / "agent.sh"
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(0o644)
    return path


@pytest.mark.parametrize(("args", "message"), [
    (["--agent-command", "true {caseid}"],
     ("agent 'default': unknown placeholder {caseid}: did you mean {case_id}? (the placeholders are {workspace}, "
      "{prompt_file}, {case_id}, {trial}, {output_dir})")),
    (["--agent-command", "true {nonsense}"],
     "agent 'default': unknown placeholder {nonsense} (the placeholders are {workspace}, {prompt_file}, {case_id}"),
    (["--agent-command", "true {case-id}"], "agent 'default': {case-id} is not a placeholder: did you mean {case_id}?"),
    (["--agent-command", "cat {prompt-file}"],
     "agent 'default': {prompt-file} is not a placeholder: did you mean {prompt_file}?"),
    (["--agent-command", "cd { workspace }"],
     "agent 'default': { workspace } is not a placeholder: did you mean {workspace}?"),
    (["--agent-command", "cd ${workspace}"],
     ("agent 'default': ${workspace} is not a placeholder (the shell would expand it as a variable): "
     "did you mean {workspace}?")),
    (["--agent-command", "cd {{workspace}}"],
     "agent 'default': {{workspace}} is not a placeholder: did you mean {workspace}?"),
    (["--agent", "x=cd {workspace} && hindcast-no-such-agent -p < {prompt_file}"],
     "agent 'x': 'hindcast-no-such-agent' is not a program on PATH"),
    (["--agent", "x=cat {prompt_file} | hindcast-no-such-agent; true"],
     "agent 'x': 'hindcast-no-such-agent' is not a program on PATH"),
    (["--agent", "a=true", "--agent", "b=cat \"{promptfile}\""], "agent 'b': unknown placeholder {promptfile}"),
    (["--agent-command", "   "], "agent 'default': the agent command is empty"),
    (["--agent-command", ""], "agent 'default': the agent command is empty"),
    (["--agent", "x=hindcast-no-such-agent -p {prompt_file}"],
     "agent 'x': 'hindcast-no-such-agent' is not a program on PATH"),
    (["--agent", "x=FOO=1 env BAR=2 hindcast-no-such-agent"],
     "agent 'x': 'hindcast-no-such-agent' is not a program on PATH"),
    (["--agent", "x=/nonexistent/agent {workspace}"], "agent 'x': /nonexistent/agent: no such file"),
    (["--agent", "x=/ {workspace}"], "agent 'x': /: not a file"),
    (["--agent", "x=echo 'unclosed"], "agent 'x': the agent command cannot be parsed: No closing quotation"),
    (["--agent", "x=A=1 B=2"], "agent 'x': the agent command only sets variables"),
])
def test_a_broken_agent_command_is_one_line_exit_3_and_writes_nothing(
        calc_fast: Bench, capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    for dry in ([], ["--dry-run"]):
        code, out, err = call([*base(calc_fast), *args, *dry], capsys)
        assert code == ExitCode.BAD_INPUT and out == "" and err.count("\n") == 1
        assert err.startswith("runner: error: ") and message in err and "Traceback" not in err
        assert not calc_fast.results.exists()


def test_a_file_that_is_not_executable_is_refused(calc_fast: Bench, not_executable: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call([*base(calc_fast), "--agent", f"x={not_executable} {{workspace}}"], capsys)
    assert code == ExitCode.BAD_INPUT and err.count("\n") == 1
    assert f"agent 'x': {not_executable}: not executable" in err
    assert not calc_fast.results.exists()


@pytest.mark.parametrize("command", [
    "awk '{print $1}' {prompt_file}",
    "awk '{print}' {prompt_file}",
    "echo ${HOME} ${trial:-none} {trial}",
    "cd {workspace} && exec true",
    "X=1 Y={case_id} true",
    "env X=1 -- true",
    "{ true; }",
    "(cd /; true)",
    "find . -name x -exec true {} \\;",
    "echo {a,b}",
    "./agent-in-the-repo --case {case_id}",
    "{workspace}/run-agent",
    "$HOME/bin/agent",
    "source ~/.profile; true",
    "for trial in 1 2; do echo ${trial}; done",
    "if true; then true; else false; fi",
    "cd {workspace} && prompt=$(cat {prompt_file}) && true \"$prompt\"",
    "true 2>/dev/null || true &",
    "echo '{\"a\": 1}' | cat",
])
def test_shell_braces_builtins_and_unchecked_first_words_are_accepted(command: str) -> None:
    assert command_problem(command) is None


def test_placeholders_keep_their_value_as_one_piece_in_any_quoting(tmp_path: Path) -> None:
    value = str(tmp_path / "it's a \"dir\" $HOME")
    template = "printf '%s\\n' {workspace} \"in-double:{workspace}\" 'in-single:{workspace}' '{print}' ${HOME+set}"
    rendered = render_command(template, {"workspace": value, "prompt_file": "", "case_id": "", "trial": ""})
    shown = subprocess.run(["bash", "-c", rendered], capture_output=True, text=True, check=True,
                           env={**os.environ, "HOME": "/h"}).stdout.splitlines()
    assert shown == [value, f"in-double:{value}", f"in-single:{value}", "{print}", "set"]


def test_a_command_with_shell_braces_runs_and_passes(calc_fast: Bench, capsys: pytest.CaptureFixture[str]) -> None:
    command = f"test -n \"${{HOME}}\" && awk 'BEGIN {{ exit 0 }}' && X={{case_id}} {agent('fix')}"
    code, out, _ = call([*base(calc_fast), "--agent", f"braces={command}"], capsys)
    assert code == ExitCode.OK and "1/1 passed" in out


def test_dry_run_prints_each_variants_first_command_and_writes_nothing(
        calc_fast: Bench, capsys: pytest.CaptureFixture[str]) -> None:
    args = [*base(calc_fast), "--trials", "3", "--dry-run",
            "--agent", "one=cat {prompt_file} > /dev/null; echo {case_id} {trial}; awk '{print}' /dev/null",
            "--agent", f"two=cd {{workspace}} && {PY} -c pass"]
    code, out, _ = call(args, capsys)
    assert code == ExitCode.OK
    assert out.splitlines() == [
        "one::calc-add #1: cat /task/prompt.md > /dev/null; echo calc-add 1; awk '{print}' /dev/null",
        f"two::calc-add #1: cd /workspace && {PY} -c pass",
    ]
    assert not calc_fast.results.exists()


def test_dry_run_without_sandbox_shows_the_host_paths(calc_fast: Bench,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call([*base(calc_fast), "--sandbox", "none", "--dry-run", "--agent-command", "true {workspace}"],
                        capsys)
    scratch = Path(tempfile.gettempdir()) / f"hindcast-{os.getuid()}" / "hindcast-calc-add-XXXXXXXX"
    assert code == ExitCode.OK and out == f"default::calc-add #1: true {shlex.quote(str(scratch / 'workspace'))}\n"
    assert not calc_fast.results.exists()


def test_dry_run_in_a_mode_without_agent(calc_fast: Bench, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = call([*base(calc_fast), "--mode", "oracle", "--dry-run"], capsys)
    assert code == ExitCode.OK and out == "oracle::calc-add #1: no agent (oracle mode)\n"
    assert not calc_fast.results.exists()


def test_resuming_a_run_whose_agent_is_gone_is_refused(calc_fast: Bench, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    script = tmp_path / "my-agent"
    script.write_text(f"#!/bin/sh\nexec {agent('crash')}\n")
    script.chmod(0o755)
    code, _, _ = call([*base(calc_fast), "--agent", f"mine={script}"], capsys)
    assert code == ExitCode.FAILED
    (run_dir,) = calc_fast.results.iterdir()
    manifest = (run_dir / "run.json").read_bytes()
    script.unlink()
    code, out, err = call([*base(calc_fast), "--resume", str(run_dir)], capsys)
    assert code == ExitCode.BAD_INPUT and out == "" and err.count("\n") == 1
    assert f"agent 'mine': {script}: no such file" in err
    assert (run_dir / "run.json").read_bytes() == manifest and list(calc_fast.results.iterdir()) == [run_dir]


@pytest.mark.parametrize("preset", ["codex", "claude", "gemini", "opencode", "mini", "aider"])
def test_a_preset_that_starts_with_cd_still_needs_its_program(calc_fast: Bench, preset: str,
                                                               capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    path = os.pathsep.join([str(Path(sys.executable).parent), "/usr/bin", "/bin"])
    monkeypatch.setenv("PATH", path)
    assert shutil.which(preset, path=path) is None
    code, out, err = call([*base(calc_fast), "--agent", preset, "--agent-arg", "model=m"], capsys)
    assert code == ExitCode.BAD_INPUT and out == "" and err.count("\n") == 1
    assert f"agent '{preset}': '{preset}' is not a program on PATH" in err
    assert not calc_fast.results.exists()


def test_a_run_too_short_to_gate_is_warned_up_front(calc_fast: Bench, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call([*base(calc_fast), "--trials", "2", "--dry-run", "--agent-command", "true"], capsys)
    assert code == ExitCode.OK
    assert ("warning: --trials 2: runner compare needs at least 3 non-error trials per case, so this run can be "
            "reported but not gated") in err.splitlines()
    code, _, err = call([*base(calc_fast), "--trials", "3", "--dry-run", "--agent-command", "true"], capsys)
    assert code == ExitCode.OK and "--trials" not in err


def test_a_run_whose_cases_are_all_advisory_is_warned_up_front(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    advisory = graded_quickly(tmp_path / "advisory", policy="advisory")
    code, _, err = call([*base(advisory), "--dry-run", "--agent-command", "true"], capsys)
    assert code == ExitCode.OK
    assert ("warning: every case of this run is advisory (1), so runner compare can warn but never block on it "
            "(make the cases that must hold blocking: authoring set --policy blocking ID..., or --critical)"
            ) in err.splitlines()
    for name, changes in (("blocking", {"policy": "blocking"}), ("critical", {"critical": True})):
        bench = graded_quickly(tmp_path / name, **changes)
        code, _, err = call([*base(bench), "--dry-run", "--agent-command", "true"], capsys)
        assert code == ExitCode.OK and "advisory" not in err, name
    code, _, err = call([*base(advisory), "--dry-run", "--mode", "oracle"], capsys)
    assert code == ExitCode.OK and "advisory" not in err
