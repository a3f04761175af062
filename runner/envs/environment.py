"""The process environment of setup, agent and grader commands, including a named Python interpreter."""

from __future__ import annotations

import os
import pwd
import re
import shutil
import subprocess
from pathlib import Path

from corpus.errors import WorkspaceError

# Variables that would point a command at Hindcast's own files or change how Python behaves for it.
SCRUBBED_PREFIXES = ("HINDCAST_", "PYTEST_", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX")


def base_environment() -> dict[str, str]:
    """The current environment without variables that leak the harness into the commands it runs."""
    return {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}


def pyenv_roots() -> list[Path]:
    """Where pyenv keeps interpreters: $PYENV_ROOT, then the real user's ~/.pyenv (HOME may be isolated)."""
    roots = []
    if os.environ.get("PYENV_ROOT"):
        roots.append(Path(os.environ["PYENV_ROOT"]))
    try:
        roots.append(Path(pwd.getpwuid(os.getuid()).pw_dir) / ".pyenv")
    except KeyError:
        pass
    roots.append(Path.home() / ".pyenv")
    return roots


def find_python(version: str) -> Path:
    """The interpreter for a version such as "3.8": pyenv's installs first (its shims refuse unselected
    versions), then `pythonX.Y` on PATH. Raises WorkspaceError naming the version when none exists."""
    if not re.fullmatch(r"\d+(\.\d+)*", version):
        raise WorkspaceError(f"setup.python {version!r}: expected a version such as 3.8")
    name = f"python{version}"
    for root in pyenv_roots():
        versions = root / "versions"
        if not versions.is_dir():
            continue
        for candidate in sorted(versions.iterdir(), reverse=True):
            if candidate.name == version or candidate.name.startswith(version + "."):
                exe = candidate / "bin" / name
                if not exe.exists():
                    exe = candidate / "bin" / "python"
                if exe.exists():
                    return exe
    found = shutil.which(name)
    if found and "shims" not in Path(found).parts:
        return Path(found)
    raise WorkspaceError(f"setup.python {version}: no {name} interpreter found (pyenv or PATH)")


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
