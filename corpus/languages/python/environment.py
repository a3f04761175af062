"""A Python project's interpreter from what its base commit declares, and the readers of its pyproject.toml, tox.ini
and setup.cfg (the install command, `install.py`, reads them too)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from corpus.languages.base import BaseFiles
from corpus.languages.python.releases import python_of_date

if TYPE_CHECKING:
    import configparser
    import datetime

    from packaging.specifiers import SpecifierSet

    from corpus.interpreters import Installed

Version = tuple[int, int]
WORKFLOWS = ".github/workflows"
WORKFLOW = re.compile(r"[^/]+\.ya?ml")
KEEP = 256
"""Parsed texts kept for reuse (the most recently used): bases come in history order, so the ones reused are
recent."""
CLASSIFIER = re.compile(r"Programming Language :: Python :: (\d)\.(\d+)\b")
PYTHON_REQUIRES = re.compile(r"python_requires\s*=\s*(['\"])([^'\"]+)\1")
TOX_ENV = re.compile(r"(?<![\w.-])py(\d)\.?(\d+)(?![\w.])")
BRACES = re.compile(r"\{([^{}]*)\}")
CI_KEY = re.compile(r"^(\s*(?:-\s+)?)[\"']?(python-versions?|python_version|python)[\"']?\s*:(\s|$)(.*)$")
CI_VERSION = re.compile(r"(\d)\.(\d+)(-dev)?")
TOX_SECTIONS = frozenset({"tox", "testenv", "DEFAULT"})
"""The sections of tox.ini inference reads (DEFAULT's options are every section's)."""
SETUP_CFG_SECTIONS = frozenset({"options", "options.extras_require", "DEFAULT"})
"""The sections of setup.cfg inference reads (its classifiers are found in the text)."""
INDENTED_BRACKET = re.compile(r"^[^\S\n]+\[.*$", re.MULTILINE)
"""An indented line that starts with "[": a section header or a continuation line, depending on what precedes."""


@dataclass(frozen=True)
class Declared:
    """The Python versions a base commit declares support for."""

    spec: SpecifierSet | None = None
    """requires-python / python_requires, when given and valid."""
    spec_text: str = ""
    """The specifier as written."""
    spec_source: str = ""
    """Where the specifier is written."""
    named: dict[Version, str] = field(default_factory=dict)
    """Versions named by classifiers, tox envlist or CI matrices -> where the first was named."""


def _allows(spec: SpecifierSet | None, version: Version) -> bool:
    """Whether some release of the minor version satisfies spec (X.Y.0 or a late X.Y patch)."""
    if spec is None:
        return True
    major, minor = version
    return any(spec.contains(f"{major}.{minor}{patch}", prereleases=True) for patch in ("", ".99"))


def _load_toml(text: str) -> dict[str, Any]:
    import tomli  # loaded when a base has a pyproject.toml; compiled, where the standard tomllib is not

    try:
        return tomli.loads(text)
    except tomli.TOMLDecodeError:
        return {}


def read_pyproject(files: BaseFiles) -> dict[str, Any]:
    """The base's pyproject.toml, parsed (empty when missing or not TOML)."""
    return files.parsed("pyproject.toml", _load_toml) or {}


def project_table(pyproject: dict[str, Any]) -> dict[str, Any]:
    """pyproject.toml's [project] table (empty when missing or not a table)."""
    project = pyproject.get("project")
    return project if isinstance(project, dict) else {}


def _sections(text: str, wanted: frozenset[str]) -> str:
    """The part of an INI file configparser reads for the wanted sections: the lines before the first section,
    and each wanted section from its header to the next. A line that starts with "[" and matches configparser's
    header pattern is always a header; an indented one may be a value's continuation, so a wanted name there
    gives the whole text."""
    import configparser

    header = configparser.ConfigParser.SECTCRE
    for line in INDENTED_BRACKET.findall(text):
        match = header.match(line.strip())
        if match and match.group("header") in wanted:
            return text
    preamble, *parts = ("\n" + text).split("\n[")
    kept = [preamble[1:]]
    keep = True
    for part in parts:
        match = header.match(("[" + part.split("\n", 1)[0]).strip())
        if match is not None:  # else a line of the section before (an option or an error there)
            keep = match.group("header") in wanted
        if keep:
            kept.append(part)
    return "\n[".join(kept)


@functools.lru_cache(maxsize=KEEP)
def _load_ini(text: str) -> configparser.ConfigParser | None:
    """The parsed sections (never modified: shared by every base with this text), or None when they do not
    parse. Memoized by text: most changes to a tox.ini or setup.cfg are to sections not read."""
    import configparser  # loaded when a base has a setup.cfg or tox.ini

    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser


def _tox_ini(text: str) -> configparser.ConfigParser | None:
    return _load_ini(_sections(text, TOX_SECTIONS))


def _setup_cfg(text: str) -> configparser.ConfigParser | None:
    return _load_ini(_sections(text, SETUP_CFG_SECTIONS))


def read_ini(files: BaseFiles, path: str) -> configparser.ConfigParser | None:
    """The sections of tox.ini or setup.cfg that inference reads."""
    parsed: configparser.ConfigParser | None = files.parsed(path, _tox_ini if path == "tox.ini" else _setup_cfg)
    return parsed


def tox_testenv(files: BaseFiles, option: str) -> str:
    """An option of tox.ini's [testenv], as written ("" when there is none)."""
    tox = read_ini(files, "tox.ini")
    if tox is None or not tox.has_section("testenv"):
        return ""
    return tox.get("testenv", option, fallback="") or ""


def _expand(text: str) -> list[str]:
    """tox's brace expansion: `py3{8,9}` -> py38, py39."""
    match = BRACES.search(text)
    if match is None:
        return [text]
    return [out for option in match.group(1).split(",")
            for out in _expand(text[:match.start()] + option.strip() + text[match.end():])]


def _classifiers(text: str) -> list[Version]:
    """The versions a file's trove classifiers name."""
    return [(int(m.group(1)), int(m.group(2))) for m in CLASSIFIER.finditer(text)]


def _ci_values(text: str) -> list[Version]:
    """The CPython X.Y versions in a YAML value: a scalar or a flow list (`["3.8", 3.9]`); `pypy-3.9`,
    `3.x` and `${{ ... }}` are not."""
    words = [word.strip().strip("'\"") for word in text.split("#")[0].strip().strip("[]").split(",")]
    return [(int(m.group(1)), int(m.group(2))) for word in words if (m := CI_VERSION.fullmatch(word))]


def _workflow_versions(text: str) -> list[Version]:
    """The Python versions a workflow names under python-version-like keys (matrices, their includes, setup
    steps), read line by line: a value on the key's line, or a block list below it."""
    if "python" not in text:
        return []
    found: list[Version] = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        match = CI_KEY.match(line)
        if match is None:
            continue
        if match.group(4).strip() and not match.group(4).lstrip().startswith("#"):
            found += _ci_values(match.group(4))
            continue
        indent = len(match.group(1))
        for item in lines[index + 1:]:
            if not item.strip() or item.lstrip().startswith("#"):
                continue
            stripped = item.lstrip()
            if len(item) - len(stripped) < indent or not stripped.startswith("- "):
                break
            found += _ci_values(stripped[2:])
    return found


def _setup_py_requires(text: str) -> str:
    """setup.py's python_requires, as written ("" when not found)."""
    match = PYTHON_REQUIRES.search(text)
    return match.group(2) if match else ""


def _tox_versions(text: str) -> list[Version]:
    """The versions tox.ini's envlist names."""
    tox = _tox_ini(text)
    if tox is None or not tox.has_option("tox", "envlist"):
        return []
    envs = [env for part in re.split(r"[\s,]+(?![^{]*\})", tox.get("tox", "envlist")) for env in _expand(part)]
    return [(int(m.group(1)), int(m.group(2))) for env in envs for m in TOX_ENV.finditer(env)]


@functools.lru_cache(maxsize=KEEP)
def _specifier(text: str) -> SpecifierSet | None:
    """The specifier written, or None when it is not one (never modified: shared)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet  # loaded when a base has a specifier

    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        return None


def declared(files: BaseFiles) -> Declared:
    """What the base declares: its specifier, and the versions it names."""
    named: dict[Version, str] = {}

    def name(versions: list[Version], source: str) -> None:
        for version in versions:
            named.setdefault(version, source)

    spec_text, spec_source = "", ""
    pyproject = read_pyproject(files)
    project = project_table(pyproject)
    if isinstance(project.get("requires-python"), str):
        spec_text, spec_source = project["requires-python"], "pyproject.toml"
    setup_cfg = read_ini(files, "setup.cfg")
    if not spec_text and setup_cfg is not None and setup_cfg.has_option("options", "python_requires"):
        spec_text, spec_source = setup_cfg.get("options", "python_requires").strip(), "setup.cfg"
    if not spec_text and (setup_py := files.parsed("setup.py", _setup_py_requires)):
        spec_text, spec_source = setup_py, "setup.py"
    spec = _specifier(spec_text) if spec_text.strip() else None
    for path in ("pyproject.toml", "setup.cfg", "setup.py"):
        name(files.parsed(path, _classifiers) or [], f"classifiers in {path}")
    name(files.parsed("tox.ini", _tox_versions) or [], "tox.ini envlist")
    for path in files.paths():
        if path.startswith(WORKFLOWS + "/"):
            name(files.parsed(path, _workflow_versions) or [], f"CI matrix in {path}")
    return Declared(spec, spec_text if spec else "", spec_source if spec else "", named)


def _lower_bound(spec: SpecifierSet) -> Version | None:
    """The X.Y of a specifier's lowest bound (>=, >, ~=, ==), when it has one."""
    bounds = []
    for item in spec:
        match = re.match(r"(\d+)\.(\d+)", item.version)
        if item.operator in (">=", ">", "~=", "==", "===") and match:
            bounds.append((int(match.group(1)), int(match.group(2))))
    return max(bounds) if bounds else None


def _dotted(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def choose_python(found: Declared, installed: Installed,
                  committed: datetime.date | None = None) -> tuple[str | None, str]:
    """The newest installed interpreter the base declares support for, and why; the newest declared version
    when none installed fits (verify then says it is missing). A base that declares no version gets the
    interpreter of the date its fix was committed, when that is known (`releases.python_of_date`)."""
    if committed is not None and found.spec is None and not found.named:
        dated = python_of_date(committed, installed)
        if dated is not None:
            return dated
    within = f'requires-python "{found.spec_text}" ({found.spec_source})' if found.spec else ""
    named = sorted(v for v in found.named if _allows(found.spec, v)) or sorted(found.named)
    bounds = ""
    if named:
        low, high = named[0], named[-1]
        sources = sorted({found.named[v] for v in named if v in (low, high)})
        bounds = f"{_dotted(low)} to {_dotted(high)}, the versions named ({'; '.join(sources)})"
    rules = " and ".join(part for part in (within, bounds) if part)
    fits = [version for version, _ in installed if _allows(found.spec, version)
            and (not named or named[0] <= version <= named[-1])]
    if fits:
        what = f"newest installed within {rules}" if rules else "newest installed; the project declares no version"
        return _dotted(fits[0]), f"python {_dotted(fits[0])}: {what}"
    if named:
        return _dotted(named[-1]), f"python {_dotted(named[-1])}: newest declared ({rules}); not installed"
    lowest = _lower_bound(found.spec) if found.spec else None
    if lowest is not None:
        return _dotted(lowest), f"python {_dotted(lowest)}: lowest allowed by {within}; none installed fits"
    if found.spec:
        return None, f"python: none installed fits {within}"
    return None, "python: none; the project declares no version and no interpreter is installed"
