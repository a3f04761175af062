"""A corpus as Harbor tasks: one task directory per case, in Harbor's layout.

```
<case id>/
  instruction.md            the prompt
  task.toml                 verifier timeout and network, build timeout, the case's metadata
  environment/Dockerfile    the interpreter, the base (a one-commit repository, as a trial's workspace) at /app,
  environment/base.tar      and the case's setup run there
  tests/test.sh             writes the grader files, removes the deleted test paths, runs the grader command,
  tests/files/<path>        writes the reward (/logs/verifier/reward.txt: 1 for a pass, else 0)
  tests/judge.py            (JUnit graders) decides the reward from the report's tests and the grader's ids
  tests/grader.json
  solution/solve.sh         applies the oracle patch
  solution/oracle.patch
```
"""

from __future__ import annotations

import io
import json
import shlex
import tarfile
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from corpus.fsutil import atomic_write_bytes, atomic_write_text, publish_directory
from corpus.layout import repo_path
from corpus.model import Case
from corpus.store import Corpus, StoredCase
from runner.envs.environment import UV_SETUP_ENV, version_environment
from runner.exports.common import (
    ExportReport,
    Note,
    check_commits,
    out_directory_free,
    scratch_directory,
    select_cases,
    source_repository,
)
from runner.grading.grader import PYTEST_WORD
from runner.workspace.workspace import create_workspace

WORKSPACE = "/app"
VERIFIER_DIR = "/logs/verifier"
VENV = "/opt/hindcast-env"
AGENT_USER = "agent"
DEFAULT_IMAGE = "python:3-slim"
TIMEOUT_MARGIN = 60
"""Seconds Harbor's limits allow beyond the case's own (writing the grader files; apt and pip in the build)."""
BUILD_MARGIN = 600


def export_harbor(corpus: Corpus, out: Path, repo: Path | None = None, case_ids: tuple[str, ...] = ()) -> ExportReport:
    """Write the corpus's active cases (or case_ids) as Harbor task directories under out (a new or empty
    directory, published whole through a staging directory); nothing is written when no case can be exported.
    Every field a case sets that a task cannot carry is a note."""
    out_directory_free(out)
    stored = select_cases(corpus, case_ids)
    source = source_repository(corpus, repo)
    notes: list[Note] = []
    ready: list[StoredCase] = []
    for item in stored:
        missing = check_commits(source, item)
        if missing:
            notes.append(Note(item.case.id, "base_commit", missing, skipped=True))
            continue
        notes += carried_notes(item.case)
        ready.append(item)

    def fill(staged: Path) -> None:
        for item in ready:
            write_task(staged / item.case.id, item, source)

    if ready:
        publish_directory(out.parent, out.name, fill)  # an empty --out is replaced
    return ExportReport(out, tuple(item.case.id for item in ready), tuple(notes))


def carried_notes(case: Case) -> list[Note]:
    """The fields a case sets that a Harbor task cannot carry."""
    notes = []
    if not case.setup.python:
        extra = " with pytest for the grader" if PYTEST_WORD.search(case.grader.command) else ""
        notes.append(Note(case.id, "setup.python", f"not set (Hindcast uses its own interpreter and packages): "
                                                   f"the image is {DEFAULT_IMAGE}{extra}"))
    elif case.setup.python.startswith("2"):
        judge = ", and the JUnit judge needs a python3 the image lacks" if case.grader.junit else ""
        notes.append(Note(case.id, "setup.python", f"{case.setup.python}: the image has neither a venv nor uv"
                                                   f"{judge}"))
    if case.prompts:
        notes.append(Note(case.id, "prompts", f"{len(case.prompts)} further wording(s) left out: a Harbor task holds "
                                              "one task text, the prompt"))
    for field, value in (("max_turns", case.max_turns), ("bait", case.bait), ("trajectory", case.trajectory)):
        if value is not None:
            notes.append(Note(case.id, field, "not checked: Harbor's verifier grades the workspace only"))
    return notes


def write_task(task: Path, stored: StoredCase, source: Path) -> None:
    """One case's task directory."""
    case, files = stored.case, stored.files
    atomic_write_text(task / "instruction.md", case.prompt if case.prompt.endswith("\n") else case.prompt + "\n")
    atomic_write_text(task / "task.toml", task_toml(case))
    atomic_write_text(task / "environment" / "Dockerfile", dockerfile(case, source))
    atomic_write_bytes(task / "environment" / "base.tar", base_archive(source, case.base_commit))
    for path, content in files.grader_files:
        atomic_write_bytes(task / "tests" / "files" / repo_path(path, "grader file path"), content)
    atomic_write_text(task / "tests" / "test.sh", test_script(case, [p for p, _ in files.grader_files]))
    if case.grader.junit:
        atomic_write_text(task / "tests" / "judge.py", (Path(__file__).parent / "harbor_judge.py").read_text())
        atomic_write_text(task / "tests" / "grader.json", json.dumps({
            "command": case.grader.command, "junit": case.grader.junit,
            "fail_to_pass": list(case.grader.fail_to_pass), "pass_to_pass": list(case.grader.pass_to_pass)},
            indent=2) + "\n")
    atomic_write_bytes(task / "solution" / "oracle.patch", files.oracle_patch)
    atomic_write_text(task / "solution" / "solve.sh", solve_script())
    for script in (task / "tests" / "test.sh", task / "solution" / "solve.sh"):
        script.chmod(0o755)


def _toml(value: object) -> str:
    """A TOML value: JSON's strings (non-ASCII kept: TOML has no surrogate escapes), numbers, booleans, arrays."""
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value, ensure_ascii=False)


def task_toml(case: Case) -> str:
    """task.toml: the case's identity as metadata, the verifier's timeout and network, the build's timeout."""
    metadata: dict[str, object] = {"hindcast_case": case.id, "title": case.title, "base_commit": case.base_commit,
                                   "fix_commit": case.fix_commit, "policy": case.policy, "critical": case.critical,
                                   "tags": list(case.tags)}
    if case.owner:
        metadata["owner"] = case.owner
    lines = ['schema_version = "1.4"', "", "[metadata]"]
    lines += [f"{key} = {_toml(value)}" for key, value in metadata.items()]
    lines += ["", "[verifier]", f"timeout_sec = {float(case.grader.timeout + TIMEOUT_MARGIN)}",
              f"network_mode = {_toml('public' if case.grader.network else 'no-network')}",
              "", "[agent]", f"user = {_toml(AGENT_USER)}",
              "", "[environment]", f"build_timeout_sec = {float(case.setup.timeout + BUILD_MARGIN)}",
              f"workdir = {_toml(WORKSPACE)}"]
    return "\n".join(lines) + "\n"


def dockerfile(case: Case, source: Path) -> str:
    """The image: the case's interpreter with git and uv (Hindcast's version), an environment first on PATH (as a
    trial's), the base at /app, the case's setup run there with the base's version and uv's settings, and the
    workspace handed to the agent's user."""
    python = case.setup.python
    lines = [f"FROM {f'python:{python}-slim' if python else DEFAULT_IMAGE}",
             ("RUN apt-get update && apt-get install -y --no-install-recommends git "
              "&& rm -rf /var/lib/apt/lists/*"),
             f"RUN git config --system --add safe.directory {WORKSPACE}"]  # the verifier is root, /app the agent's
    if not (python or "3").startswith("2"):
        lines += [f"RUN python -m pip install --no-cache-dir uv=={version('uv')}", f"RUN python -m venv {VENV}",
                  f"ENV VIRTUAL_ENV={VENV} PATH={VENV}/bin:$PATH"]
    if not python and PYTEST_WORD.search(case.grader.command):  # Hindcast's own interpreter has pytest
        lines.append(f"RUN python -m pip install --no-cache-dir pytest{_pinned('pytest')}")
    lines += ["COPY base.tar /tmp/hindcast-base.tar",
              (f"RUN mkdir -p {WORKSPACE} && tar -xf /tmp/hindcast-base.tar -C {WORKSPACE} "
               "&& rm /tmp/hindcast-base.tar"),
              f"WORKDIR {WORKSPACE}"]
    if case.setup.command:
        variables = {**version_environment(source, case.base_commit), **UV_SETUP_ENV}
        assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in variables.items())
        lines.append(f"RUN env {assignments} bash -c {shlex.quote(case.setup.command)}")
    # The agent works as its own user in a workspace it owns; the environment stays the setup's (read-only to it).
    lines.append(f"RUN useradd --create-home {AGENT_USER} && chown -R {AGENT_USER}: {WORKSPACE}")
    return "\n".join(lines) + "\n"


def _pinned(package: str) -> str:
    """``==<version>`` of the package Hindcast runs with, or nothing when it is not installed."""
    try:
        return f"=={version(package)}"
    except PackageNotFoundError:
        return ""


def base_archive(source: Path, commit: str) -> bytes:
    """The base as a trial's workspace has it (a one-commit repository of the base tree, no history), as a tar
    with fixed owners and times."""
    with scratch_directory("hindcast-harbor-base-") as scratch:
        workspace = create_workspace(source, commit, scratch / "base")
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as archive:
            for path in sorted(workspace.rglob("*")):
                info = archive.gettarinfo(str(path), path.relative_to(workspace).as_posix())
                info.uid = info.gid = 0
                info.uname = info.gname = "root"
                info.mtime = 946684800
                if info.isfile():
                    with path.open("rb") as handle:
                        archive.addfile(info, handle)
                else:
                    archive.addfile(info)
        return buffer.getvalue()


PLACE = '''clear_way() {  # $1 removed, and a link or file on the way to it instead (never followed)
  local path="$1" prefix="" part
  local -a parts
  IFS=/ read -ra parts <<< "$path"
  for part in "${parts[@]:0:${#parts[@]}-1}"; do
    prefix="${prefix:+$prefix/}$part"
    if [ -L "$prefix" ] || { [ -e "$prefix" ] && [ ! -d "$prefix" ]; }; then rm -rf -- "$prefix"; return; fi
  done
  rm -rf -- "$path"
}
place() { clear_way "$1" && mkdir -p -- "$(dirname -- "$1")" && cp -- "$TESTS/files/$1" "$1"; }'''


def test_script(case: Case, grader_paths: list[str]) -> str:
    """test.sh: the reward is 0 until the grader has passed (a crash, a kill at Harbor's timeout or a grader that
    could not run leaves 0); the grader runs under its own timeout and the case's JUnit judge when it has one."""
    grader = case.grader
    lines = ["#!/bin/bash", f"# Hindcast case {case.id}: write the grader files, run the grader, write the reward.",
             "set -u", 'TESTS="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
             f'VERIFIER="${{HINDCAST_VERIFIER_DIR:-{VERIFIER_DIR}}}"',
             f'WORKSPACE="${{HINDCAST_WORKSPACE:-{WORKSPACE}}}"',
             'mkdir -p "$VERIFIER" && echo 0 > "$VERIFIER/reward.txt" || exit 1',
             'cd "$WORKSPACE" || exit 1', PLACE]
    lines += [f"place {shlex.quote(path)} || exit 1" for path in grader_paths]
    lines += [f"clear_way {shlex.quote(path)}" for path in grader.deleted]
    lines += [f"clear_way {shlex.quote(grader.junit)}"] if grader.junit else []
    lines += [f"timeout -s KILL {grader.timeout} bash -c {shlex.quote(grader.command)}", "code=$?"]
    if grader.junit:
        lines += ['if [ "$(python3 "$TESTS/judge.py" "$TESTS/grader.json" "$code")" = 1 ]; then',
                  '  echo 1 > "$VERIFIER/reward.txt"', "fi"]
    else:
        lines += ['if [ "$code" -eq 0 ]; then echo 1 > "$VERIFIER/reward.txt"; fi']
    lines += ['echo "grader exited $code, reward $(cat "$VERIFIER/reward.txt")"']
    return "\n".join(lines) + "\n"


def solve_script() -> str:
    """solve.sh: the oracle patch applied to the workspace."""
    return "\n".join([
        "#!/bin/bash", "# Apply the known fix (the case's oracle patch) to the workspace.", "set -euo pipefail",
        'SOLUTION="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"',
        f'cd "${{HINDCAST_WORKSPACE:-{WORKSPACE}}}"',
        'git apply --binary "$SOLUTION/oracle.patch"']) + "\n"
