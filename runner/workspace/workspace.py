"""Trial workspaces: the base tree in a fresh repository with one commit and no history to mine."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
import time
from pathlib import Path

from corpus.errors import GitError, WorkspaceError
from corpus.gitutil import FIXED_IDENTITY, git_env, resolve_commit, run_git

BASE_BRANCH = "main"
BASE_MESSAGE = "base"
NEUTRAL_ATTRIBUTES = ("* !text !eol !crlf !working-tree-encoding !filter !ident !diff !merge !export-subst "
                      "!export-ignore\n")
"""`info/attributes` of every git directory the harness reads a workspace through: it outranks the workspace's own
`.gitattributes`, so no filter, encoding or end-of-line rule of the candidate's runs or changes what is recorded."""
STAT_CONFIG = (("core.checkStat", "minimal"), ("core.trustctime", "false"))
"""How the workspaces' git (and the snapshots') decide a file is unchanged: size and mtime only, so a byte copy of
a checkout with its index needs no re-read of any file."""


def create_workspace(repo: Path, commit: str, dest: Path) -> Path:
    """Extract commit's tree from repo into dest (a new or empty directory) and make it a one-commit repo.

    The tree is extracted exactly as committed; a fresh `git init` commits it under a fixed identity and date. No remote,
    no other refs, no tags, no future history: asserted before returning.
    """
    if resolve_commit(repo, commit) is None:
        raise GitError(f"commit {commit} is not in the repository {repo}")
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise WorkspaceError(f"{dest}: workspace directory is not empty")
    _extract_tree(repo, commit, dest)
    env = git_env(FIXED_IDENTITY)
    run_git(["init", "-q", "-b", BASE_BRANCH], dest, env=env)
    # -f: a tracked file that matches .gitignore is still part of the base.
    run_git(["add", "-A", "-f"], dest, env=env)
    run_git(["commit", "-q", "--no-verify", "--allow-empty", "-m", BASE_MESSAGE], dest, env=env)
    assert_isolated(dest)
    return dest


def _extract_tree(repo: Path, commit: str, dest: Path) -> None:
    """Write commit's tree into dest through a throw-away index.

    Like `git archive`, but exact: `export-ignore` and `export-subst` attributes would silently drop or rewrite
    files (projects mark whole test folders export-ignore), so the tree is read into a temporary index and
    checked out from there.
    """
    git_dir = run_git(["rev-parse", "--absolute-git-dir"], repo).stdout.decode().strip()
    with tempfile.TemporaryDirectory(prefix="hindcast-index-") as scratch:
        env = git_env({"GIT_INDEX_FILE": str(Path(scratch) / "index")})
        base = ["--git-dir", git_dir, "--work-tree", str(dest)]
        run_git([*base, "read-tree", commit], repo, env=env)
        run_git([*base, "checkout-index", "--all", "--force"], repo, env=env)


def assert_isolated(workspace: Path) -> str:
    """Check the no-future-history invariant and return the base commit's sha.

    Exactly one commit is reachable from all refs, there are no tags and no remotes.
    """
    commits = run_git(["rev-list", "--all"], workspace).stdout.split()
    if len(commits) != 1:
        raise WorkspaceError(f"{workspace}: expected exactly one commit, found {len(commits)}")
    if run_git(["tag", "--list"], workspace).stdout.strip():
        raise WorkspaceError(f"{workspace}: workspace has tags")
    if run_git(["remote"], workspace).stdout.strip():
        raise WorkspaceError(f"{workspace}: workspace has a remote")
    return commits[0].decode()


def build_template(repo: Path, commit: str, dest: Path) -> Path:
    """A git directory (dest/.git) holding commit's tree under the base commit, seed of many trial workspaces.

    Only the objects of the tree are packed over from the source, so nothing of its history comes along. The
    base commit is the one `create_workspace` makes (fixed identity, date and message), with the tree exact.
    The isolation invariant is asserted here; workspaces are exact copies of this directory.
    """
    if resolve_commit(repo, commit) is None:
        raise GitError(f"commit {commit} is not in the repository {repo}")
    tree = run_git(["rev-parse", f"{commit}^{{tree}}"], repo).stdout.decode().strip()
    env = git_env(FIXED_IDENTITY)
    dest.mkdir(parents=True, exist_ok=True)
    run_git(["init", "-q", "--template=", "-b", BASE_BRANCH], dest, env=env)
    objects = run_git(["rev-list", "--objects", tree], repo).stdout
    # pack-objects reads the source's objects through alternates given only in its environment and writes the
    # pack with its index straight into the template; nothing points at the source afterwards.
    source_objects = run_git(["rev-parse", "--path-format=absolute", "--git-path", "objects"], repo)
    pack_env = git_env({"GIT_DIR": str(dest / ".git"),
                        "GIT_ALTERNATE_OBJECT_DIRECTORIES": source_objects.stdout.decode().strip()})
    run_git(["pack-objects", "-q", "--window=0", str(dest / ".git" / "objects" / "pack" / "pack")], dest,
            input=objects, env=pack_env)
    sha = run_git(["commit-tree", "-m", BASE_MESSAGE, tree], dest, env=env).stdout.decode().strip()
    run_git(["update-ref", f"refs/heads/{BASE_BRANCH}", sha], dest)
    for key, value in STAT_CONFIG:
        run_git(["config", key, value], dest)
    (dest / ".git" / "info").mkdir(exist_ok=True)
    (dest / ".git" / "info" / "attributes").write_text(NEUTRAL_ATTRIBUTES)
    assert_isolated(dest)
    return dest / ".git"


def template_tree(template: Path) -> tuple[str, frozenset[str]]:
    """A template's base tree: its sha and every file and directory path in it."""
    env = git_env({"GIT_DIR": str(template)})
    tree = run_git(["rev-parse", "HEAD^{tree}"], template, env=env).stdout.decode().strip()
    out = run_git(["ls-tree", "-r", "-t", "--name-only", "-z", tree], template, env=env).stdout
    return tree, frozenset(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)


def workspace_from_template(template: Path, dest: Path) -> Path:
    """A fresh workspace in dest (new or empty): a copy of a `build_template` git directory, checked out."""
    dest.mkdir(parents=True, exist_ok=True)
    if any(dest.iterdir()):
        raise WorkspaceError(f"{dest}: workspace directory is not empty")
    shutil.copytree(template, dest / ".git", symlinks=True)
    run_git(["read-tree", "--reset", "-u", "HEAD"], dest)
    return dest


def pristine_workspace(template: Path, dest: Path) -> Path:
    """A checkout of a template whose index needs no refresh: every file's mtime is set a little in the past and
    the index rewritten after, so copies of it (`copy_workspace`) start with every entry clean (see STAT_CONFIG)."""
    workspace_from_template(template, dest)
    past = time.time() - 10
    for root, dirs, files in os.walk(dest):
        if root == str(dest):
            dirs.remove(".git")
        for name in files + dirs:
            os.utime(os.path.join(root, name), (past, past), follow_symlinks=False)
    run_git(["update-index", "-q", "--refresh"], dest)
    return dest


def copy_workspace(source: Path, dest: Path, *, made: bool = False) -> Path:
    """A byte copy of a workspace (files, links, modes and mtimes, its .git and index) at dest, which must not exist
    (made: an empty directory there already, given the source's mode and times at the end).

    Each file is created, filled by the kernel (`copy_file_range`), given its mode and times through its open
    descriptor; links are copied, never followed. `shutil.copytree` does the same with a path lookup per call and
    extended attributes listed per file, which no checkout has: more of the harness's CPU, twice a trial
    (bench/RESULTS.md). A special file (a fifo, a socket) is an OSError, as with copytree.
    """
    if not made:
        os.makedirs(dest, 0o700)  # missing parents made, as copytree does
    directories = [(os.stat(source), str(dest))]
    pending = [(str(source), str(dest))]
    while pending:
        source_dir, dest_dir = pending.pop()
        with os.scandir(source_dir) as entries:
            for entry in entries:
                target = os.path.join(dest_dir, entry.name)
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISDIR(info.st_mode):
                    os.mkdir(target, 0o700)
                    directories.append((info, target))
                    pending.append((entry.path, target))
                elif stat.S_ISLNK(info.st_mode):
                    os.symlink(os.readlink(entry.path), target)
                    os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns), follow_symlinks=False)
                elif stat.S_ISREG(info.st_mode):
                    _copy_file(entry.path, target, info)
                else:
                    raise OSError(f"{entry.path}: not a file, link or directory: the workspace cannot be copied")
    for info, directory in reversed(directories):  # deepest first: filling a directory changes its mtime
        os.chmod(directory, stat.S_IMODE(info.st_mode))
        os.utime(directory, ns=(info.st_atime_ns, info.st_mtime_ns))
    return dest


def _copy_bytes(reading: int, writing: int, size: int) -> None:
    """Copy size bytes between descriptors in the kernel, or through a buffer where this file system cannot."""
    left = size
    try:
        while left > 0:
            copied = os.copy_file_range(reading, writing, left)
            if copied == 0:  # the source shrank meanwhile
                return
            left -= copied
    except OSError as exc:
        if exc.errno not in (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP):
            raise
        while chunk := os.read(reading, 1 << 20):
            view = memoryview(chunk)
            while view:
                view = view[os.write(writing, view):]


def _copy_file(source: str, target: str, info: os.stat_result) -> None:
    """Copy one regular file's bytes, mode and times (links never followed)."""
    reading = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    try:
        writing = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        try:
            _copy_bytes(reading, writing, info.st_size)
            os.fchmod(writing, stat.S_IMODE(info.st_mode))
            os.utime(writing, ns=(info.st_atime_ns, info.st_mtime_ns))
        finally:
            os.close(writing)
    finally:
        os.close(reading)
