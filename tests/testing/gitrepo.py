"""Real git repositories for tests: fixed identity and dates, so hashes are reproducible."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

BASE_EPOCH = 1704067200  # 2024-01-01T00:00:00Z
DAY = 86400


def git_env(when: int | None = None) -> dict[str, str]:
    """An environment with git's global and system config isolated, identity and (optionally) date fixed."""
    env = dict(os.environ)
    env.update(
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Ada Tester",
        GIT_AUTHOR_EMAIL="ada@example.com",
        GIT_COMMITTER_NAME="Ada Tester",
        GIT_COMMITTER_EMAIL="ada@example.com",
    )
    if when is not None:
        stamp = f"{when} +0000"
        env.update(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp)
    return env


class GitRepo:
    """A work tree with helpers to write files and commit them at fixed, increasing dates."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.clock = BASE_EPOCH

    def git(self, *args: str, input: bytes | None = None) -> str:
        """Run git in the repository and return stripped stdout; fail loudly."""
        proc = subprocess.run(["git", *args], cwd=self.path, env=git_env(self.clock), input=input,
                              capture_output=True, check=False)
        if proc.returncode != 0:
            raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode()}")
        return proc.stdout.decode("utf-8", "replace").strip()

    def write(self, files: dict[str, str | bytes | None]) -> None:
        """Write (str or bytes) or delete (None) files relative to the work tree."""
        for rel, content in files.items():
            target = self.path / rel
            if content is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content)

    def commit(self, files: dict[str, str | bytes | None], message: str, *, days: int = 1) -> str:
        """Write files, stage everything and commit `days` after the previous commit; return the sha."""
        self.clock += days * DAY
        self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        """The sha of HEAD."""
        return self.git("rev-parse", "HEAD")


def git_init(path: Path, branch: str = "main") -> GitRepo:
    """Create an empty repository at path."""
    path.mkdir(parents=True, exist_ok=True)
    repo = GitRepo(path)
    repo.git("init", "-q", "-b", branch)
    return repo
