"""examples/ci: every Hindcast command the workflow and its gate script use exists with those flags, and the gate
script fails the job on BLOCK, warns on WARN and writes the reports."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest
from ruamel.yaml import YAML

from authoring.cli import cli as authoring_cli
from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from miner.cli import cli as miner_cli
from runner.cli import cli as runner_cli
from tests.test_demo import CORPUS, REPO_ROOT, build_tip
from tests.testing.isolation import isolated
from tests.testing.runbuilder import write_run
from tests.testing.trialkit import PY

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "ci"
TOOLS: dict[str, click.Group] = {"runner": runner_cli, "miner": miner_cli, "authoring": authoring_cli}
KINDS = {"cart": "critical", "login": "blocking", "docs": "advisory"}


GATE_VARIABLES = {"baseline": "evals/baseline.json", "candidate": "results/latest", "out": "hindcast-report",
                  "TRIAGE_RERUNS": "3"}
"""Sample values of gate.sh's variables."""


def workflow() -> dict:  # type: ignore[type-arg]
    return YAML(typ="safe").load((EXAMPLES / "hindcast.yml").read_text())  # type: ignore[no-any-return]


def workflow_scripts() -> list[str]:
    """The `run:` scripts of every step of the workflow."""
    return [step["run"] for job in workflow()["jobs"].values() for step in job["steps"] if "run" in step]


def expand(text: str, variables: dict[str, str]) -> str:
    """Shell variables become their value; a variable nobody set fails the test."""

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in variables:
            pytest.fail(f"${name} has no value in the workflow's env or gate.sh")
        return variables[name]

    return re.sub(r"\$\{(\w+)[^}]*\}|\$(\w+)", value, text)


def invocations(script: str, variables: dict[str, str]) -> list[list[str]]:
    """Every Hindcast command line of a shell script: continuation lines joined, variables expanded, split at
    pipes, lists and redirections."""
    text = script.replace("\\\n", " ")
    found = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0]
        line = re.sub(r"\$\{\{[^}]*\}\}", "EXPR", line)
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
        lexer.whitespace_split = True
        words: list[str] = []
        for token in [*lexer, ";"]:
            if token and set(token) <= set(";&|<>()"):
                if words and words[0] in TOOLS:
                    found.append([expand(word, variables) for word in words])
                words = []
                if token in ("<", ">", ">>"):
                    words = ["<redirect>"]
            elif words != ["<redirect>"]:
                words.append(token)
            else:
                words = []
    return found


def commands_used() -> list[list[str]]:
    env = {name: str(value) for job in workflow()["jobs"].values() for name, value in (job.get("env") or {}).items()}
    used = [words for script in workflow_scripts() for words in invocations(script, env)]
    used += invocations((EXAMPLES / "gate.sh").read_text(), GATE_VARIABLES)
    return used


def test_every_command_exists_with_its_flags() -> None:
    used = commands_used()
    names = {" ".join(words[:2]) for words in used}
    assert {"runner validate", "runner run", "runner report", "runner compare", "runner triage"} <= names
    for words in used:
        group = TOOLS[words[0]]
        command = group.commands.get(words[1])
        assert command is not None, f"{words[0]} has no command {words[1]!r}"
        # Parsing checks every option exists and gets the value type it needs; nothing runs. The parent carries the
        # group's settings, as when the group runs it: without them click would build (and keep) a help option
        # of its default names for the command, and `-h` would stop working in later tests.
        parent = click.Context(group, info_name=words[0], **group.context_settings)
        try:
            command.make_context(words[1], words[2:], parent=parent)
        except click.ClickException as exc:
            pytest.fail(f"{shlex.join(words)}: {exc.format_message()}")


def test_the_workflow_uses_the_gate_script_and_uploads_the_reports() -> None:
    scripts = workflow_scripts()
    assert any("bash .github/hindcast/gate.sh evals/baseline.json results/latest hindcast-report" in s for s in scripts)
    steps = [s for job in workflow()["jobs"].values() for s in job["steps"]]
    upload = next(s for s in steps if str(s.get("uses", "")).startswith("actions/upload-artifact"))
    assert upload["if"] == "always()" and "hindcast-report/" in upload["with"]["path"]


def gate(tmp_path: Path, base: dict[str, str], cand: dict[str, str]) -> subprocess.CompletedProcess[str]:
    runs = tmp_path / "results"
    write_run(runs, "base", base, kinds=KINDS)
    write_run(runs, "cand", cand, kinds=KINDS)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(["bash", str(EXAMPLES / "gate.sh"), str(runs / "base"), str(runs / "cand"),
                           str(tmp_path / "out")], capture_output=True, text=True, env=env, cwd=tmp_path,
                          check=False)


@pytest.mark.parametrize(("cand", "code", "line"), [
    ({"cart": "ppp", "login": "ppp", "docs": "ppp"}, 0, "Hindcast gate: PASS"),
    ({"cart": "ppp", "login": "ppp", "docs": "fff"}, 0,
     "::warning title=Hindcast gate::WARN: a person should look before merging (compare.html)"),
    ({"cart": "fff", "login": "ppp", "docs": "ppp"}, 4,
     "::error title=Hindcast gate::BLOCK: the candidate is worse than the baseline (compare.html)"),
])
def test_the_gate_script_maps_the_verdict(tmp_path: Path, cand: dict[str, str], code: int, line: str) -> None:
    proc = gate(tmp_path, {"cart": "ppp", "login": "ppp", "docs": "ppp"}, cand)
    assert proc.returncode == code, proc.stderr
    assert proc.stdout.splitlines()[-1] == line
    out = tmp_path / "out"
    assert (out / "report.html").read_text().startswith("<!doctype html>")
    assert (out / "compare.html").read_text().lower().startswith("<!doctype html>")
    assert (out / "compare.txt").read_text().splitlines()[-1].startswith("verdict: ")


def test_the_gate_script_fails_when_the_gate_cannot_judge(tmp_path: Path) -> None:
    proc = gate(tmp_path, {"cart": "ppp"}, {"cart": "p"})  # one trial: too few to judge
    assert proc.returncode == 3 and "refused" in (tmp_path / "out" / "compare.txt").read_text()
    assert proc.stdout.splitlines()[-1] == (
        "::error title=Hindcast gate::REFUSED: the gate could not judge: refused: the candidate run has fewer than "
        "3 non-error trials for cart (1)")
    missing = subprocess.run(["bash", str(EXAMPLES / "gate.sh"), str(tmp_path / "nowhere"), str(tmp_path / "none")],
                             capture_output=True, text=True, cwd=tmp_path, check=False,
                             env={**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"})
    assert missing.returncode == 3 and "runner: error:" in missing.stderr


def test_the_gate_script_takes_a_frozen_baseline(tmp_path: Path) -> None:
    runs = tmp_path / "results"
    write_run(runs, "base", {"cart": "ppp", "login": "ppp", "docs": "ppp"}, kinds=KINDS)
    write_run(runs, "cand", {"cart": "fff", "login": "ppp", "docs": "ppp"}, kinds=KINDS)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    frozen = tmp_path / "baseline.json"
    subprocess.run(["runner", "export", str(runs / "base"), "--json", str(frozen)], env=env, check=True, cwd=tmp_path)
    proc = subprocess.run(["bash", str(EXAMPLES / "gate.sh"), str(frozen), str(runs / "cand"), str(tmp_path / "out")],
                          capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert proc.returncode == 4, proc.stderr
    assert proc.stdout.splitlines()[-1] == (
        "::error title=Hindcast gate::BLOCK: the candidate is worse than the baseline (compare.html)")


DEMO_CASE = "tax-rounding-truncates"
"""The demo's critical case: a candidate that no longer fixes it is blocked."""


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Real runs of the demo's critical case, three trials each: the fixer (the baseline), the agent that changes
    nothing, and an agent that cannot start (every trial an error, as a CLI without its API key)."""
    root = tmp_path_factory.mktemp("ci-demo")
    with isolated(root):
        build_tip(root / "app")
        shutil.copytree(CORPUS, root / "corpus", ignore=shutil.ignore_patterns(
            "verification.json", "candidates", "results", "scan-state.yaml"))
        agents = root / "agents"
        shutil.copytree(REPO_ROOT / "demo" / "agents", agents)
        for name, command in (("fixer", f"{PY} {agents}/fixer.py {{case_id}}"),
                              ("noop", f"{PY} {agents}/noop.py {{prompt_file}}"), ("broken", "exit 1")):
            argv = ["run", "--corpus", str(root / "corpus"), "--case", DEMO_CASE, "--trials", "3", "--jobs", "2",
                    "--results-dir", str(root / "results"), "--name", name, "--agent-bind", str(agents),
                    "--agent-bind", sys.prefix, "--agent", f"candidate={command}"]
            assert run_cli(runner_cli, "runner", argv) in (ExitCode.OK, ExitCode.FAILED)
    return root / "results"


def demo_gate(tmp_path: Path, results: Path, candidate: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", **env}
    tmp_path.mkdir()
    return subprocess.run(["bash", str(EXAMPLES / "gate.sh"), str(results / "fixer"), str(results / candidate),
                           str(tmp_path / "out")], capture_output=True, text=True, env=environ, cwd=tmp_path,
                          check=False)


def test_the_gate_script_tells_a_measured_block_from_a_refusal_on_real_runs(demo_runs: Path, tmp_path: Path) -> None:
    worse = demo_gate(tmp_path / "worse", demo_runs, "noop")
    assert worse.returncode == 4, worse.stdout + worse.stderr
    assert worse.stdout.splitlines()[-1] == (
        "::error title=Hindcast gate::BLOCK: the candidate is worse than the baseline (compare.html)")
    assert json.loads((tmp_path / "worse" / "out" / "compare.json").read_text())["refused"] is False
    # Every trial in error: nothing was measured, and no triage reruns an agent that cannot start.
    errored = demo_gate(tmp_path / "errored", demo_runs, "broken", TRIAGE_RERUNS="1")
    assert errored.returncode == 3, errored.stdout + errored.stderr
    assert errored.stdout.splitlines()[-1] == (
        "::error title=Hindcast gate::REFUSED: the gate could not judge: refused: the candidate run has fewer "
        f"than 3 non-error trials for {DEMO_CASE} (0)")
    assert json.loads((tmp_path / "errored" / "out" / "compare.json").read_text())["refused"] is True
    assert not (tmp_path / "errored" / "out" / "triage.txt").exists()


def test_the_gate_script_skips_with_a_notice_without_the_agents_secret(demo_runs: Path, tmp_path: Path) -> None:
    environ = {k: v for k, v in os.environ.items() if k != "DEMO_API_KEY"}
    skipped = subprocess.run(["bash", str(EXAMPLES / "gate.sh"), str(demo_runs / "fixer"), str(demo_runs / "broken"),
                              str(tmp_path / "out")], capture_output=True, text=True, cwd=tmp_path, check=False,
                             env={**environ, "AGENT_SECRET": "DEMO_API_KEY"})
    assert skipped.returncode == 0 and skipped.stdout == (
        "::notice title=Hindcast gate::skipped: $DEMO_API_KEY is empty (secrets do not reach pull requests from "
        "forks), so no agent could run\n")
    assert not (tmp_path / "out").exists()
    given = demo_gate(tmp_path / "given", demo_runs, "noop", AGENT_SECRET="DEMO_API_KEY", DEMO_API_KEY="k")
    assert given.returncode == 4
