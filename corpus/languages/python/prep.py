"""The steps that prepare files for a Python project's tests which only its CI runs (compiled translation
catalogues, generated code), read from its GitHub workflows, tox.ini and Makefile.

Conservative on purpose: a step is taken only when it names a file-preparing action (compile, generate,
msgfmt, ...) and nothing that installs, fetches, publishes or checks; a workflow step only when it comes
before the step that runs pytest or tox in the same job, and runs in the plain shell (no `if`, `env`, other
shell or GitHub expressions); a Makefile target only when it is a prerequisite of `test` whose own rules do
nothing of the refused kind.
"""

from __future__ import annotations

import re
import shlex
from typing import Any, NamedTuple

from corpus.languages.base import BaseFiles
from corpus.languages.python.environment import WORKFLOWS, tox_testenv

MAKEFILE = "Makefile"
PREPARES = re.compile(
    r"\b(?:compil(?!eall)\w*|re-?generat\w*|generat\w*|codegen|msgfmt|pybabel|catalog(?:ue)?s?|translations?|"
    r"locales?|build_ext|build-ext|protoc|cythoni[sz]e)\b",
    re.IGNORECASE,
)
"""Words of a step that prepares files."""
REFUSED = re.compile(
    r"\b(?:sudo|apt|apt-get|aptitude|yum|dnf|apk|brew|choco|snap|pip|pip3|pipx|install\w*|uv|poetry|pdm|pipenv|"
    r"conda|mamba|micromamba|npm|npx|yarn|pnpm|upload\w*|publish\w*|deploy\w*|release\w*|twine|push|docker|"
    r"podman|curl|wget|codecov|coveralls|ssh|scp|rsync|gh|git|check\w*|lint\w*|flake8|mypy|ruff|black|isort|"
    r"pre-commit|venv|virtualenv)\b|\$\{\{|\$\{?(?:GITHUB|RUNNER)_",
    re.IGNORECASE,
)
"""Words of a step that installs or fetches, publishes, checks, or reads what only GitHub's runner has."""
RUNS_TESTS = re.compile(
    r"^(?:\w+=\S*\s+)*(?:(?:uv|poetry|pdm|pipenv|hatch|rye)\s+run\s+(?:-\S+\s+)*)?(?:python[\d.]*\s+-m\s+)?"
    r"(?:coverage\s+run\s+(?:-\S+\s+)*-m\s+)?(?:pytest|py\.test|tox)\b"
)
"""A command line that runs the tests."""
OPENERS = {"if": "fi", "for": "done", "while": "done", "until": "done", "case": "esac", "{": "}", "(": ")"}
CLOSERS = frozenset({"then", "do", "done", "fi", "else", "elif", "esac", "}", ")"})
OPEN_ENDINGS = ("do", "then", "else", "{", "(", "|", "&&", "||")
MAKE_RULE = re.compile(r"^([^\s:=#.][^:=#]*?)\s*::?(?!=)\s*([^;#]*)")
TEST_TARGETS = ("test", "tests")


class Prep(NamedTuple):
    """One step that prepares files for the tests."""

    command: str
    """Shell command, run after the install."""
    origin: str
    """Where it was found (`setup: ...`)."""


def _lines(script: str) -> list[str]:
    """The command lines of a script: continuations joined, blank lines and comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", script)
    return [line.strip() for line in joined.splitlines() if line.strip() and not line.strip().startswith("#")]


def _simple(line: str) -> bool:
    """A line that is whole by itself: it opens no compound command it does not close, closes none opened
    before, and has no here-document."""
    words = line.split()
    if "<<" in line or words[0] in CLOSERS or line.endswith(OPEN_ENDINGS):
        return False
    closer = OPENERS.get(words[0])
    return closer is None or line.rstrip(";").endswith(closer)


def _prepares(lines: list[str], name: str = "") -> bool:
    """Whether these command lines (and the step's name) prepare files and do nothing refused."""
    return (bool(lines) and all(_simple(line) and not REFUSED.search(line) for line in lines)
            and not REFUSED.search(name) and PREPARES.search(" ".join([name, *lines])) is not None)


def _step(step: Any, directory: Any) -> tuple[str, str] | None:
    """(label, command) of a workflow step that prepares files, else None."""
    if not isinstance(step, dict) or not isinstance(step.get("run"), str):
        return None
    if "if" in step or "env" in step or step.get("shell", "bash") not in ("bash", "sh"):
        return None
    name = step["name"] if isinstance(step.get("name"), str) else ""
    lines = _lines(step["run"])
    if not _prepares(lines, name):
        return None
    directory = step.get("working-directory", directory)
    if directory is not None and (not isinstance(directory, str) or REFUSED.search(directory)):
        return None
    command = " && ".join(lines)
    if directory not in (None, "", "."):
        command = f"cd {shlex.quote(directory)} && {command}"
    if len(lines) > 1 or directory not in (None, "", ".") or re.search(r"&&|\|\||;|\bcd\b", command):
        command = f"({command})"  # a cd stays inside
    return name or f"Run {lines[0]}", command


def _run_directory(node: Any, inherited: Any = None) -> Any:
    """defaults.run.working-directory of a workflow or a job, else what it inherits."""
    defaults = node.get("defaults") if isinstance(node, dict) else None
    run = defaults.get("run") if isinstance(defaults, dict) else None
    return run.get("working-directory", inherited) if isinstance(run, dict) else inherited


def workflow_steps(text: str) -> tuple[tuple[str, str], ...]:
    """(label, command) of every step of a workflow that prepares files before the step running pytest or tox
    of its job, in order."""
    if PREPARES.search(text) is None or re.search(r"\b(?:pytest|py\.test|tox)\b", text) is None:
        return ()  # most workflows: not parsed at all
    import yaml  # loaded when a workflow may have such a step

    loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        workflow = yaml.load(text, Loader=loader)
    except yaml.YAMLError:
        return ()
    jobs = workflow.get("jobs") if isinstance(workflow, dict) else None
    found: list[tuple[str, str]] = []
    for job in jobs.values() if isinstance(jobs, dict) else ():
        steps = job.get("steps") if isinstance(job, dict) else None
        if not isinstance(steps, list):
            continue
        runs = [index for index, step in enumerate(steps) if isinstance(step, dict) and isinstance(step.get("run"), str)
                and any(RUNS_TESTS.match(line) for line in _lines(step["run"]))]
        if not runs:
            continue
        directory = _run_directory(job, _run_directory(workflow))
        found += [step for step in (_step(step, directory) for step in steps[:runs[0]]) if step is not None]
    return tuple(found)


def make_rules(text: str) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """Target -> (prerequisites, recipe lines) of a Makefile's explicit rules (variables and pattern rules
    are not followed)."""
    rules: dict[str, tuple[list[str], list[str]]] = {}
    current: list[str] = []
    for line in text.replace("\\\n", " ").splitlines():
        if not line.strip() or line.startswith("#"):
            continue  # a recipe goes on past blank lines and comments
        if line.startswith("\t"):
            for target in current:
                rules[target][1].append(line.strip())
            continue
        match = MAKE_RULE.match(line)
        current = match.group(1).split() if match else []
        for target in current:
            rules.setdefault(target, ([], []))[0].extend(match.group(2).split() if match else ())
    return {target: (tuple(needs), tuple(recipe)) for target, (needs, recipe) in rules.items()}


def _make_target_prepares(rules: dict[str, tuple[tuple[str, ...], tuple[str, ...]]], target: str) -> bool:
    """Whether `make target` prepares files and neither it nor anything it makes first does anything refused."""
    if target not in rules:
        return False
    seen: set[str] = set()
    stack = [target]
    while stack:
        name = stack.pop()
        if name in seen or name not in rules:
            continue
        seen.add(name)
        needs, recipe = rules[name]
        if REFUSED.search(name) or any(REFUSED.search(line) for line in recipe):
            return False
        stack += needs
    needs, recipe = rules[target]
    return PREPARES.search(" ".join([target, *recipe])) is not None


def _makefile_steps(files: BaseFiles) -> list[Prep]:
    rules = files.parsed(MAKEFILE, make_rules) or {}
    found = []
    for test in TEST_TARGETS:
        for need in rules.get(test, ((), ()))[0]:
            if not re.search(r"[$%|]", need) and _make_target_prepares(rules, need):
                found.append(Prep(f"make {shlex.quote(need)}",
                                  f"setup: {MAKEFILE} target '{need}', a prerequisite of '{test}'"))
    return found


def _tox_steps(files: BaseFiles) -> list[Prep]:
    found = []
    for raw in tox_testenv(files, "commands_pre").splitlines():
        line = raw.strip().removeprefix("- ").replace("{envpython}", "python")
        line = line.replace("{toxinidir}/", "").replace("{toxinidir}", ".")
        if line and not line.startswith("#") and "{" not in line and _prepares([line]):
            found.append(Prep(line, "setup: tox.ini [testenv] commands_pre"))
    return found


def _make_runs_clean(command: str, rules: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] | None) -> bool:
    """A workflow's `make X` runs only targets of the Makefile that prepare files; other commands pass."""
    words = command.split()
    if not words or words[0] != "make":
        return True
    targets = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    return rules is not None and bool(targets) and all(_make_target_prepares(rules, target) for target in targets)


def preparation(files: BaseFiles) -> list[Prep]:
    """The steps that prepare files for the tests, in order (workflows sorted by path, then tox.ini's
    commands_pre, then the Makefile's test prerequisites), each command once."""
    rules = files.parsed(MAKEFILE, make_rules)
    found: list[Prep] = []
    for path in files.paths():
        if path.startswith(WORKFLOWS + "/"):
            found += [Prep(command, f"setup: {path} step '{label}'")
                      for label, command in files.parsed(path, workflow_steps) or ()
                      if _make_runs_clean(command, rules)]
    found += _tox_steps(files) + _makefile_steps(files)
    unique: dict[str, Prep] = {}
    for step in found:
        unique.setdefault(step.command, step)
    return list(unique.values())
