"""Run git as a subprocess with a clean, predictable configuration that nothing outside the command sets."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from corpus.errors import GitError

FIXED_IDENTITY = {
    "GIT_AUTHOR_NAME": "hindcast",
    "GIT_AUTHOR_EMAIL": "hindcast@localhost",
    "GIT_COMMITTER_NAME": "hindcast",
    "GIT_COMMITTER_EMAIL": "hindcast@localhost",
    "GIT_AUTHOR_DATE": "2000-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2000-01-01T00:00:00+0000",
}


GIT = shutil.which("git") or "git"
"""git, resolved once when Hindcast starts: a `git` that appears on PATH later is never the one run."""

ISOLATED_CONFIG = (
    "-c", "core.hooksPath=/dev/null", "-c", "core.attributesFile=/dev/null", "-c", "core.excludesFile=/dev/null",
    "-c", "core.fsmonitor=false", "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false",
)
"""Settings every git command gets on its command line, whatever a repository's own config says: no hooks,
no attributes or excludes files, no file-system monitor, no line-ending conversion, no signing."""


def git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for git: no pager, no prompts, neither global nor system configuration, and none of the
    caller's GIT_* variables (which could point git at another repository, index or object store)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("GIT_")}
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_ATTR_NOSYSTEM": "1",
            "LC_ALL": "C",
        }
    )
    if extra:
        env.update(extra)
    return env


def run_git(
    args: list[str],
    cwd: Path | str,
    *,
    input: bytes | None = None,
    env: dict[str, str] | None = None,
    check: bool = True,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run `git args` in cwd and return the completed process; raise GitError on failure (or after timeout s)."""
    cmd = [GIT, *ISOLATED_CONFIG, *args]
    try:
        proc = subprocess.run(cmd, cwd=cwd, input=input, capture_output=True, env=env or git_env(), check=False,
                              timeout=timeout)
    except FileNotFoundError as exc:
        raise GitError(f"cannot run git in {cwd}: {exc.strerror}") from None
    except subprocess.TimeoutExpired:
        raise GitError(f"git {args[0]} timed out after {timeout:g}s in {cwd}") from None
    if check and proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        first = message[-1] if message else f"exit {proc.returncode}"
        raise GitError(f"git {args[0]} failed in {cwd}: {first}")
    return proc


def git_text(args: list[str], cwd: Path | str, *, env: dict[str, str] | None = None, check: bool = True,
             timeout: float | None = None) -> str:
    """Run git and return its stdout as stripped text."""
    return run_git(args, cwd, env=env, check=check, timeout=timeout).stdout.decode("utf-8", "replace").strip()


def open_repository(path: Path | str) -> Path:
    """Return the top level of the work tree at path, or raise a GitError naming it."""
    repo = Path(path)
    if not repo.exists():
        raise GitError(f"{repo}: no such directory")
    if not repo.is_dir():
        raise GitError(f"{repo}: not a directory")
    proc = run_git(["rev-parse", "--is-bare-repository"], repo, check=False)
    if proc.returncode != 0:
        raise GitError(f"{repo}: not a git repository")
    if proc.stdout.decode().strip() == "true":
        return repo.resolve()
    top = run_git(["rev-parse", "--show-toplevel"], repo, check=False)
    if top.returncode != 0:
        raise GitError(f"{repo}: not a git work tree")
    return Path(top.stdout.decode().strip()).resolve()


def resolve_commit(repo: Path, rev: str) -> str | None:
    """The full sha of rev in repo, or None when it is not a commit there."""
    proc = run_git(["rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], repo, check=False)
    if proc.returncode != 0:
        return None
    return proc.stdout.decode().strip()
