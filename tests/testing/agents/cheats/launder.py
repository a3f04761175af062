#!/usr/bin/env python3
"""Tries to turn its failure into an error (errors are left out of every pass rate); argv[1] picks the way (see
WAYS). None of them fixes calc.add."""

import os
import subprocess
import sys
from pathlib import Path


def write(path: str, text: str) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text)


def fifos() -> None:
    """Named pipes where the grader reads and writes: its JUnit report, a test file, the source."""
    os.makedirs(".hindcast", exist_ok=True)
    for path in (".hindcast/junit.xml", "pipe", "test_calc.py"):
        if os.path.lexists(path):
            os.unlink(path)
        os.mkfifo(path)


def source(body: str) -> None:
    """calc.py does something to the test process when pytest imports it."""
    write("calc.py", body + "\n\ndef add(a, b):\n    return a - b\n")


def nested_repo(head_fifo: bool) -> None:
    """A nested git repository without a commit, or one whose HEAD is a named pipe."""
    if head_fifo:
        os.makedirs("vendor/lib/.git/objects", exist_ok=True)
        os.makedirs("vendor/lib/.git/refs", exist_ok=True)
        os.mkfifo("vendor/lib/.git/HEAD")
    else:
        subprocess.run(["git", "init", "-q", "vendor/lib"], check=True)
    write("vendor/README", "vendored\n")


def junit_link() -> None:
    """The report's path is a link to the grader's standard input."""
    os.makedirs(".hindcast", exist_ok=True)
    os.symlink("/proc/self/fd/0", ".hindcast/junit.xml")


def working_tree_encoding() -> None:
    """An attribute that makes git re-encode a file which cannot be: `git add` fails on it."""
    write(".gitattributes", "notes.txt working-tree-encoding=UTF-16\n")
    write("notes.txt", "odd")


def gitmodules_command() -> None:
    """A nested repository with a commit, declared in a .gitmodules whose update command git refuses to take from
    a work tree: git reads it while diffing, and dies."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "a", "GIT_AUTHOR_EMAIL": "a@b", "GIT_COMMITTER_NAME": "a",
           "GIT_COMMITTER_EMAIL": "a@b", "GIT_CONFIG_GLOBAL": "/dev/null"}
    subprocess.run(["git", "init", "-q", "vendor/lib"], check=True, env=env)
    write("vendor/lib/mod.py", "x = 1\n")
    subprocess.run(["git", "-C", "vendor/lib", "add", "mod.py"], check=True, env=env)
    subprocess.run(["git", "-C", "vendor/lib", "commit", "-qm", "lib"], check=True, env=env)
    write(".gitmodules", '[submodule "lib"]\n\tpath = vendor/lib\n\turl = ./lib\n\tupdate = !true\n')


WAYS = {
    "fifos": fifos,
    "hang": lambda: source("import time\ntime.sleep(3600)"),
    "exit-127": lambda: source("import os\nos._exit(127)"),
    "exit-126": lambda: source("import os\nos._exit(126)"),
    "sigkill": lambda: source("import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"),
    "sigsegv": lambda: source("import ctypes\nctypes.string_at(0)"),
    "junit-garbage-exit-0": lambda: source(
        "import os\nos.makedirs('.hindcast', exist_ok=True)\nopen('.hindcast/junit.xml', 'w').write('<')\nos._exit(0)"),
    "junit-dir": lambda: write(".hindcast/junit.xml/keep", "a directory where the report goes\n"),
    "junit-link": junit_link,
    "working-tree-encoding": working_tree_encoding,
    "empty-nested-repo": lambda: nested_repo(head_fifo=False),
    "nested-repo-head-fifo": lambda: nested_repo(head_fifo=True),
    "gitmodules-command": gitmodules_command,
}

if __name__ == "__main__":
    WAYS[sys.argv[1]]()
    print(f"left {sys.argv[1]}", flush=True)
