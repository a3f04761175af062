"""The process environment of setup, agent and grader commands, including a named Python interpreter."""

from __future__ import annotations

import functools
import os
import re
import shutil
import sysconfig
import threading
from pathlib import Path

import uv

from corpus.errors import WorkspaceError
from corpus.gitutil import git_text, run_git
from corpus.interpreters import find_python
from runner.children import run_child

# Variables that would point a command at Hindcast's own files or change how Python behaves for it.
SCRUBBED_PREFIXES = ("HINDCAST_", "PYTEST_", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "CONDA_PREFIX")


def base_environment() -> dict[str, str]:
    """The current environment without variables that leak the harness into the commands it runs."""
    return {k: v for k, v in os.environ.items() if not k.startswith(SCRUBBED_PREFIXES)}


UV_SETUP_ENV = {"UV_PYTHON_DOWNLOADS": "never", "UV_LINK_MODE": "copy", "UV_COMPILE_BYTECODE": "1",
                "UV_NO_PROGRESS": "1"}
"""uv settings of every setup command: never a downloaded interpreter, files copied into the environment (never
linked to the download cache), bytecode compiled at install (a read-only environment cannot write it later)."""


VERSION_VARIABLE = "SETUPTOOLS_SCM_PRETEND_VERSION"
"""Read by setuptools-scm and hatch-vcs (and so by most projects that take their version from git tags)."""
_TAG_VERSION = re.compile(r"^[vV]?(\d+(\.\d+)*)$")


_PINNED: dict[str, str | None] = {}
"""Base versions established elsewhere (a Ray driver, which has the history a worker's one-commit copy lacks)."""


def pin_base_version(commit: str, version: str | None) -> None:
    """Record commit's base version as the machine with the repository's history found it."""
    _PINNED[commit] = version


def base_version(repo: Path, commit: str) -> str | None:
    """The version setup installs the base as (see version_environment); None when no tag names one."""
    if commit in _PINNED:
        return _PINNED[commit]
    return _base_version(repo, commit)


@functools.lru_cache(maxsize=1024)
def _base_version(repo: Path, commit: str) -> str | None:
    described = run_git(["describe", "--tags", "--abbrev=0", commit], repo, check=False)
    tag = described.stdout.decode("utf-8", "replace").strip() if described.returncode == 0 else ""
    match = _TAG_VERSION.match(tag)
    if match is None:
        return None
    count = git_text(["rev-list", "--count", f"{tag}..{commit}"], repo)
    return match.group(1) + (f".post1.dev{count}" if count != "0" else "")


def version_environment(repo: Path, commit: str) -> dict[str, str]:
    """The base's version for a setup command: the workspace has no tags (no refs but its one commit), so a project
    versioned from git tags would install as version 0.1.dev1 and fail every requirement on itself (a test
    dependency that needs it, `>=3.0`). The nearest tag reachable from the base (history before it, nothing of
    the future): the tag itself at a tagged base, else a version just after it, e.g. 3.16.1.post1.dev4 four
    commits later."""
    version = base_version(repo, commit)
    return {VERSION_VARIABLE: version} if version else {}


def failure_line(tail: str) -> str:
    """The line of a failed command's output that says why: its first error line (`error:`, uv's `×`, pip's
    `ERROR:`) with the output's last line, else the last line; at most 300 characters."""
    lines = [line.strip() for line in tail.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    marked = next((line for line in lines if line.lower().startswith(("error", "×", "fatal"))), None)
    text = lines[-1] if marked is None or marked == lines[-1] else f"{marked} … {lines[-1]}"
    return text if len(text) <= 300 else text[:299] + "…"


_UV: list[Path] = []
_UV_LOCK = threading.Lock()


def uv_binary() -> Path:
    """The uv executable Hindcast depends on (resolved: a sandbox binds it at this path), found once per process.

    `uv.find_uv_bin` reads `sysconfig`, whose lazy initialisation is not thread-safe in Python 3.11 (a second
    thread sees a half-filled table: `"uv" + None`); trials and attempts run in threads, so the lookup is made
    under a lock, after `interpreter_facts` filled the table."""
    with _UV_LOCK:
        if not _UV:
            interpreter_facts()
            _UV.append(Path(os.path.realpath(uv.find_uv_bin())))
        return _UV[0]


def interpreter_facts() -> None:
    """Fill `sysconfig`'s table of this interpreter once, in the calling thread: every later reader (uv's lookup
    among them) finds it whole. Commands call it before they start threads."""
    sysconfig.get_config_vars()


def make_python_env(version: str, venv_dir: Path, env: dict[str, str],
                    cache: dict[str, str] | None = None) -> dict[str, str]:
    """Create an environment dir for the interpreter outside the workspace; return `python_env` of it.

    Python 3 gets a venv made by `uv venv --seed` (pip in it), or by `python -m venv` when uv refuses the
    interpreter or cannot fetch the seed packages. Python 2 has no venv module: it gets a bin directory of links
    to the interpreter and a private user base, so `pip install` in setup lands beside the workspace instead of
    in the shared interpreter. Either way `bin/uv` links to uv. cache holds the download cache variables
    (UV_CACHE_DIR) uv venv uses (without it uv uses a temporary cache: nothing is written to the user's own);
    they are not part of the returned environment.
    """
    python = find_python(version)
    bin_dir = venv_dir / "bin"
    if version.startswith("2"):
        bin_dir.mkdir(parents=True, exist_ok=True)
        for alias in ("python", "python2", f"python{version}"):
            (bin_dir / alias).symlink_to(python)
        for alias in ("pip", "pip2", f"pip{version}"):
            if (python.parent / alias).exists():
                (bin_dir / alias).symlink_to(python.parent / alias)
    else:
        _make_venv(python, venv_dir, env, cache if cache is not None else {"UV_NO_CACHE": "1"})
    link = bin_dir / "uv"
    if not os.path.lexists(link):
        link.symlink_to(uv_binary())
    return python_env(version, venv_dir, env)


def python_env(version: str, venv_dir: Path, env: dict[str, str]) -> dict[str, str]:
    """env with an environment dir made by `make_python_env` first on PATH: VIRTUAL_ENV for a venv, a private
    user base (PYTHONUSERBASE, PIP_USER=1) for Python 2."""
    path = str(venv_dir / "bin")
    if version.startswith("2"):
        user_base = venv_dir / "user"
        env = {**env, "PYTHONUSERBASE": str(user_base), "PIP_USER": "1"}
        path = f"{path}{os.pathsep}{user_base / 'bin'}"
    else:
        env = {**env, "VIRTUAL_ENV": str(venv_dir)}
    return {**env, "PATH": f"{path}{os.pathsep}{env.get('PATH', '')}"}


def _make_venv(python: Path, venv_dir: Path, env: dict[str, str], cache: dict[str, str]) -> None:
    """`uv venv --seed`, else `python -m venv`; WorkspaceError with the last line of the last failure."""
    uv_env = {**env, **UV_SETUP_ENV, **cache}
    venv_dir.parent.mkdir(parents=True, exist_ok=True)
    proc = run_child([str(uv_binary()), "venv", "--seed", "--no-project", "--no-config", "--quiet",
                      "--python", str(python), str(venv_dir)], env=uv_env, cwd=venv_dir.parent)
    if proc.returncode == 0:
        return
    if proc.returncode < 0:  # killed (an interrupted command): no fallback to start
        raise WorkspaceError(f"uv venv was killed by signal {-proc.returncode}")
    shutil.rmtree(venv_dir, ignore_errors=True)
    proc = run_child([str(python), "-m", "venv", str(venv_dir)], env=env, cwd=venv_dir.parent)
    if proc.returncode != 0:
        detail = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise WorkspaceError(f"cannot create a venv with {python}: {detail[-1] if detail else 'failed'}")
