"""Trials run in bubblewrap by default: what the run records, what the user can show the agent, loud refusals."""

from __future__ import annotations

import json
import shutil
import socket
import sys
import tempfile
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode, UsageError
from runner.cli import cli
from runner.report.report import render_table
from runner.runs.result import trial_path
from tests.testing.trialkit import AGENTS, PY, SANDBOX_ARGS, Bench, agent, variants


def transcript(loaded_dir: Path, variant: str) -> str:
    return (trial_path(loaded_dir, variant, "calc-add", 1) / "transcript.log").read_text()


def test_the_run_records_the_sandbox_and_the_report_shows_it(calc_fast: Bench) -> None:
    loaded = calc_fast.run(variants=variants(fixer=agent("fix")), agent_network=False)
    sandbox = json.loads((loaded.directory / "run.json").read_text())["runtime"]["sandbox"]
    assert sandbox["kind"] == "bwrap" and sandbox["version"] and sandbox["agent_network"] is False
    assert sandbox["binds"] == [str(p) for p in calc_fast.options().settings.agent_binds]
    assert f"sandbox bwrap {sandbox['version']}, agent network none, binds " in render_table(loaded)
    unconfined = calc_fast.run(variants=variants(fixer=agent("fix")), sandbox="none")
    assert "sandbox none" in render_table(unconfined) and unconfined.trials[0].outcome == "pass"
    assert loaded.manifest.runtime["fingerprint"] != unconfined.manifest.runtime["fingerprint"]


def test_missing_bubblewrap_is_refused_with_the_way_to_install_it(calc_fast: Bench, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    with pytest.raises(UsageError, match=r"bubblewrap \(bwrap\) is not on PATH: install bubblewrap"):
        calc_fast.run(variants=variants(fixer=agent("fix")))
    argv = ["run", "--corpus", str(calc_fast.corpus.root), "--all", "--results-dir", str(calc_fast.results),
            "--agent-command", "true"]
    assert run_cli(cli, "runner", argv) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "apt-get install bubblewrap" in err and "--sandbox none" in err
    assert not calc_fast.results.exists()
    assert run_cli(cli, "runner", ["verify", "--corpus", str(calc_fast.corpus.root)]) == ExitCode.BAD_INPUT
    assert "bubblewrap" in capsys.readouterr().err


def test_the_agent_sees_its_binds_and_home_copies_but_not_the_real_home(calc_fast: Bench, tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path.home()  # the test's own HOME (tests/conftest.py)
    (home / ".agentcli").mkdir()
    (home / ".agentcli" / "auth.json").write_text('{"token": "t0k"}\n')
    (home / "private.txt").write_text("not for agents\n")
    tool = tmp_path / "tools" / "mytool"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho tool ran\n")
    tool.chmod(0o755)
    command = (f"cat $HOME/.agentcli/auth.json; echo changed > $HOME/.agentcli/auth.json; {tool}; "
               f"cat {home}/private.txt 2>/dev/null || echo no-private; echo HOME=$HOME; {agent('fix')}")
    loaded = calc_fast.run(variants=variants(cli=command), agent_home=(home / ".agentcli",),
                           agent_binds=(*calc_fast.options().settings.agent_binds, tool.parent))
    text = transcript(loaded.directory, "cli")
    assert '{"token": "t0k"}' in text and "tool ran" in text and "no-private" in text
    assert "HOME=/home/agent" in text and loaded.trials[0].outcome == "pass"
    assert (home / ".agentcli" / "auth.json").read_text() == '{"token": "t0k"}\n'  # the copy changed, not this


def test_binds_into_hidden_paths_and_home_copies_outside_home_are_refused(calc_fast: Bench,
                                                                          tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"--agent-bind .*cases: inside .*, which trials must not see"):
        calc_fast.run(variants=variants(a="true"), agent_binds=(calc_fast.corpus.root / "cases",))
    with pytest.raises(UsageError, match=r"--agent-bind .*nope: no such file or directory"):
        calc_fast.run(variants=variants(a="true"), agent_binds=(tmp_path / "nope",))
    with pytest.raises(UsageError, match=r"--agent-home .*: not a file or directory under your home directory"):
        calc_fast.run(variants=variants(a="true"), agent_home=(tmp_path,))
    assert not calc_fast.results.exists()


def test_agent_network_none_cuts_the_host_off(calc_fast: Bench, capsys: pytest.CaptureFixture[str]) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]
    probe = (f"(python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 5)' "
             f"&& echo online || echo offline); {agent('fix')}")
    try:
        for network in ("host", "none"):
            results = calc_fast.tmp_path / f"results-{network}"
            argv = ["run", "--corpus", str(calc_fast.corpus.root), "--all", "--results-dir", str(results),
                    *SANDBOX_ARGS, "--agent-network", network, "--agent-command", probe]
            assert run_cli(cli, "runner", argv) == ExitCode.OK
            (run_dir,) = [p for p in results.iterdir() if not p.name.startswith(".")]
            assert ("online" if network == "host" else "offline") in transcript(run_dir, "default")
            recorded = json.loads((run_dir / "run.json").read_text())["runtime"]["sandbox"]["agent_network"]
            assert recorded is (network == "host")
            assert "sandbox bwrap" in capsys.readouterr().out
    finally:
        server.close()


def test_a_clone_under_the_temp_dir_is_bound_and_trials_still_see_no_scratch(calc_fast: Bench) -> None:
    """The README's first command from a clone under /tmp: the clone's agents are bound, while the scratch of
    this run (templates, other trials' workspaces) stays hidden even when the whole temp dir is bound."""
    temp = Path(tempfile.gettempdir())
    clone = temp / "clone" / "demo" / "agents"
    shutil.copytree(AGENTS, clone)
    fix = f"{PY} {clone / 'fix.py'}"
    loaded = calc_fast.run(variants=variants(fixer=fix), scratch_root=None, agent_binds=(clone, Path(sys.prefix)))
    assert [t.outcome for t in loaded.trials] == ["pass"]
    look = f"find {temp} -mindepth 1 | sort; echo END; {fix}"
    loaded = calc_fast.run(variants=variants(fixer=look), scratch_root=None, trials=2, jobs=2,
                           agent_binds=(temp, Path(sys.prefix)))
    assert [t.outcome for t in loaded.trials] == ["pass", "pass"]
    for trial in (1, 2):
        seen = (trial_path(loaded.directory, "fixer", "calc-add", trial) / "transcript.log").read_text()
        listed = seen.split("END")[0].split()
        assert str(clone / "fix.py") in listed
        assert not [p for p in listed if "calc-add" in p or "workspace" in p or "template" in p], listed
