"""The process environment of setup, agent and grader commands, including a named Python interpreter."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from corpus.errors import WorkspaceError
from corpus.interpreters import find_python

# Variables that would point a command at Hindcast's own files or change how Python behaves for it.
SCRUBBED_PREFIXES = ("HINDCAST_", "PYTEST_", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX")


def base_environment() -> dict[str, str]:
    """The current environment without variables that leak the harness into the commands it runs."""
    return {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}


def make_python_env(version: str, venv_dir: Path, env: dict[str, str]) -> dict[str, str]:
    """Create an environment dir for the interpreter outside the workspace and put it first on PATH.

    Python 3 gets a venv. Python 2 has no venv module: it gets a bin directory of links to the interpreter and
    a private user base (PYTHONUSERBASE, with PIP_USER=1), so `pip install` in setup lands beside the workspace
    instead of in the shared interpreter.
    """
    python = find_python(version)
    bin_dir = venv_dir / "bin"
    path = str(bin_dir)
    if version.startswith("2"):
        bin_dir.mkdir(parents=True, exist_ok=True)
        for alias in ("python", "python2", f"python{version}"):
            (bin_dir / alias).symlink_to(python)
        for alias in ("pip", "pip2", f"pip{version}"):
            if (python.parent / alias).exists():
                (bin_dir / alias).symlink_to(python.parent / alias)
        user_base = venv_dir / "user"
        env = {**env, "PYTHONUSERBASE": str(user_base), "PIP_USER": "1"}
        path = f"{bin_dir}{os.pathsep}{user_base / 'bin'}"
    else:
        proc = subprocess.run([str(python), "-m", "venv", str(venv_dir)], capture_output=True, check=False)
        if proc.returncode != 0:
            detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise WorkspaceError(f"cannot create a venv with {python}: {detail[-1] if detail else 'failed'}")
        env = {**env, "VIRTUAL_ENV": str(venv_dir)}
    return {**env, "PATH": f"{path}{os.pathsep}{env.get('PATH', '')}"}
