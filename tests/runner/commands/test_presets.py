"""Agent presets expand to their CLI's non-interactive command line and transcript format; --agent-arg varies them;
--trajectory-file names a file in the workspace; --prices is checked before anything runs."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode, UsageError
from runner.cli import cli
from runner.runs.manifest import Variant
from runner.settings import Settings, resume_command
from runner.trial.agent import render_command
from runner.trial.plan import parse_agents, with_trajectory_files, with_transcript_formats
from runner.trial.presets import PRESETS
from tests.testing.trialkit import SANDBOX_ARGS, Bench, agent


def call(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", argv)
    out, err = capsys.readouterr()
    return code, out, err


def base(bench: Bench) -> list[str]:
    return ["run", "--corpus", str(bench.corpus.root), "--results-dir", str(bench.results), "--all", *SANDBOX_ARGS]


def without_hosts(variants: tuple[Variant, ...]) -> tuple[Variant, ...]:
    return tuple(replace(v, hosts=()) for v in variants)


def test_each_preset_variant_carries_its_model_hosts() -> None:
    variants = parse_agents(("codex", "c=preset:claude", "mine=true"))
    assert [v.hosts for v in variants] == [PRESETS["codex"].hosts, PRESETS["claude"].hosts, ()]
    assert all(PRESETS[name].hosts for name in PRESETS)


def test_each_preset_expands_to_its_command_and_format() -> None:
    assert without_hosts(parse_agents(("codex", "claude", "gemini"))) == (
        Variant("codex", "cd {workspace} && codex exec --json --dangerously-bypass-approvals-and-sandbox "
                         "--skip-git-repo-check -C {workspace} - < {prompt_file}", "codex", preset="codex"),
        Variant("claude", "cd {workspace} && IS_SANDBOX=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 claude -p "
                          "--output-format stream-json --verbose --dangerously-skip-permissions < {prompt_file}",
                "claude", preset="claude"),
        Variant("gemini", "cd {workspace} && prompt=$(cat {prompt_file}) && gemini --output-format stream-json "
                          '--yolo --skip-trust --prompt "$prompt"', "gemini", preset="gemini"))
    opencode, mini, aider = parse_agents(("opencode", "mini", "aider"), ("model=gpt-4o",))
    assert (opencode.transcript_format, opencode.model) == ("opencode", "gpt-4o")
    assert opencode.command.endswith('opencode run --format json --auto --pure --model hindcast/gpt-4o "$prompt"')
    assert (mini.transcript_format, mini.preset) == ("mini-swe-agent", "mini")
    assert "--model gpt-4o --yolo --exit-immediately --cost-limit 0 --output {output_dir}/mini.traj.json" in mini.command
    assert (aider.transcript_format, aider.preset) == ("aider", "aider")
    assert "--no-gitignore" in aider.command and "--analytics-log {output_dir}/aider.analytics.jsonl" in aider.command
    for name in ("opencode", "mini", "aider"):
        with pytest.raises(UsageError, match=f"--agent {name}: {name} has no default model"):
            parse_agents((name,))


def test_named_presets_and_their_models() -> None:
    variants = parse_agents(("fast=preset:codex", "deep=preset:codex", "c=preset:claude", "mine=true"),
                            ("model=gpt-5-mini", "deep:model=gpt-5 high", "c:model=claude-opus-4-1"))
    assert [(v.name, v.preset, v.model) for v in variants] == [
        ("fast", "codex", "gpt-5-mini"), ("deep", "codex", "gpt-5 high"), ("c", "claude", "claude-opus-4-1"),
        ("mine", None, None)]
    fast, deep, claude, mine = variants
    assert fast.command.endswith("-C {workspace} -m gpt-5-mini - < {prompt_file}")
    assert "~/.codex/bundled-models.json gpt-5-mini ~/.codex/config.toml) 2>/dev/null; codex exec" in fast.command
    assert deep.command.endswith("-m 'gpt-5 high' - < {prompt_file}")
    assert claude.command.endswith("--dangerously-skip-permissions --model claude-opus-4-1 < {prompt_file}")
    assert mine == Variant("mine", "true")
    # an explicit --transcript-format still wins over the preset's
    assert with_transcript_formats(variants[:1], ("fast=generic",))[0].transcript_format == "generic"


@pytest.mark.parametrize(("agents", "args", "message"), [
    (("x=preset:goose",), (), "--agent 'x=preset:goose': no preset 'goose' (presets: codex, claude, gemini, opencode, mini, aider)"),
    (("x=true",), ("model=m",), "--agent-arg 'model=m': no preset agent (--agent codex|claude|gemini|opencode|mini|aider)"),
    (("codex",), ("other:model=m",), "--agent-arg 'other:model=m': no preset variant 'other'"),
    (("codex",), ("effort=high",), "--agent-arg effort: unknown argument (expected model)"),
    (("codex",), ("model",), "--agent-arg 'model': expected [NAME:]KEY=VALUE"),
    (("codex",), ("model= ",), "--agent-arg model=: the model is empty"),
])
def test_bad_presets_and_arguments(agents: tuple[str, ...], args: tuple[str, ...], message: str) -> None:
    with pytest.raises(UsageError) as info:
        parse_agents(agents, args)
    assert str(info.value) == message


def test_trajectory_files() -> None:
    two = (Variant("a", "true"), Variant("b", "true"))
    assert with_trajectory_files(two, ("out/run.traj.json", "b=b.traj")) == (
        Variant("a", "true", trajectory_file="out/run.traj.json"), Variant("b", "true", trajectory_file="b.traj"))
    # '=' in a path that names no variant is part of the path
    assert with_trajectory_files(two, ("x=y.json",))[0].trajectory_file == "x=y.json"
    for bad in ("/etc/passwd", "../up.json", "a/./b", "a//b", ""):
        with pytest.raises(UsageError, match="--trajectory-file"):
            with_trajectory_files(two, (bad,))
    with pytest.raises(UsageError, match="needs an agent"):
        with_trajectory_files((), ("t.json",))


def test_dry_run_shows_a_presets_expanded_command(calc_fast: Bench, capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("codex", "claude"):  # stand-ins: the dry run only checks they are there
        (bin_dir / program).write_text("#!/bin/sh\nexit 0\n")
        (bin_dir / program).chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    code, out, err = call([*base(calc_fast), "--dry-run", "--agent", "codex", "--agent", "c=preset:claude",
                           "--agent-arg", "model=o3", "--trajectory-file", "c=t.json"], capsys)
    assert code == ExitCode.OK and "Traceback" not in err
    assert out.splitlines() == [
        ("codex::calc-add #1: cd /workspace && (codex debug models > ~/.codex/bundled-models.json && node -e "
         + out.splitlines()[0].split("node -e ", 1)[1].split("' ", 1)[0] + "' ~/.codex/bundled-models.json o3 "
         "~/.codex/config.toml) 2>/dev/null; codex exec --json "
         "--dangerously-bypass-approvals-and-sandbox --skip-git-repo-check -C /workspace -m o3 - < /task/prompt.md"),
        ("c::calc-add #1: cd /workspace && IS_SANDBOX=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 claude -p "
         "--output-format stream-json --verbose --dangerously-skip-permissions --model o3 < /task/prompt.md")]
    assert not calc_fast.results.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--agent-command", "true", "--agent-arg", "model=x"], "--agent-arg varies a preset"),
    (["--agent", "x=preset:nope"], "no preset 'nope'"),
    (["--agent-command", "true", "--trajectory-file", "../x"], "--trajectory-file '../x': the path must stay"),
    (["--agent-command", "true", "--prices", "/nonexistent/prices.yaml"], "prices.yaml: file not found"),
])
def test_bad_options_are_one_line_and_write_nothing(calc_fast: Bench, capsys: pytest.CaptureFixture[str],
                                                    args: list[str], message: str) -> None:
    code, out, err = call([*base(calc_fast), *args], capsys)
    assert code == ExitCode.BAD_INPUT and out == "" and err.count("\n") == 1 and message in err
    assert not calc_fast.results.exists()


def test_a_bad_price_table_is_refused_before_the_run(calc_fast: Bench, capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    (tmp_path / "prices.json").write_text('{"gpt-5": {"input": 1}}')
    code, _, err = call([*base(calc_fast), "--agent-command", "true", "--prices", str(tmp_path / "prices.json")],
                        capsys)
    assert code == ExitCode.BAD_INPUT and "prices.json: gpt-5: output is required" in err
    assert not calc_fast.results.exists()


def test_resume_command_keeps_the_price_table(tmp_path: Path) -> None:
    line = resume_command(tmp_path / "run", Settings(prices=tmp_path / "p.yaml"))
    assert line.endswith(f"--prices {tmp_path / 'p.yaml'}")


def test_the_trajectory_file_and_the_presets_format_are_recorded_and_kept_by_a_resume(
        calc_fast: Bench, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _ = call([*base(calc_fast), "--agent", f"fixer={agent('fix')}", "--trajectory-file", "out.traj.json"],
                      capsys)
    assert code == ExitCode.OK
    (run_dir,) = calc_fast.results.iterdir()
    (variant,) = json.loads((run_dir / "run.json").read_text())["config"]["variants"]
    assert variant == {"name": "fixer", "command": agent("fix"), "transcript_format": "auto",
                       "trajectory_file": "out.traj.json", "hosts": [], "preset": None, "model": None}
    # a resume given the same option agrees with the recorded run; a different file is refused
    code, _, _ = call([*base(calc_fast), "--resume", str(run_dir), "--agent", f"fixer={agent('fix')}",
                       "--trajectory-file", "out.traj.json"], capsys)
    assert code == ExitCode.OK
    code, _, err = call([*base(calc_fast), "--resume", str(run_dir), "--agent", f"fixer={agent('fix')}",
                         "--trajectory-file", "other.json"], capsys)
    assert code == ExitCode.BAD_INPUT and "different variants" in err


@pytest.mark.parametrize("preset", ["codex", "claude", "gemini", "opencode", "mini", "aider"])
def test_a_preset_hands_the_whole_prompt_to_its_cli(preset: str, tmp_path: Path) -> None:
    """Each preset's command, run by bash with a stand-in CLI that prints its arguments and stdin: the prompt
    arrives whole (as stdin or as one argument), quotes and newlines included, and the model flag with it."""
    bin_dir, workspace = tmp_path / "bin", tmp_path / "work space"
    bin_dir.mkdir()
    workspace.mkdir()
    stand_in = bin_dir / preset
    stand_in.write_text('#!/bin/sh\npwd\nfor a in "$@"; do printf "[%s]\\n" "$a"; done\necho "stdin:"\ncat\n')
    stand_in.chmod(0o755)
    prompt = tmp_path / "prompt.md"
    prompt.write_text("Fix 'add' in \"calc.py\"\n$HOME `x`")
    (variant,) = parse_agents((preset,), ("model=m-1",))
    assert variant.command is not None
    command = render_command(variant.command, {"workspace": str(workspace), "prompt_file": str(prompt),
                                               "case_id": "c", "trial": "1", "output_dir": str(tmp_path)})
    ran = subprocess.run(["bash", "-c", command], capture_output=True, text=True, check=True,
                         stdin=subprocess.DEVNULL, env={**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    lines = ran.stdout.split("\n")
    # the workspace is the CLI's directory, or (codex) given with -C
    assert lines[0] == str(workspace) or lines[lines.index("[-C]") + 1] == f"[{workspace}]"
    assert ("[hindcast/m-1]" if preset == "opencode" else "[m-1]") in lines
    whole = "Fix 'add' in \"calc.py\"\n$HOME `x`"
    assert f"[{whole}]" in ran.stdout or ran.stdout.endswith("stdin:\n" + whole)


def test_a_presets_home_files_name_the_endpoint_and_never_replace_the_users_own(tmp_path: Path) -> None:
    from runner.trial.attempt import write_home_files
    from runner.trial.presets import PRESETS, home_files

    files = home_files(PRESETS["codex"], None, {"OPENAI_BASE_URL": "https://gateway.example/v1",
                                                "OPENAI_API_KEY": "sk-secret"})
    config = files[".codex/config.toml"]
    assert 'base_url = "https://gateway.example/v1"' in config and 'env_key = "OPENAI_API_KEY"' in config
    assert "sk-secret" not in config  # the key stays in the environment
    assert 'base_url = "https://api.openai.com/v1"' in home_files(PRESETS["codex"], None, {})[".codex/config.toml"]
    opencode = json.loads(home_files(PRESETS["opencode"], "m-1", {})[".config/opencode/opencode.json"])
    assert opencode["model"] == "hindcast/m-1" and list(opencode["provider"]["hindcast"]["models"]) == ["m-1"]
    assert opencode["provider"]["hindcast"]["options"]["apiKey"] == "{env:OPENAI_API_KEY}"
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "config.toml").write_text("# the user's own, copied by --agent-home\n")
    write_home_files(tmp_path, {**files, ".gemini/settings.json": "{}"})
    assert (tmp_path / ".codex" / "config.toml").read_text() == "# the user's own, copied by --agent-home\n"
    assert (tmp_path / ".gemini" / "settings.json").read_text() == "{}"


def test_each_presets_provider_hosts_and_a_gateways() -> None:
    from runner.trial.presets import PRESETS, provider_hosts

    assert {name: provider_hosts(preset, {}) for name, preset in PRESETS.items()} == {
        "codex": ("api.openai.com",), "claude": ("api.anthropic.com",),
        "gemini": ("generativelanguage.googleapis.com",), "opencode": ("api.openai.com",),
        "mini": ("api.openai.com",), "aider": ("api.openai.com",)}
    assert provider_hosts(PRESETS["claude"], {"ANTHROPIC_BASE_URL": "https://llm.corp.example:8443/anthropic",
                                              "OPENAI_BASE_URL": "https://other.example"}) == (
        "api.anthropic.com", "llm.corp.example:8443")  # a gateway's port is kept: only it is let through
