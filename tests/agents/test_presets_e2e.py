"""Every preset end to end: `runner run --agent NAME` on a demo case in the default (bubblewrap) sandbox, the real
CLI against the scripted provider playing the case's fix; the trial passes, the patch holds only the fix, and
behaviour.json says what the provider served."""

from __future__ import annotations

import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from runner.behaviour.trajectory import budget_problem
from runner.runs.behaviour_record import Behaviour, Tokens
from tests.agents.conftest import CACHE
from tests.agents.harness import FOREIGN_PREFIXES
from tests.testing.isolation import PROJECT_BIN
from tests.testing.model_provider.dialects import DIALECTS
from tests.testing.model_provider.script import Edit, Finish, Read, Script, Shell, Usage, numbered_usage
from tests.testing.model_provider.server import ScriptedProvider

pytestmark = pytest.mark.agents

ROOT = Path(__file__).resolve().parents[2]
CASE = "tax-rounding-truncates"
PRICING = "shop/pricing.py"
BUGGY = "    return int(cents * rate)\n"
FIXED = "    return round_cents(cents * rate)\n"
CHECK = "python3 -c 'from decimal import Decimal; from shop.pricing import tax_for; print(tax_for(1999, Decimal(\"0.0825\")))'"
FAILING = "ls shop/no_such_module.py"
"""A command that fails (exit 2): the record must show it failed."""
PRICES = {"input": 1.0, "cache_read": 0.1, "cache_write": 1.25, "output": 4.0}
"""Dollars per million tokens of every model in the run's price table."""
TIMEOUT = 300


@dataclass(frozen=True)
class Cli:
    """How one preset is run in the test: its cache directory, model and the tools its script plays."""

    name: str
    model: str
    served_model: str
    """The model name the provider reports, as behaviour.json spells it (litellm's CLIs keep the provider
    prefix)."""
    tools: tuple[str | None, ...]
    """The tool each model call uses (None: text)."""


CLIS = {
    "codex": Cli("codex", "hindcast-scripted", "hindcast-scripted",
                 ("exec_command", "exec_command", "apply_patch", "exec_command", "exec_command", None)),
    "claude": Cli("claude", "claude-sonnet-4-5", "claude-sonnet-4-5", ("Bash", "Read", "Edit", "Bash", "Bash", None)),
    "gemini": Cli("gemini", "gemini-2.5-pro", "gemini-2.5-pro",
                  ("run_shell_command", "read_file", "replace", "run_shell_command", "run_shell_command", None)),
    "opencode": Cli("opencode", "hindcast-scripted", "hindcast-scripted", ("bash", "read", "edit", "bash", "bash", None)),
    "mini": Cli("mini", "openai/gpt-4o-mini", "openai/gpt-4o-mini", ("bash",) * 6),
    "aider": Cli("aider", "openai/gpt-4o-mini", "openai/gpt-4o-mini", (None, None)),
}


def fixing_script(name: str) -> Script:
    """The case's fix: read the file with a shell command and the read tool, fix it with the edit tool, run a
    command that fails, check the fix, finish (aider: the one edit reply)."""
    if name == "aider":
        return Script(steps=(Edit(PRICING, BUGGY, FIXED),), usage=numbered_usage(1))
    steps = (Shell(f"cat {PRICING}", expect="int(cents * rate)"), Read(PRICING, expect="def tax_for"),
             Edit(PRICING, BUGGY, FIXED), Shell(FAILING, expect="No such file"), Shell(CHECK, expect="165"),
             Finish("Tax is rounded to the nearest cent now."))
    return Script(steps=steps, usage=numbered_usage(len(steps)))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo application and its corpus, in a temp dir."""
    root = tmp_path_factory.mktemp("demo")
    subprocess.run([sys.executable, str(ROOT / "demo" / "build_app.py"), str(root / "app")], check=True,
                   capture_output=True)
    shutil.copytree(ROOT / "demo" / "corpus", root / "corpus", ignore=shutil.ignore_patterns("results"))
    return root


@dataclass(frozen=True)
class Trial:
    """One finished `runner run` of a preset."""

    folder: Path
    result: dict[str, Any]
    behaviour: dict[str, Any]
    log: list[dict[str, Any]]
    script: Script
    run: subprocess.CompletedProcess[str]


NOBODY = 65534
"""The uid and gid of the non-root runs."""
CHECKOUT = Path(__file__).resolve().parents[2]
"""This checkout (its packages, installed editable, are what the runner imports)."""


def as_nobody(argv: list[str], work: Path, shown: list[Path]) -> list[str]:
    """argv run as uid NOBODY: an outer bubblewrap (as root, no new user namespace) makes a view of this machine
    in which the paths that user needs and root keeps private are reachable, then setpriv drops to that user, who
    runs the runner and its sandboxes. /root and /tmp are empty there, as is every other directory above a shown
    path that others may not enter (a checkout or pytest's temp dir under a 0700 directory); the shown paths (the
    agent cache, the interpreters, this checkout and its environment) and work are bound back into them."""
    needed = [*shown, work]
    private = {Path("/root"), Path("/tmp")} | {
        parent for path in needed for parent in path.parents
        if parent != Path("/") and not os.stat(parent).st_mode & stat.S_IXOTH}
    private = {p for p in private if not any(q in p.parents for q in private)}  # the outermost of each nest
    outer = ["bwrap", "--dev-bind", "/", "/"]
    for top in sorted(private):
        outer += ["--perms", "1777" if top == Path("/tmp") else "0755", "--tmpfs", str(top)]
    parents = sorted({parent for path in needed for parent in path.parents
                      if any(top in parent.parents for top in private)}, key=lambda p: len(p.parts))
    for parent in parents:  # made first: bwrap would make them private to root
        outer += ["--perms", "0755", "--dir", str(parent)]
    for path in sorted(shown, key=lambda p: len(p.parts)):  # a path inside another bound after it
        outer += ["--ro-bind", str(path), str(path)]
    outer += ["--bind", str(work), str(work)]
    return [*outer, "--", "setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *argv]


def run_preset(name: str, demo: Path, tmp_path: Path, agent_bin: Callable[[str], Path], user: str = "root") -> Trial:
    """One `runner run --agent NAME` on the demo case, as root or as uid NOBODY (its files chowned to it)."""
    cli = CLIS[name]
    executable = agent_bin(name)
    install = next(p for p in executable.parents if p.name.startswith(f"{name}-"))
    script = fixing_script(name)
    work = tmp_path / "work"
    work.mkdir()
    if user != "root":
        shutil.copytree(demo, work / "demo", symlinks=True)
        demo = work / "demo"
    (work / "prices.json").write_text(json.dumps({cli.model: PRICES, cli.served_model: PRICES}))
    (work / "bin").mkdir()  # the CLI alone on PATH, not its environment's python
    (work / "bin" / name).symlink_to(executable)
    (work / "home").mkdir()
    python_home = Path(os.path.realpath(executable.parent / "python")).parents[1] if (
        executable.parent / "python").exists() else None
    binds = [install, *([python_home] if python_home else [])]
    with ScriptedProvider(script, DIALECTS[name], Path("/workspace"), tmp_path / "requests.jsonl",
                          model=cli.served_model.removeprefix("openai/")) as provider:
        env = {k: v for k, v in os.environ.items() if not k.startswith((*FOREIGN_PREFIXES, "XDG_"))}
        for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            env.pop(proxy, None)
        env.update(PATH=os.pathsep.join([str(PROJECT_BIN[0]), str(work / "bin"), str(Path(sys.executable).parent),
                                         env["PATH"]]),
                   OPENAI_BASE_URL=f"{provider.url}/v1", OPENAI_API_KEY="sk-scripted",
                   ANTHROPIC_BASE_URL=provider.url, ANTHROPIC_API_KEY="sk-ant-scripted",
                   GOOGLE_GEMINI_BASE_URL=provider.url, GEMINI_API_KEY="scripted-key",
                   NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
        argv = [str(Path(sys.executable).parent / "runner"), "run", "--corpus", str(demo / "corpus"), "--case", CASE,
                "--agent", name, "--agent-arg", f"model={cli.model}", "--results-dir", str(work / "results"),
                "--prices", str(work / "prices.json"), "--agent-timeout", str(TIMEOUT), "--name", name,
                *(arg for path in binds for arg in ("--agent-bind", str(path)))]
        if user != "root":
            env.update(HOME=str(work / "home"), TMPDIR="/tmp")
            for path in [work, *work.rglob("*")]:
                os.lchown(path, NOBODY, NOBODY)
            shown = [Path(os.path.realpath(sys.base_prefix)), CACHE, PROJECT_BIN[0].parent, CHECKOUT,
                     Path(sys.prefix), *([python_home] if python_home else [])]
            argv = as_nobody(argv, work, shown)
        else:
            env["HOME"] = str(work / "home")
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=TIMEOUT + 120, check=False)
        log = provider.requests()
    assert list((work / "results").glob("*/run.json")), f"{done.returncode}\n{done.stdout}\n{done.stderr}"
    (run_json,) = (work / "results").glob("*/run.json")
    folder = run_json.parent / name / CASE / "1"
    assert (folder / "result.json").is_file(), done.stdout + done.stderr
    behaviour = json.loads((folder / "behaviour.json").read_text())
    return Trial(folder, json.loads((folder / "result.json").read_text()), behaviour, log, script, done)


def served(log: list[dict[str, Any]], name: str) -> tuple[int, Usage]:
    """The model calls the provider answered (side requests included) and their usage summed; opencode's title
    request is in neither its stream nor its session, so only its main requests."""
    kinds = ("main",) if name == "opencode" else ("main", "side")
    answered = [entry for entry in log if entry["kind"] in kinds and entry["status"] == 200]
    total = Usage(*(sum(entry["usage"][name] for entry in answered)
                    for name in ("input", "cache_read", "cache_write", "output", "reasoning")))
    return len(answered), total


def expected_tokens(name: str, usage: Usage) -> Tokens:
    """What each CLI can report of the usage served, in behaviour.json's disjoint buckets."""
    if name == "codex":
        return Tokens(usage.input, usage.cache_read, usage.cache_write, usage.output, usage.reasoning)
    if name == "claude":  # Anthropic's usage has no reasoning count
        return Tokens(usage.input, usage.cache_read, usage.cache_write, usage.output, None)
    if name == "gemini":  # Gemini's usage has no cache writes: they are in the uncached prompt
        return Tokens(usage.input + usage.cache_write, usage.cache_read, None, usage.output, usage.reasoning)
    if name in ("opencode", "mini"):  # Chat Completions' usage has no cache writes: they are in the prompt
        return Tokens(usage.input + usage.cache_write, usage.cache_read, 0, usage.output, usage.reasoning)
    # aider: prompt and completion counts only
    return Tokens(usage.prompt, None, None, usage.output, None)


def check_trial(trial: Trial, name: str) -> None:
    cli = CLIS[name]
    result, record = trial.result, trial.behaviour["record"]
    explain = (f"{trial.run.stdout}\n{trial.run.stderr}\n{result}\n--- transcript\n"
               f"{(trial.folder / 'transcript.log').read_text()[-4000:]}\n--- stderr\n"
               f"{(trial.folder / 'agent.stderr.log').read_text()[-4000:]}")
    assert result["outcome"] == "pass", explain
    assert trial.run.returncode == 0, explain
    # the provider played every step once, in order, with the CLI's own tools
    main = [entry for entry in trial.log if entry["kind"] == "main"]
    # (aider is given no file: it asks to add the one its reply edits to the chat, then sends the request again)
    steps = [0, 0] if name == "aider" else list(range(len(trial.script.steps)))
    assert [entry["step"] for entry in main] == steps, explain
    assert tuple(entry["reply"]["tool"] for entry in main) == cli.tools
    assert [entry for entry in trial.log if entry["kind"] == "unknown" or entry["status"] != 200] == []
    # the patch is the fix and nothing else: no trajectory, history or configuration of the agent
    patch = (trial.folder / "candidate.patch").read_text()
    assert result["changed_files"] == [PRICING], patch
    assert f"-{BUGGY}+{FIXED}" in patch
    # behaviour.json says what the provider served
    calls, usage = served(trial.log, name)
    assert record["status"] == "parsed", record
    assert record["model"] == cli.served_model
    assert record["llm_calls"] == calls
    assert Tokens(**record["tokens"]) == expected_tokens(name, usage)
    if record["cost_source"] == "price_table":
        tokens = Tokens(**record["tokens"])
        assert record["cost_usd"] == pytest.approx(sum((getattr(tokens, b) or 0) * PRICES[b] for b in PRICES) / 1e6)
    else:
        assert record["cost_source"] == "agent" and record["cost_usd"] > 0
    if name != "aider":
        shells = [call for call in record["tool_calls"] if call["name"] == "shell"]
        failed = [call for call in shells if FAILING in (call["command"] or "")]
        assert [(call["status"], call["exit_code"]) for call in failed] == [("error", 2)], record["tool_calls"]
        assert all(call["status"] == "ok" for call in record["tool_calls"] if call not in failed), record["tool_calls"]
    # max_turns trips on the calls it made
    assert budget_problem(calls - 1, Behaviour(**{**record, "tool_calls": (), "tokens": Tokens()})) is not None
    # stdout alone is the transcript; stderr is kept beside it
    assert (trial.folder / "agent.stderr.log").is_file()


@pytest.mark.parametrize("user", ["root", "nobody"])
@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.xdist_group(f"agents-{name}")) for name in CLIS])
def test_preset_passes_the_demo_case(name: str, user: str, demo: Path, tmp_path: Path,
                                     agent_bin: Callable[[str], Path]) -> None:
    if user == "nobody" and os.getuid() != 0:
        user = "self"  # not root: the runner runs as this user, which is the non-root case already
    check_trial(run_preset(name, demo, tmp_path, agent_bin, user if user != "self" else "root"), name)


@pytest.mark.xdist_group("agents-claude")
def test_a_trial_whose_model_is_down_is_an_error_with_the_agents_own_event(demo: Path, tmp_path: Path,
                                                                          agent_bin: Callable[[str], Path]) -> None:
    """The provider's port closed: Claude Code retries (its api_retry events on stdout) until the agent timeout;
    the trial is an error whose reason is that event, not a fail of the untouched workspace."""
    executable = agent_bin("claude")
    install = next(p for p in executable.parents if p.name.startswith("claude-"))
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "claude").symlink_to(executable)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if not k.startswith((*FOREIGN_PREFIXES, "XDG_"))}
    env.update(PATH=os.pathsep.join([str(PROJECT_BIN[0]), str(tmp_path / "bin"), str(Path(sys.executable).parent),
                                     env["PATH"]]),
               ANTHROPIC_BASE_URL=f"http://127.0.0.1:{port}", ANTHROPIC_API_KEY="sk-ant-scripted")
    done = subprocess.run([str(Path(sys.executable).parent / "runner"), "run", "--corpus", str(demo / "corpus"),
                           "--case", CASE, "--agent", "claude", "--results-dir", str(tmp_path / "results"),
                           "--agent-timeout", "12", "--agent-bind", str(install)],
                          env=env, capture_output=True, text=True, timeout=300, check=False)
    (result_file,) = (tmp_path / "results").glob(f"*/claude/{CASE}/1/result.json")
    result = json.loads(result_file.read_text())
    assert result["outcome"] == "error", done.stdout + done.stderr
    # the agent's own retry event, and the egress proxy's record: not one byte reached the endpoint (the workspace
    # is then not graded)
    assert re.fullmatch(r"the agent never reached its model: api_retry attempt \d+: error \w+, HTTP status \w+ "
                        r"\(graded error: model never reached: no bytes to the provider\)",
                        result["reason"]), result["reason"]
    assert result["grader_outcome"] is None
    behaviour = json.loads((result_file.parent / "behaviour.json").read_text())["record"]
    assert (behaviour["llm_calls"], behaviour["tool_calls"]) == (None, [])
