"""Resolution as of the fix's date: what a setup command installs with uv, resolved with the packages the index
had when the fix was committed, build tools exempt, and today's index when that does not resolve.

A case's dependencies resolved today are not the ones its tests were written against: an old pin of a test
runner imports what today's setuptools no longer ships (`pkg_resources`), an unpinned test dependency resolves to
a major version whose API changed. uv's `exclude-newer` bounds the resolution by the fix's committer date; the
build backends (`BUILD_TOOLS`) stay at today's, as an old setuptools cannot build an editable install
(`build_editable`); once setup has installed, those the environment holds for the tests are set back to their
dated versions (`runtime_command`). The bounds go to uv as a configuration file (`UV_CONFIG_FILE`), so every
`uv pip` command of setup is dated without being rewritten.

This module holds the rules; `runner.workspace.prepare` runs the resolution in setup's sandbox and decides.
"""

from __future__ import annotations

import hashlib
import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from corpus.fsutil import atomic_write_text
from corpus.gitutil import run_git
from corpus.languages.python.names import normal_name

BUILD_TOOLS = ("setuptools", "wheel", "hatchling", "hatch-vcs", "hatch-fancy-pypi-readme", "flit-core", "flit-scm",
               "poetry-core", "pdm-backend", "setuptools-scm", "scikit-build-core", "meson-python", "maturin",
               "pbr", "cython", "versioneer", "calver", "trove-classifiers", "packaging", "pluggy", "pathspec",
               "editables")
"""Resolved at today's versions, never dated: the build backends (and what they need to run) build the project and
its source distributions, and an old one cannot build what today's front end asks of it (an editable install).
Those among them the environment holds after setup are set back to their dated versions: the project's tests run
against them (an old test runner imports `pkg_resources`, which today's setuptools no longer ships)."""
CONFIG_NAME = "uv-dated.toml"
RUNTIME_CONFIG_NAME = "uv-dated-runtime.toml"
WITH_VALUE = frozenset({"-e", "--editable", "-r", "--requirement", "-c", "--constraint", "--constraints",
                        "--override", "--overrides", "--group", "--extra", "-i", "--index-url", "--extra-index-url",
                        "--default-index", "--index", "-f", "--find-links", "--prerelease", "--resolution",
                        "--index-strategy", "-p", "--python", "--python-version", "--exclude-newer"})
"""Options of `uv pip install` whose value is the next word."""
AS_LINES = {"-e": "-e", "--editable": "-e", "-r": "-r", "--requirement": "-r", "-c": "-c", "--constraint": "-c",
            "--constraints": "-c"}
"""Options that become lines of the requirements the resolution reads (on stdin, so paths stay relative to the
workspace)."""
NOT_RESOLVING = frozenset({"--python", "-p", "--system", "--break-system-packages", "--target", "--prefix",
                           "--user", "-q", "--quiet", "-v", "--verbose", "--compile-bytecode", "--reinstall",
                           "--force-reinstall", "-U", "--upgrade", "--link-mode", "--no-progress"})
"""Options that say where or how to install, not what: left out of the resolution."""


@dataclass(frozen=True)
class Installs:
    """What a setup command installs with `uv pip install`, as one resolution's input."""

    requirements: tuple[str, ...]
    """Requirement lines (a package, `-e PATH`, `-r FILE`, `-c FILE`), in the command's order."""
    options: tuple[str, ...]
    """Options of the resolution (`--group`, an index, `--pre`, ...), as written."""
    only: bool
    """Every step of the command is such an install: what setup leaves is decided by what it resolves."""


@dataclass(frozen=True)
class Resolution:
    """How setup resolves, and why: the resolution origin line."""

    as_of: str | None
    """The fix's committer date (ISO 8601, UTC) setup resolves as of; None: today's index."""
    origin: str
    """`resolution: ...`, saying which was used and why."""
    resolved: str | None = None
    """sha256 of the resolved set (`uv pip compile`, one pinned requirement a line, sorted), when it resolved."""
    only: bool = False
    """The command only installs (`Installs.only`): the resolved set, not the dependency files, keys its
    environment."""
    pip: bool = False
    """Setup installs with pip: dated by an index on the loopback (`runner.envs.pipindex`), not by uv's
    configuration alone."""

    def setup_variables(self, directory: Path, config: str = CONFIG_NAME) -> dict[str, str]:
        """The variables that make setup's uv resolve as decided (the configuration written into directory by
        `write_config`, config naming which); none for today's."""
        return {"UV_CONFIG_FILE": str(directory / config)} if self.as_of else {}


def uv_installs(command: str | None) -> Installs | None:
    """The `uv pip install` steps of a setup command joined into one resolution's input; None when it has none,
    or when a step cannot be read (an unbalanced quote)."""
    if not command:
        return None
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        return None
    steps: list[list[str]] = [[]]
    separators = set()
    for word in words:
        if word and set(word) <= set("&|;<>()"):
            separators.add(word)
            steps.append([])
        else:
            steps[-1].append(word)
    steps = [step for step in steps if step]
    installs = [step[3:] for step in steps if step[:3] == ["uv", "pip", "install"]]
    if not installs:
        return None
    requirements: list[str] = []
    options: list[str] = []
    for args in installs:
        index = 0
        while index < len(args):
            word = args[index]
            name, equals, _ = word.partition("=") if word.startswith("--") else (word, "", "")
            if equals:
                if name not in NOT_RESOLVING:
                    options.append(word)
            elif word in WITH_VALUE and index + 1 < len(args):
                index += 1
                if word in AS_LINES:
                    requirements.append(f"{AS_LINES[word]} {args[index]}")
                elif word not in NOT_RESOLVING:
                    options += [word, args[index]]
            elif word.startswith("-"):
                if word not in NOT_RESOLVING:
                    options.append(word)
            else:
                requirements.append(word)
            index += 1
    only = len(installs) == len(steps) and separators <= {"&&"}
    return Installs(tuple(requirements), tuple(options), only)


def fix_date(repo: Path, commit: str) -> str | None:
    """The commit's committer date in UTC (`2020-05-01T12:00:00Z`), None when git cannot read it."""
    proc = run_git(["show", "-s", "--format=%ct", commit, "--"], repo, check=False)
    text = proc.stdout.decode("utf-8", "replace").strip() if proc.returncode == 0 else ""
    if not text.isdigit():
        return None
    import datetime

    return datetime.datetime.fromtimestamp(int(text), datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def config_text(as_of: str, exempt: tuple[str, ...] = BUILD_TOOLS) -> str:
    """uv's configuration of a dated resolution: nothing uploaded after as_of, but the exempt packages."""
    lines = [f"exclude-newer = {json.dumps(as_of)}", "", "[exclude-newer-package]"]
    lines += [f"{name} = false" for name in exempt]
    return "\n".join(lines) + "\n"


def write_config(directory: Path, as_of: str) -> None:
    """The configuration files of a dated setup in directory: setup's (build tools exempt) and the runtime
    re-resolution's (nothing exempt)."""
    directory.mkdir(parents=True, exist_ok=True)
    atomic_write_text(directory / CONFIG_NAME, config_text(as_of))
    atomic_write_text(directory / RUNTIME_CONFIG_NAME, config_text(as_of, ()))


def compile_command(installs: Installs, python: str | None, output: Path, requirements: Path) -> str:
    """The `uv pip compile` of installs, reading requirements (the lines, fed on stdin so relative paths are the
    workspace's) and writing the pinned set to output; dated by UV_CONFIG_FILE when the caller sets it."""
    words = ["uv", "pip", "compile", "--quiet", "--no-header", "--no-annotate", "--no-strip-extras",
             *(["--python", python] if python else []), *installs.options, "-o", str(output), "-"]
    return " ".join(shlex.quote(word) for word in words) + f" < {shlex.quote(str(requirements))}"


def resolved_digest(text: str) -> str:
    """The resolved set's digest: its requirement lines, comments and blanks left out, sorted."""
    lines = sorted({line.split("#", 1)[0].strip() for line in text.splitlines()} - {""})
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


SEEDED = ("setuptools", "wheel")
"""Build tools an environment may hold whatever setup resolves (`uv venv --seed` before Python 3.12)."""


def build_tools_in(resolved: str) -> tuple[str, ...]:
    """The build tools a resolved set (`uv pip compile` output) names, and the seeded ones."""
    names = {normal_name(line.split("==", 1)[0].split("[", 1)[0].strip())
             for line in resolved.splitlines() if "==" in line and not line.lstrip().startswith(("#", "-"))}
    return tuple(sorted((names & set(BUILD_TOOLS)) | set(SEEDED)))


def installed_build_tools(site_packages: list[Path]) -> dict[str, str]:
    """The build tools (`BUILD_TOOLS`) installed in these site-packages directories, with their versions, in
    name order."""
    found = {}
    for site in site_packages:
        for info in site.glob("*.dist-info"):
            name, _, version = info.name[: -len(".dist-info")].rpartition("-")
            if normal_name(name) in BUILD_TOOLS:
                found[normal_name(name)] = version
    return dict(sorted(found.items()))


def runtime_command(names: tuple[str, ...]) -> str:
    """Reinstalls names at the versions uv's configuration allows (the dated ones with the runtime configuration,
    today's with setup's), then checks that setuptools, when among them, still imports (an old one may not on
    today's interpreter)."""
    words = ["uv", "pip", "install", "--quiet", *(w for name in names for w in ("--reinstall-package", name)),
             *names]
    check = " && python -c 'import setuptools'" if "setuptools" in names else ""
    return " ".join(shlex.quote(word) for word in words) + check
