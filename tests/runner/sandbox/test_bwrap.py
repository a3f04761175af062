"""The bubblewrap sandbox shows a command its workspace and the system, and nothing else of the host."""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import replace
from pathlib import Path

from runner.sandbox.bwrap import WORKSPACE, Bind, SandboxSpec, available, command_line


def sandboxed(tmp_path: Path, script: str, **changes: object) -> subprocess.CompletedProcess[str]:
    workspace, home = tmp_path / "ws", tmp_path / "home"
    workspace.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    spec = SandboxSpec(workspace=workspace, home=home, env={"PATH": "/usr/bin:/bin"})
    spec = replace(spec, **changes)  # type: ignore[arg-type]
    return subprocess.run(command_line(spec, ["bash", "-c", script]), capture_output=True, text=True,
                          timeout=60, check=False)


def test_bubblewrap_runs_here() -> None:
    assert available() is None


def test_the_workspace_is_writable_and_the_system_is_not(tmp_path: Path) -> None:
    done = sandboxed(tmp_path, f"pwd; echo made > {WORKSPACE}/new.txt; touch /usr/x 2>/dev/null || echo ro")
    assert done.stdout.splitlines() == [WORKSPACE, "ro"]
    assert (tmp_path / "ws" / "new.txt").read_text() == "made\n"


def test_nothing_else_of_the_host_is_there(tmp_path: Path) -> None:
    secret = tmp_path / "evals" / "cases" / "c" / "oracle.patch"
    secret.parent.mkdir(parents=True)
    secret.write_text("the answer")
    done = sandboxed(tmp_path, f"cat {secret} 2>/dev/null || echo unseen; ls {tmp_path} 2>/dev/null || echo gone; "
                               f"ls /root /home 2>&1 | tr '\\n' ' '")
    lines = done.stdout.splitlines()
    assert lines[:2] == ["unseen", "gone"]
    assert "agent" in lines[2] and "the answer" not in done.stdout


def test_a_hidden_path_under_a_bound_directory_is_an_empty_directory(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "corpus").mkdir(parents=True)
    (shared / "corpus" / "oracle.patch").write_text("the answer")
    (shared / "tool").write_text("a tool\n")
    done = sandboxed(tmp_path, f"cat {shared}/tool; ls -A {shared}/corpus | wc -l",
                     binds=(Bind(shared, str(shared)),), hide=(shared / "corpus",))
    assert done.stdout.split() == ["a", "tool", "0"]


def test_home_and_tmp_are_the_trials_own(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / ".tool").write_text("trial's own\n")
    done = sandboxed(tmp_path, "echo $HOME; cat $HOME/.tool; ls -A /tmp | wc -l; echo x > /tmp/t")
    assert done.stdout.split() == ["/home/agent", "trial's", "own", "0"]


def test_the_environment_is_only_what_the_spec_gives(tmp_path: Path) -> None:
    os.environ["HINDCAST_TEST_LEAK"] = "leaked"
    try:
        done = sandboxed(tmp_path, "echo ${HINDCAST_TEST_LEAK:-clean} $ONLY", env={"PATH": "/usr/bin:/bin",
                                                                                    "ONLY": "given"})
    finally:
        del os.environ["HINDCAST_TEST_LEAK"]
    assert done.stdout.split() == ["clean", "given"]


def test_without_network_only_loopback_is_there(tmp_path: Path) -> None:
    script = "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\\n' ' '"
    assert sandboxed(tmp_path, script, network=False).stdout.split() == ["lo"]
    assert len(sandboxed(tmp_path, script, network=True).stdout.split()) >= 1


def test_a_process_that_leaves_its_session_dies_with_the_command(tmp_path: Path) -> None:
    script = f"setsid bash -c 'sleep 1; touch {WORKSPACE}/late' & disown; touch {WORKSPACE}/started"
    sandboxed(tmp_path, script)
    time.sleep(2)
    assert (tmp_path / "ws" / "started").exists() and not (tmp_path / "ws" / "late").exists()
