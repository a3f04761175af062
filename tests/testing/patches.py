"""Real `git diff --binary` patches between two file sets, for the scorecard's analyses."""

from __future__ import annotations

import itertools
import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path

from tests.testing.gitrepo import git_env, git_init

Files = dict[str, str | bytes | None]
_counter = itertools.count()


class Patches:
    """A base tree in a real repository, and patches of it made by writing files over it."""

    def __init__(self, tmp_path: Path, base: Mapping[str, str | bytes | None]) -> None:
        self.repo = git_init(tmp_path / f"patches-{next(_counter)}")
        self.base_files: dict[str, str | bytes] = {k: v for k, v in base.items() if v is not None}
        self.base_sha = self.repo.commit(dict(self.base_files), "base")

    def patch(self, changes: Mapping[str, str | bytes | None], *, renames: bool = True) -> bytes:
        """The patch that writes (or, for None, deletes) changes over the base."""
        self.repo.git("checkout", "-q", "-f", self.base_sha)
        self.repo.git("clean", "-q", "-fdx")
        self.repo.write(dict(changes))
        self.repo.git("add", "-A")
        args = ["git", "diff", "--binary", "--cached", self.base_sha]
        args += ["-M"] if renames else ["--no-renames"]
        proc = subprocess.run(args, cwd=self.repo.path, env=git_env(), capture_output=True, check=True)
        self.repo.git("reset", "-q", "--hard", self.base_sha)
        return proc.stdout

    @property
    def base(self) -> Callable[[str], bytes | None]:
        """A reader of the base tree."""
        def read(path: str) -> bytes | None:
            value = self.base_files.get(path)
            return value.encode() if isinstance(value, str) else value
        return read
