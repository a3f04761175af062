"""Build the demo application repository deterministically.

    python demo/build_app.py [DEST] [--force] [--print-shas]

The history is a small pure-Python shop (`shop/` plus pytest tests) of a few dozen commits: features,
refactors, docs, formatting, changelog updates, and fixes whose parents contain the bug they fix. Identity,
dates and git configuration are fixed, so every run on every machine yields the same commit hashes.
Prints the tip sha last; `--print-shas` first prints every commit's sha and subject, oldest first.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

from history import AUTHORS, HISTORY, START, Edit, Op, Write

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DEST = REPO_ROOT / "demo" / "app"


def git_env(author: str, when: datetime) -> dict[str, str]:
    """An environment that makes git ignore user and system config and commit as `author` at `when`."""
    name, email = AUTHORS[author]
    stamp = when.strftime("%Y-%m-%dT%H:%M:%S+0000")
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL="/dev/null",
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
        GIT_AUTHOR_NAME=name,
        GIT_AUTHOR_EMAIL=email,
        GIT_AUTHOR_DATE=stamp,
        GIT_COMMITTER_NAME=name,
        GIT_COMMITTER_EMAIL=email,
        GIT_COMMITTER_DATE=stamp,
    )
    return env


def git(dest: Path, *args: str, env: dict[str, str], input: str | None = None) -> str:
    cmd = ["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", "-c", "core.hooksPath=/dev/null"]
    proc = subprocess.run(
        [*cmd, *args], cwd=dest, env=env, input=input, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout.strip()


def apply(dest: Path, op: Op) -> None:
    target = dest / op.path
    if isinstance(op, Write):
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(op.text.encode("utf-8"))
    elif isinstance(op, Edit):
        text = target.read_bytes().decode("utf-8")
        if text.count(op.old) != 1:
            raise RuntimeError(f"edit of {op.path} expects exactly one match of {op.old!r}")
        target.write_bytes(text.replace(op.old, op.new).encode("utf-8"))
    else:
        target.unlink()


def build(dest: Path) -> str:
    """Create the demo repository in `dest` (an absent or empty directory) and return its tip sha."""
    dest.mkdir(parents=True, exist_ok=True)
    git(dest, "-c", "init.defaultBranch=main", "init", "-q", env=git_env("dana", START))
    for index, commit in enumerate(HISTORY):
        env = git_env(commit.author, START + timedelta(days=index))
        for op in commit.ops:
            apply(dest, op)
        git(dest, "add", "-A", env=env)
        git(dest, "commit", "-q", "--no-verify", "--cleanup=strip", "-F", "-", env=env, input=commit.message)
    return git(dest, "rev-parse", "HEAD", env=git_env("dana", START))


def protected(dest: Path) -> bool:
    """True for directories --force must never delete: a filesystem root, home, or one holding this project."""
    keep = (Path(__file__).resolve(), REPO_ROOT, Path.home().resolve())
    return dest == Path(dest.anchor) or any(path == dest or path.is_relative_to(dest) for path in keep)


def prepare(dest: Path, force: bool) -> str | None:
    """Make `dest` ready to build into; return an error message when it may not be used."""
    if not dest.exists():
        return None
    if not dest.is_dir():
        return f"{dest} exists and is not a directory"
    if not any(dest.iterdir()):
        return None
    if not force:
        return f"{dest} exists and is not empty (use --force to rebuild it)"
    if protected(dest):
        return f"refusing to delete {dest}: it holds this project or is a top-level directory"
    shutil.rmtree(dest)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the demo application repository.")
    parser.add_argument("dest", nargs="?", type=Path, default=DEFAULT_DEST, help="target directory")
    parser.add_argument("--force", action="store_true", help="delete DEST first if it is not empty")
    parser.add_argument("--print-shas", action="store_true", help="list every commit's sha and subject")
    args = parser.parse_args(argv)
    dest: Path = args.dest.resolve()
    error = prepare(dest, args.force)
    if error:
        print(f"build_app: error: {error}", file=sys.stderr)
        return 2
    tip = build(dest)
    if args.print_shas:
        print(git(dest, "log", "--reverse", "--format=%H %s", env=git_env("dana", START)))
    print(tip)
    return 0


if __name__ == "__main__":
    sys.exit(main())
