"""`runner run --resume` restores every setting the run was started with (its binds above all: an agent under a
bound directory runs again from anywhere); a setting given at the resume overrides it and stderr says so; the
INCOMPLETE banner names the binds; an environment cache without the sandbox is refused."""

from __future__ import annotations

import json
import shlex
import shutil
import signal
import subprocess
import time
from html import unescape
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from runner.runs.load import load_run
from runner.runs.manifest import read_manifest
from runner.settings import DEFAULT_ENV_CACHE, Settings
from tests.runner.report.htmlkit import parse
from tests.testing.runbuilder import write_run
from tests.testing.trialkit import (
    AGENTS,
    PY,
    RUNNER_FOR_CTRL_C,
    SANDBOX_BINDS,
    Bench,
    hang_token,
    processes_with,
)


def call(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", list(args))
    out, err = capsys.readouterr()
    return code, out, err


def tools_dir(tmp_path: Path) -> Path:
    """A directory of the agent's own, which its trials see only through --agent-bind."""
    tools = tmp_path / "tools"
    tools.mkdir()
    shutil.copy(AGENTS / "fix.py", tools / "fixer.py")
    return tools


def test_an_interrupted_run_resumed_from_elsewhere_keeps_its_binds(calc_fast: Bench, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    tools = tools_dir(tmp_path)
    token = hang_token()
    # Trial 1 fixes at once; the others wait for tools/gate, which the interrupted run never sees.
    command = f"test {{trial}} -eq 1 || test -e {tools}/gate || sleep {token}; {PY} {tools}/fixer.py {{case_id}}"
    binds = [arg for path in (tools, *SANDBOX_BINDS[1:]) for arg in ("--agent-bind", str(path))]
    proc = subprocess.Popen([*RUNNER_FOR_CTRL_C, "run", "--corpus", str(calc_fast.corpus.root), "--all",
                             "--trials", "3", "--results-dir", str(calc_fast.results), "--no-env-cache", *binds,
                             "--agent-network", "none", "--agent-command", command],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not processes_with(token):
        assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == ExitCode.INTERRUPTED, err
    (run_dir,) = [p for p in calc_fast.results.iterdir() if not p.name.startswith(".")]
    said = shlex.split(err.strip().splitlines()[-1].split(": ", 2)[2])
    assert said == ["runner", "run", "--resume", str(run_dir.absolute()), "--agent-network", "none", *binds,
                    "--no-env-cache"]
    recorded = read_manifest(run_dir).settings
    assert recorded is not None and recorded.settings == Settings(
        agent_network=False, agent_binds=(tools, *SANDBOX_BINDS[1:]), env_cache=None)
    assert load_run(run_dir).missing == 2
    (tools / "gate").touch()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    code, _, err = call(capsys, "run", "--resume", str(run_dir))
    assert code == ExitCode.OK, err
    assert "overridden" not in err
    resumed = load_run(run_dir)
    assert [t.outcome for t in resumed.trials] == ["pass"] * 3
    assert resumed.manifest.resumed[-1]["overridden"] == []
    assert resumed.manifest.runtime["sandbox"]["binds"] == [str(tools), *map(str, SANDBOX_BINDS[1:])]


def test_a_setting_given_at_the_resume_overrides_the_recorded_one_and_is_named(
        calc_fast: Bench, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tools = tools_dir(tmp_path)
    command = f"test -e {tools}/gate && {PY} {tools}/fixer.py"
    binds = [arg for path in (tools, *SANDBOX_BINDS[1:]) for arg in ("--agent-bind", str(path))]
    code, _, err = call(capsys, "run", "--corpus", str(calc_fast.corpus.root), "--all", "--trials", "2",
                        "--results-dir", str(calc_fast.results), *binds, "--agent-command", command)
    assert code == ExitCode.FAILED, err  # the agent exits 1 without the gate: every trial in error
    (run_dir,) = [p for p in calc_fast.results.iterdir() if not p.name.startswith(".")]
    (tools / "gate").touch()
    code, _, err = call(capsys, "run", "--resume", str(run_dir), "--jobs", "2", "--no-env-cache")
    assert code == ExitCode.OK, err
    assert "resume: the run's settings overridden: --jobs 1 -> 2, --env-cache default -> off\n" in err
    manifest = read_manifest(run_dir)
    assert [t.outcome for t in load_run(run_dir).trials] == ["pass"] * 2
    assert manifest.settings is not None and manifest.settings.settings.jobs == 1  # as the run was started
    assert manifest.settings.settings.env_cache == DEFAULT_ENV_CACHE
    assert manifest.resumed[-1]["overridden"] == ["--jobs", "--env-cache"]
    current = manifest.current_settings()
    assert current is not None and (current.settings.jobs, current.settings.env_cache) == (2, None)
    assert current.settings.agent_binds == (tools, *SANDBOX_BINDS[1:])
    overrides = f"resumed {manifest.resumed[-1]['at']} with --jobs 1 -> 2, --env-cache default -> off"
    code, out, _ = call(capsys, "report", str(run_dir))
    assert code == ExitCode.OK and overrides in out.splitlines()
    code, out, _ = call(capsys, "report", str(run_dir), "--json")
    assert json.loads(out)["resume_overrides"] == [overrides]
    html = tmp_path / "report.html"
    code, _, _ = call(capsys, "report", str(run_dir), "--html", str(html))
    assert code == ExitCode.OK and overrides in unescape(html.read_text())


def test_the_incomplete_banner_names_the_binds(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    runs = tmp_path / "results"
    old = write_run(runs, "old", {"cart": "p.."})
    data = json.loads((old / "run.json").read_text())
    data["runtime"]["sandbox"] = {"kind": "bwrap", "version": "0.8.0", "agent_network": True,
                                  "binds": ["/opt/agent cli"], "home_copies": []}
    (old / "run.json").write_text(json.dumps(data))
    new = write_run(runs, "new", {"cart": "p.."})
    data = json.loads((new / "run.json").read_text())
    data["settings"] = Settings(jobs=2, agent_binds=(Path("/opt/cli"), Path("/usr/lib/py")),
                                env_cache=DEFAULT_ENV_CACHE).to_json()
    (new / "run.json").write_text(json.dumps(data))
    moved = write_run(runs, "moved", {"cart": "p.."})  # resumed once with its agent bound from elsewhere
    data = json.loads((moved / "run.json").read_text())
    data["settings"] = Settings(agent_binds=(Path("/opt/cli"),), env_cache=DEFAULT_ENV_CACHE).to_json()
    data["resumed"] = [{"at": "2024-03-01T00:00:00+00:00", "trials": 2, "overridden": ["--agent-bind"],
                        "settings": Settings(agent_binds=(Path("/srv/cli"),), env_cache=DEFAULT_ENV_CACHE).to_json()}]
    (moved / "run.json").write_text(json.dumps(data))
    for run_dir, words in ((old, "--agent-bind '/opt/agent cli'"),
                           (new, "--jobs 2 --agent-bind /opt/cli --agent-bind /usr/lib/py"),
                           (moved, "--agent-bind /srv/cli")):
        banner = (f"INCOMPLETE: 2 of 3 planned trials missing; complete the run with `runner run --resume "
                  f"{run_dir} {words}`")
        code, out, _ = call(capsys, "report", str(run_dir))
        assert code == ExitCode.OK and out.splitlines()[0] == banner
        code, out, _ = call(capsys, "report", str(run_dir), "--json")
        assert json.loads(out)["notes"][0] == banner
        code, _, _ = call(capsys, "report", str(run_dir), "--html", str(tmp_path / "page.html"))
        assert code == ExitCode.OK
        page = parse((tmp_path / "page.html").read_text())
        assert page.find("p", "banner")[0].text == banner


@pytest.mark.parametrize("command", ["run", "verify"])
def test_an_environment_cache_without_the_sandbox_is_refused(calc_fast: Bench, tmp_path: Path, command: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--corpus", str(calc_fast.corpus.root), "--sandbox", "none", "--env-cache", str(tmp_path / "envs")]
    if command == "run":
        args += ["--all", "--agent-command", "true", "--results-dir", str(calc_fast.results)]
    code, out, err = call(capsys, command, *args)
    assert code == ExitCode.BAD_INPUT and out == ""
    assert err == ("runner: error: --env-cache with --sandbox none: a cached environment serves sandboxed trials "
                   "only, whose workspace is always /workspace (on the host each has a path of its own); drop "
                   "one of them\n")
    assert not calc_fast.results.exists() and not (tmp_path / "envs").exists()
