"""Pinned installs of the real agent CLIs, in a cache directory outside the repository.

Run `python -m tests.agents.install [NAME ...]` to install them all (or the named ones); the `agents` tests' session
fixture calls `ensure` for the CLIs it runs. Each CLI lives in `<cache>/<name>-<version>/` (an npm prefix, or a uv
venv synced to the lock file under tests/agents/locks/) with a stamp written last: a directory with a matching
stamp is used as it is, so a second run costs a file read per CLI. The cache is
`$HINDCAST_AGENTS_CACHE`, else `${XDG_CACHE_HOME:-$HOME/.cache}/hindcast-test-agents`.

The npm CLIs ship their native binaries as optional dependency packages of the registry
(`@openai/codex@<v>-linux-x64`, `@anthropic-ai/claude-code-linux-x64`, `opencode-linux-x64`); npm installs the
one for this platform, and the postinstall steps of Claude Code and opencode only copy it into place."""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from uv import find_uv_bin

from corpus.interpreters import find_python

CACHE_ENV = "HINDCAST_AGENTS_CACHE"
"""The environment variable that names the cache directory."""
LOCKS = Path(__file__).parent / "locks"
"""The pip lock files of the PyPI CLIs (every distribution of their venvs, pinned)."""
REPOSITORY = Path(__file__).resolve().parents[2]
INSTALL_TIMEOUT = 900
"""Seconds one CLI's install may take."""


class InstallError(Exception):
    """A CLI could not be installed or does not run."""


@dataclass(frozen=True)
class Pinned:
    """One agent CLI at its pinned version."""

    name: str
    """The short name tests and the cache use (codex, claude, ...)."""
    registry: Literal["npm", "pypi"]
    """Where it comes from."""
    package: str
    """The registry package."""
    version: str
    """The pinned version."""
    executable: str
    """The command it installs."""
    python: str = "3.12"
    """The interpreter version of a PyPI CLI's venv."""

    @property
    def directory_name(self) -> str:
        """Its directory in the cache."""
        return f"{self.name}-{self.version}"

    def bin(self, directory: Path) -> Path:
        """Its executable inside its install directory."""
        if self.registry == "npm":
            return directory / "node_modules" / ".bin" / self.executable
        return directory / "bin" / self.executable

    def lock(self) -> Path:
        """A PyPI CLI's lock file."""
        return LOCKS / f"{self.package}.txt"

    def stamp(self) -> str:
        """What its stamp holds: the pin, and the lock file's digest for a PyPI CLI."""
        digest = hashlib.sha256(self.lock().read_bytes()).hexdigest() if self.registry == "pypi" else ""
        return json.dumps({"package": self.package, "version": self.version, "lock": digest})


PINNED = {pin.name: pin for pin in (
    Pinned("codex", "npm", "@openai/codex", "0.171.0", "codex"),
    Pinned("claude", "npm", "@anthropic-ai/claude-code", "2.1.197", "claude"),
    Pinned("gemini", "npm", "@google/gemini-cli", "0.61.0", "gemini"),
    Pinned("opencode", "npm", "opencode-ai", "1.18.33", "opencode"),
    Pinned("mini", "pypi", "mini-swe-agent", "2.4.6", "mini"),
    Pinned("aider", "pypi", "aider-chat", "0.86.2", "aider"),
)}
"""Every pinned CLI by name."""


def cache_dir(environ: Mapping[str, str]) -> Path:
    """The cache directory environ names; never inside the repository."""
    if environ.get(CACHE_ENV):
        path = Path(environ[CACHE_ENV])
    else:
        base = environ.get("XDG_CACHE_HOME") or str(Path(environ.get("HOME") or Path.home()) / ".cache")
        path = Path(base) / "hindcast-test-agents"
    path = path.expanduser().resolve()
    if path.is_relative_to(REPOSITORY):
        raise InstallError(f"the agent cache {path} is inside the repository; set {CACHE_ENV} elsewhere")
    return path


def ensure(pin: Pinned, cache: Path, environ: Mapping[str, str]) -> Path:
    """The executable of pin, installed into cache first unless its stamp is there; safe to run concurrently."""
    directory = cache / pin.directory_name
    stamp = directory / ".hindcast-stamp"
    if _stamped(stamp, pin):
        return pin.bin(directory)
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f".{pin.directory_name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _stamped(stamp, pin):
            return pin.bin(directory)
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir()
        with _scratch_home(cache / f".{pin.directory_name}.home") as home:
            env = {**_install_env(environ, cache), **home}
            if pin.registry == "npm":
                _npm_install(pin, directory, env)
            else:
                _venv_install(pin, directory, env)
            _check(pin, directory, env)
        stamp.write_text(pin.stamp())
    return pin.bin(directory)


def _stamped(stamp: Path, pin: Pinned) -> bool:
    try:
        return stamp.read_text() == pin.stamp()
    except OSError:
        return False


def _install_env(environ: Mapping[str, str], cache: Path) -> dict[str, str]:
    """The installers' environment: the caller's, with npm's and uv's caches in the agent cache and npm still
    reading the user's .npmrc (registry, certificates) from the real home."""
    env = dict(environ)
    env.update(npm_config_cache=str(cache / ".npm"), npm_config_update_notifier="false",
               npm_config_fund="false", npm_config_audit="false", UV_CACHE_DIR=str(cache / ".uv"),
               UV_NO_PROGRESS="1")
    userconfig = Path(environ.get("HOME") or Path.home()) / ".npmrc"
    if "npm_config_userconfig" not in env and userconfig.is_file():
        env["npm_config_userconfig"] = str(userconfig)
    return env


@contextmanager
def _scratch_home(scratch: Path) -> Iterator[dict[str, str]]:
    """HOME and the XDG directories in a scratch directory, removed after: a postinstall step or a --version
    run that writes its state (opencode's does) writes it there, not in the user's home."""
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.mkdir(parents=True)
    try:
        yield {"HOME": str(scratch), "XDG_CONFIG_HOME": str(scratch / ".config"),
               "XDG_CACHE_HOME": str(scratch / ".cache"), "XDG_DATA_HOME": str(scratch / ".local/share"),
               "XDG_STATE_HOME": str(scratch / ".local/state"), "CODEX_HOME": str(scratch / ".codex")}
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _run(command: list[str], env: dict[str, str], what: str) -> str:
    try:
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=INSTALL_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise InstallError(f"{what}: {error}") from error
    if done.returncode != 0:
        raise InstallError(f"{what} failed ({done.returncode}): {' '.join(command)}\n{done.stdout}\n{done.stderr}")
    return done.stdout + done.stderr


def _npm_install(pin: Pinned, directory: Path, env: dict[str, str]) -> None:
    npm = shutil.which("npm", path=env.get("PATH"))
    if npm is None:
        raise InstallError(f"{pin.name}: npm is not on PATH (Node.js 20 or newer is needed)")
    (directory / "package.json").write_text(json.dumps({"name": f"hindcast-{pin.name}", "private": True}))
    _run([npm, "install", "--prefix", str(directory), "--no-audit", "--no-fund", "--prefer-offline",
          "--loglevel=error", "--include=optional", f"{pin.package}@{pin.version}"], env, f"npm install {pin.name}")


def _venv_install(pin: Pinned, directory: Path, env: dict[str, str]) -> None:
    uv = find_uv_bin()
    _run([uv, "venv", "--quiet", "--python", str(find_python(pin.python)), str(directory)], env,
         f"uv venv {pin.name}")
    _run([uv, "pip", "sync", "--quiet", "--compile-bytecode", "--python", str(directory / "bin" / "python"),
          str(pin.lock())], env, f"uv pip sync {pin.name}")


def _check(pin: Pinned, directory: Path, env: dict[str, str]) -> None:
    """The installed CLI is the pinned version and runs (`--version`, in the scratch home)."""
    executable = pin.bin(directory)
    if not executable.exists():
        raise InstallError(f"{pin.name}: {executable} is missing after the install")
    if pin.registry == "pypi":
        probe = f"import importlib.metadata as m; print(m.version({pin.package!r}))"
        output = _run([str(directory / "bin" / "python"), "-c", probe], env, f"{pin.name} version")
    else:
        output = _run([str(executable), "--version"], env, f"{pin.name} --version")
    if pin.version not in output:
        raise InstallError(f"{pin.name}: expected version {pin.version}, it says {output.strip()!r}")


def main(argv: list[str] | None = None) -> int:
    """Install the pinned CLIs (all, or the named ones) and print where each one is."""
    parser = argparse.ArgumentParser(prog="python -m tests.agents.install", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"the CLIs to install: {', '.join(PINNED)} (default: all)")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(PINNED))
    if unknown:
        parser.error(f"unknown CLI {', '.join(unknown)}; the pinned ones are {', '.join(PINNED)}")
    cache = cache_dir(os.environ)
    try:
        for name in args.names or PINNED:
            print(f"{name}: {ensure(PINNED[name], cache, os.environ)}")
    except InstallError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
