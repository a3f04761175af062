"""The PATH a sandboxed command sees: the case's environment first, a host interpreter found through shims the
sandbox does not show standing at the shims' place."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from runner.sandbox.bwrap import command_line
from runner.sandbox.confine import Confinement, phase_sandbox


def test_a_pyenv_shim_python_does_not_shadow_the_case_environment(tmp_path: Path) -> None:
    """PATH holds the case's environment (only `python`, as a Python 2 user base has) and then pyenv's shims
    under HOME: inside, `python` is the case's and `python3` the host interpreter, shown at the shims' place."""
    home = Path(os.environ["HOME"])
    shims = home / ".pyenv" / "shims"
    shims.mkdir(parents=True)
    host = os.path.realpath(sys.executable)
    for name in ("python", "python3"):  # a pyenv shim is a script that runs the interpreter it picks
        (shims / name).write_text(f'#!/bin/sh\nexec {host} "$@"\n')
        (shims / name).chmod(0o755)
    case_bin = tmp_path / "case" / "bin"
    case_bin.mkdir(parents=True)
    (case_bin / "python").write_text("#!/bin/sh\necho case-python\n")
    (case_bin / "python").chmod(0o755)
    workspace, scratch = tmp_path / "ws", tmp_path / "scratch"
    workspace.mkdir()
    scratch.mkdir()
    env = {"PATH": f"{case_bin}{os.pathsep}{shims}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(home)}
    spec = phase_sandbox(Confinement(), "grader", scratch, workspace=workspace, env=env)
    assert spec is not None
    inside = spec.env["PATH"].split(os.pathsep)
    assert inside[0] == str(case_bin), inside
    assert str(shims) not in inside
    assert inside[1] == os.path.dirname(host), inside
    script = "python; python3 -c 'import sys; print(sys.version_info[0])'"
    out = subprocess.run(command_line(spec, ["bash", "-c", script]), capture_output=True, text=True, timeout=60,
                         check=False)
    assert out.stdout.split() == ["case-python", "3"], out.stderr

