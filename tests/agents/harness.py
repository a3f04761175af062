"""What every real-CLI test shares: the buggy project, the fixing script, the CLI's environment and its run."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.testing.gitrepo import GitRepo, git_init
from tests.testing.model_provider.script import Edit, Finish, Read, Script, Shell, Step, numbered_usage
from tests.testing.model_provider.server import ScriptedProvider

BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
PROMPT = "The add function in calc.py subtracts instead of adding. Fix it."
FINAL = "Fixed: add() in calc.py now returns a + b."
CHECK = "python3 -c 'from calc import add; print(\"add(2, 3) =\", add(2, 3))'"
RUN_TIMEOUT = 120
"""Seconds one CLI run may take (each takes a few against the scripted server)."""
CAPTURE_ENV = "HINDCAST_AGENTS_CAPTURE"
"""When set, a directory the tests copy each CLI's stdout (and Codex's rollout) into, as parser fixtures."""
FOREIGN_PREFIXES = ("OPENAI_", "ANTHROPIC_", "CLAUDE_", "CLAUDECODE", "GEMINI_", "GOOGLE_", "CODEX_", "OPENCODE",
                    "AIDER_", "MSWEA_", "LITELLM_", "VERTEX", "AWS_", "AZURE_")
"""Variables of the caller's environment no CLI run inherits: every CLI gets only the settings its test gives."""


def project(root: Path) -> GitRepo:
    """A git repository holding a tiny Python project whose add() subtracts."""
    repo = git_init(root)
    repo.commit({"calc.py": BUGGY, "test_calc.py": TEST}, "a calculator")
    return repo


def fixing_steps() -> tuple[Step, ...]:
    """Read the bug with a shell command and the read tool, fix it with the edit tool, check it, finish."""
    return (Shell("cat calc.py", expect="return a - b"),
            Read("calc.py", expect="return a - b"),
            Edit("calc.py", "    return a - b\n", "    return a + b\n"),
            Shell(CHECK, expect="add(2, 3) = 5"),
            Finish(FINAL))


def fixing_script(steps: tuple[Step, ...] | None = None) -> Script:
    """The fixing steps with numbered usage per call."""
    steps = steps or fixing_steps()
    return Script(steps=steps, usage=numbered_usage(len(steps)))


def agent_env(home: Path, extra: Mapping[str, str]) -> dict[str, str]:
    """The environment of one CLI run: the test's isolated one without any provider settings of the caller,
    HOME and every XDG directory under home, then extra."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(FOREIGN_PREFIXES)}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), XDG_CACHE_HOME=str(home / ".cache"),
               XDG_DATA_HOME=str(home / ".local" / "share"), XDG_STATE_HOME=str(home / ".local" / "state"),
               NO_COLOR="1", TERM="dumb", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    for proxy in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env.pop(proxy, None)
    env.update(extra)
    for directory in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        Path(env[directory]).mkdir(parents=True, exist_ok=True)
    return env


@dataclass(frozen=True)
class Run:
    """One finished CLI run."""

    returncode: int
    """Its exit status."""
    stdout: str
    """What it printed on stdout."""
    stderr: str
    """What it printed on stderr."""
    seconds: float
    """How long it took."""

    def jsonl(self) -> list[dict[str, Any]]:
        """Stdout's JSON lines (other lines skipped)."""
        events = []
        for line in self.stdout.splitlines():
            if line.startswith("{"):
                try:
                    events.append(json.loads(line))
                except ValueError:
                    continue
        return events

    def explain(self) -> str:
        """Everything a failed assertion should show."""
        return (f"exit {self.returncode} after {self.seconds:.1f}s\n--- stdout\n{self.stdout[-6000:]}\n"
                f"--- stderr\n{self.stderr[-6000:]}")


def run_cli(command: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None) -> Run:
    """Run a CLI in cwd to its end (stdin closed unless given); past RUN_TIMEOUT seconds it is killed and the run
    has exit status -9. PWD names cwd too: opencode takes its directory from PWD, not from the process."""
    start = time.monotonic()
    try:
        done = subprocess.run(command, cwd=cwd, env={**env, "PWD": str(cwd)}, input=stdin,
                              stdin=None if stdin is not None else subprocess.DEVNULL, capture_output=True,
                              text=True, timeout=RUN_TIMEOUT, check=False)
    except subprocess.TimeoutExpired as timeout:
        return Run(-9, _text(timeout.stdout), _text(timeout.stderr) + f"\n(killed after {RUN_TIMEOUT}s)",
                   time.monotonic() - start)
    return Run(done.returncode, done.stdout, done.stderr, time.monotonic() - start)


def _text(output: str | bytes | None) -> str:
    return output.decode("utf-8", "replace") if isinstance(output, bytes) else output or ""


def save_capture(name: str, files: Mapping[str, str | Path]) -> None:
    """Copy a run's outputs into $HINDCAST_AGENTS_CAPTURE/name/ when that is set (how the fixtures under
    tests/agents/captures are made); a str is written as it is, a Path copied."""
    target = os.environ.get(CAPTURE_ENV)
    if not target:
        return
    folder = Path(target) / name
    folder.mkdir(parents=True, exist_ok=True)
    for filename, content in files.items():
        if isinstance(content, Path):
            shutil.copyfile(content, folder / filename)
        else:
            (folder / filename).write_text(content)


def assert_played(provider: ScriptedProvider, script: Script, api: str, tools: list[str | None],
                  sides: int = 0) -> list[dict[str, Any]]:
    """The provider's log holds each step played once, in order, over api, with the given tool per step (None:
    text), and sides side requests; nothing failed, nothing asked for an unknown endpoint. The log is returned."""
    log = provider.requests()
    assert provider.errors == []
    assert [(entry["method"], entry["path"]) for entry in log if entry["kind"] == "unknown"] == []
    assert [entry["status"] for entry in log] == [200] * len(log)
    main = [entry for entry in log if entry["kind"] == "main"]
    assert [entry["step"] for entry in main] == list(range(len(script.steps)))
    assert {entry["api"] for entry in main} == {api}
    assert [entry["reply"]["tool"] for entry in main] == tools
    assert len([entry for entry in log if entry["kind"] == "side"]) == sides
    return log
