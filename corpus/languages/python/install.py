"""A Python project's install command: the base and its test dependencies, from what its base commit declares."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

from corpus.languages.base import BaseFiles
from corpus.languages.python.environment import project_table, read_ini, read_pyproject
from corpus.languages.python.names import normal_name
from corpus.languages.python.setup_py import setup_py_extras

ROOT_REQUIREMENTS = re.compile(r"requirements[^\0\n]*(?:test|dev)[^\0\n]*\.txt|(?:test|dev)[-_]?requirements\.txt")
"""Root requirements files of tests or development (requirements-test.txt, requirements-dev.txt, ...)."""
REQUIREMENTS_DIR = "requirements"
DIR_REQUIREMENTS = re.compile(r"(test|dev).*\.txt")
"""Files of tests or development in `requirements/`."""
TEST_NAMES = ("test", "tests", "testing", "dev")
"""Extras and dependency groups that install a project's test dependencies, in order of preference."""
RUNNER = "pytest"
UV_FROM: tuple[int, int] = (3, 8)
"""uv installs into interpreters from this version on; older ones get pip."""
FACTOR = re.compile(r"^[\w{},!.-]+:\s")
"""A tox deps line conditional on factors (`py38: mock`)."""
REQUIREMENT_NAME = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


@dataclass(frozen=True)
class _Extra:
    """A test-ish extra or dependency group a base declares."""

    kind: str
    """"extra" or "group"."""
    name: str
    """Its name as written."""
    source: str
    """The file declaring it."""
    requirements: tuple[str, ...] | None
    """What it lists; None when not known (setup.py is read by regex)."""



def _strings(value: Any) -> tuple[str, ...]:
    return tuple(item for item in value if isinstance(item, str)) if isinstance(value, list) else ()


def _extras(files: BaseFiles, pyproject: dict[str, Any]) -> list[_Extra]:
    """Every test-ish extra and dependency group the base declares."""
    out: list[_Extra] = []
    project = project_table(pyproject)
    for kind, table in (("extra", project.get("optional-dependencies")), ("group", pyproject.get("dependency-groups"))):
        if isinstance(table, dict):
            out += [_Extra(kind, key, "pyproject.toml", _strings(value)) for key, value in table.items()
                    if isinstance(key, str) and normal_name(key) in TEST_NAMES]
    setup_cfg = read_ini(files, "setup.cfg")
    if setup_cfg is not None and setup_cfg.has_section("options.extras_require"):
        for key, value in setup_cfg.items("options.extras_require"):
            if normal_name(key) in TEST_NAMES:
                out.append(_Extra("extra", key, "setup.cfg", tuple(line.strip() for line in value.splitlines()
                                                                   if line.strip())))
    setup_py = files.text("setup.py") or ""
    if "extras_require" in setup_py:
        out += [_Extra("extra", name, "setup.py", requirements) for name, requirements in setup_py_extras(setup_py)
                if normal_name(name) in TEST_NAMES]
    return out


def _lists_runner(requirements: tuple[str, ...] | None) -> bool:
    for line in requirements or ():
        match = REQUIREMENT_NAME.match(line)
        if match and normal_name(match.group(1)) == RUNNER:
            return True
    return False


def _tox_deps(files: BaseFiles) -> tuple[list[str], list[str]] | None:
    """The [testenv] deps as install arguments (`-r file` kept, substitutions and factor lines dropped), and its
    extras; None when there is no such section."""
    tox = read_ini(files, "tox.ini")
    if tox is None or not tox.has_section("testenv"):
        return None
    args: list[str] = []
    for raw in (tox.get("testenv", "deps", fallback="") or "").splitlines():
        line = raw.split(" #")[0].strip().replace("{toxinidir}/", "").replace("{toxinidir}", ".")
        if not line or line.startswith("#") or FACTOR.match(line):
            continue
        option = re.match(r"(-[rc])\s*(\S+)$", line)
        if option:
            args += [option.group(1), option.group(2)]
        elif "{" not in line and line not in (".", "-e .", "-e."):
            args.append(line)
    extras = [e for e in re.split(r"[\s,]+", tox.get("testenv", "extras", fallback="") or "") if e and "{" not in e]
    return args, extras


def _requirements_file(files: BaseFiles) -> str | None:
    """The base's requirements file for tests, else for development."""
    found = [p for p in files.paths() if ROOT_REQUIREMENTS.fullmatch(p)
             or (p.startswith(REQUIREMENTS_DIR + "/") and DIR_REQUIREMENTS.fullmatch(p.split("/", 1)[1]))]
    found.sort(key=lambda p: ("test" not in p.rsplit("/", 1)[-1], p.count("/"), len(p), p))
    return found[0] if found else None


def _file_lists_runner(files: BaseFiles, path: str) -> bool:
    return _lists_runner(tuple((files.text(path) or "").splitlines()))


def python_command(files: BaseFiles, python: str | None) -> tuple[str, str]:
    """The command that installs the base and its test dependencies into the case's interpreter, and why."""
    parts = [int(part) for part in python.split(".")[:2]] if python else []
    uv = not parts or tuple(parts) >= UV_FROM
    install = ["uv", "pip", "install"] if uv else ["python", "-m", "pip", "install"]
    pyproject = read_pyproject(files)
    installable = files.has("setup.py") or any(key in pyproject for key in ("project", "build-system"))
    extras = sorted(_extras(files, pyproject), key=lambda e: (TEST_NAMES.index(normal_name(e.name)), e.kind != "extra"))
    args: list[str]
    listed = False
    if installable and extras:
        chosen = extras[0]
        listed = _lists_runner(chosen.requirements)
        if chosen.kind == "extra":
            args, origin = ["-e", f".[{chosen.name}]"], f'extra "{chosen.name}" of {chosen.source}'
        elif uv:
            args, origin = ["-e", ".", "--group", chosen.name], f'dependency group "{chosen.name}" of {chosen.source}'
        else:
            args = ["-e", ".", *(chosen.requirements or ())]
            origin = f'the requirements of dependency group "{chosen.name}" of {chosen.source} (pip has no --group)'
    elif installable and (tox := _tox_deps(files)) is not None and (tox[0] or tox[1]):
        deps, tox_extras = tox
        args = ["-e", f".[{','.join(tox_extras)}]" if tox_extras else ".", *deps]
        listed = _lists_runner(tuple(deps)) or any(
            _file_lists_runner(files, deps[i + 1]) for i, dep in enumerate(deps[:-1]) if dep == "-r")
        origin = "deps" + (" and extras" if tox_extras else "") + " of [testenv] in tox.ini"
    elif (requirements := _requirements_file(files)) is not None:
        listed = _file_lists_runner(files, requirements)
        if installable:
            args, origin = ["-e", ".", "-r", requirements], f"the project and {requirements}"
        else:
            base = ["-r", "requirements.txt"] if files.has("requirements.txt") else []
            args = [*base, "-r", requirements]
            origin = ("requirements.txt and " if base else "") + requirements + " (no pyproject.toml or setup.py)"
    elif installable:
        args, origin = ["-e", "."], "the project alone (it declares no test dependencies)"
    elif files.has("requirements.txt"):
        args, origin = ["-r", "requirements.txt"], "requirements.txt (no pyproject.toml or setup.py)"
    else:
        args, origin = [], "the test runner alone (no pyproject.toml, setup.py or requirements file)"
    if not listed:
        args.append(RUNNER)
        if args != [RUNNER]:
            origin += f", plus {RUNNER}"
    tool = "" if uv else f"; pip, as uv does not install into Python {python}"
    return " ".join(shlex.quote(word) for word in (*install, *args)), f"command: {origin}{tool}"
