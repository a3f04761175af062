"""A corpus as SWE-bench instances: one JSON object per line with the fields the SWE-bench harness reads.

``patch`` is the oracle patch, ``test_patch`` the grader files (and the test paths the fix deleted) as a git diff
against the base commit, ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` the grader's pytest node ids JSON-encoded as
SWE-bench stores them, ``problem_statement`` the prompt. ``eval_script`` restores the test paths to the base, applies
``test_patch``, and runs the grader command between the harness's output markers with pytest's ``-rA`` summary
(``PYTEST_ADDOPTS``), which ``parse_log_pytest`` reads; ``image`` is the name the harness derives for the instance,
an image to build with the base checked out at /testbed and the case's setup run in it.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from corpus.errors import GitError
from corpus.fsutil import atomic_write_text
from corpus.gitutil import FIXED_IDENTITY, git_env, git_text, run_git
from corpus.model import DEFAULT_GRADER_TIMEOUT, Case
from corpus.store import Corpus, StoredCase
from runner.envs.environment import VERSION_VARIABLE, version_environment
from runner.exports.common import (
    BaseEntry,
    ExportReport,
    Note,
    base_entries,
    check_commits,
    out_file_free,
    scratch_directory,
    select_cases,
    source_repository,
)
from runner.grading.grader import PYTEST_WORD
from runner.workspace.inside import remove_inside, write_inside

START = ">>>>> Start Test Output"
END = ">>>>> End Test Output"
LOG_PARSER = "parse_log_pytest"
EVAL_TYPE = "pass_and_fail"
WORKDIR = "/testbed"
REPORT_OPTION = re.compile(r"(?<!\S)-r\S*")
GITHUB = re.compile(r"github\.com[:/]+([\w.-]+)/([\w.-]+?)(?:\.git)?/?$")


def export_swebench(corpus: Corpus, out: Path, repo: Path | None = None, case_ids: tuple[str, ...] = (),
                    repo_name: str | None = None) -> ExportReport:
    """Write the corpus's active cases (or case_ids) as SWE-bench instances to out (JSONL, atomically); nothing is
    written when no case can be exported. Every field a case sets that the harness cannot honour is a note; a case
    the harness could not grade (no fail-to-pass ids, ids that are not pytest node ids, a grader that is not a
    pytest command, a patch that is not text) is skipped with a note saying why."""
    out_file_free(out)
    stored = select_cases(corpus, case_ids)
    source = source_repository(corpus, repo)
    name = repo_name or default_repo_name(source, corpus.config.name)
    notes: list[Note] = []
    lines: list[str] = []
    exported: list[str] = []
    for item in stored:
        instance, case_notes = instance_of(item, source, name)
        notes += case_notes
        if instance is not None:
            lines.append(json.dumps(instance, ensure_ascii=False) + "\n")
            exported.append(item.case.id)
    if exported:
        atomic_write_text(out, "".join(lines))
    return ExportReport(out, tuple(exported), tuple(notes))


def default_repo_name(source: Path, corpus_name: str) -> str:
    """owner/name of the repository's origin on GitHub, else ``hindcast/<corpus name>``."""
    proc = run_git(["remote", "get-url", "origin"], source, check=False)
    match = GITHUB.search(proc.stdout.decode("utf-8", "replace").strip()) if proc.returncode == 0 else None
    return f"{match.group(1)}/{match.group(2)}" if match else f"hindcast/{corpus_name}"


def instance_id(repo_name: str, case_id: str) -> str:
    """SWE-bench's form, ``owner__name-<case id>``."""
    return f"{repo_name.replace('/', '__')}-{case_id}"


def image_name(instance: str, namespace: str = "swebench") -> str:
    """The image name the harness derives for an instance."""
    return f"{namespace}/sweb.eval.x86_64.{instance}:latest".lower().replace("__", "_1776_")


def instance_of(stored: StoredCase, source: Path, repo_name: str) -> tuple[dict[str, Any] | None, list[Note]]:
    """The case as one instance (None when it cannot be graded there) and the notes about it."""
    case = stored.case
    notes = carried_notes(case)

    def skip(field: str, message: str) -> tuple[None, list[Note]]:
        return None, [Note(case.id, field, message, skipped=True)]  # what it would have lost no longer matters

    missing = check_commits(source, stored)
    if missing:
        return skip("base_commit", missing)
    if not case.grader.fail_to_pass:
        return skip("grader.fail_to_pass", "none: SWE-bench grades by test ids and an empty FAIL_TO_PASS counts "
                                           "as resolved (run `runner verify --update` to measure them)")
    for field, ids in (("grader.fail_to_pass", case.grader.fail_to_pass),
                       ("grader.pass_to_pass", case.grader.pass_to_pass)):
        dotted = [i for i in ids if "::" not in i]
        if dotted:
            return skip(field, f"{len(dotted)} id(s) are not pytest node ids ({', '.join(dotted[:3])}): "
                               f"{LOG_PARSER} reports node ids, so they would never match")
    if not PYTEST_WORD.search(case.grader.command):
        return skip("grader.command", f"not a pytest command: the instance's log parser ({LOG_PARSER}) reads "
                                      "pytest's report")
    try:
        patch = stored.files.oracle_patch.decode("utf-8")
    except UnicodeDecodeError:
        return skip("oracle.patch", "not UTF-8 text: an instance's patch is a JSON string")
    base = base_entries(source, case.base_commit,
                        [p for p, _ in stored.files.grader_files] + list(case.grader.deleted))
    tests = test_patch(stored, base).decode("utf-8")
    created = created_at(source, case)
    if created is None:
        notes.append(Note(case.id, "fix_commit", "not in the repository and no mined date: created_at is empty"))
    name = instance_id(repo_name, case.id)
    version = version_environment(source, case.base_commit).get(VERSION_VARIABLE, "0.0")
    return {
        "instance_id": name, "repo": repo_name, "base_commit": case.base_commit, "patch": patch,
        "test_patch": tests, "problem_statement": case.prompt, "hints_text": "", "created_at": created or "",
        "version": version, "FAIL_TO_PASS": json.dumps(list(case.grader.fail_to_pass)),
        "PASS_TO_PASS": json.dumps(list(case.grader.pass_to_pass)), "environment_setup_commit": case.base_commit,
        "image": image_name(name), "eval_script": eval_script(stored, base, tests), "log_parser": LOG_PARSER,
        "eval_type": EVAL_TYPE,
    }, notes


def carried_notes(case: Case) -> list[Note]:
    """The fields a case sets that an instance cannot carry."""
    notes = []
    if case.setup.python:
        notes.append(Note(case.id, "setup.python", f"{case.setup.python} is not part of an instance: build the "
                                                   "instance's image with it"))
    if case.setup.command:
        notes.append(Note(case.id, "setup.command", f"not run by the harness: build the instance's image with "
                                                    f"`{case.setup.command}` run in {WORKDIR}"))
    if case.grader.timeout != DEFAULT_GRADER_TIMEOUT:
        notes.append(Note(case.id, "grader.timeout", f"{case.grader.timeout}s: the harness takes one --timeout "
                                                     "for every instance"))
    if not case.grader.network:
        notes.append(Note(case.id, "grader.network", "off in Hindcast; the harness's containers keep their "
                                                     "network"))
    if REPORT_OPTION.search(case.grader.command):
        notes.append(Note(case.id, "grader.command", "its own -r option replaces the -rA summary the log parser "
                                                     "reads: tests it leaves out of the summary count as failed"))
    if case.prompts:
        notes.append(Note(case.id, "prompts", f"{len(case.prompts)} further wording(s) left out: an instance holds "
                                              "one task text, the prompt"))
    for field, value in (("max_turns", case.max_turns), ("bait", case.bait), ("trajectory", case.trajectory)):
        if value is not None:
            notes.append(Note(case.id, field, "not checked: the harness grades the patch only"))
    return notes


def test_patch(stored: StoredCase, base: dict[str, BaseEntry]) -> bytes:
    """The grader files, and deletions of the test paths the fix deleted, as a git diff against the base content
    of those paths (binary-safe; every change is a binary patch when the text one would not be UTF-8)."""
    env = git_env(FIXED_IDENTITY)
    with scratch_directory("hindcast-test-patch-") as scratch:
        run_git(["init", "-q"], scratch, env=env)
        for path, entry in base.items():
            _write(scratch, path, entry)
        run_git(["add", "-A", "-f"], scratch, env=env)
        run_git(["commit", "-q", "--no-verify", "--allow-empty", "-m", "base"], scratch, env=env)
        for path, content in stored.files.grader_files:
            mode = base[path].mode if path in base and base[path].mode != "120000" else "100644"
            remove_inside(scratch, path)
            write_inside(scratch, path, content, 0o755 if mode == "100755" else 0o644)
        for path in base:
            if any(path == d or path.startswith(d.rstrip("/") + "/") for d in stored.case.grader.deleted):
                remove_inside(scratch, path)
        run_git(["add", "-A", "-f"], scratch, env=env)
        diff = ["diff", "--cached", "--binary", "--full-index", "--no-renames", "--no-color", "HEAD"]
        patch = run_git(diff, scratch, env=env).stdout
        try:
            patch.decode("utf-8")
        except UnicodeDecodeError:
            (scratch / ".git" / "info").mkdir(parents=True, exist_ok=True)
            (scratch / ".git" / "info" / "attributes").write_text("* binary\n")
            patch = run_git(diff, scratch, env=env).stdout
        return patch


def _write(root: Path, path: str, entry: BaseEntry) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    if entry.mode == "120000":
        target.symlink_to(entry.content.decode("utf-8", "surrogateescape"))
    else:
        target.write_bytes(entry.content)
        target.chmod(0o755 if entry.mode == "100755" else 0o644)


def created_at(source: Path, case: Case) -> str | None:
    """The fix commit's author date (ISO 8601), else the date the miner recorded."""
    try:
        return git_text(["log", "-1", "--format=%aI", case.fix_commit, "--"], source)
    except GitError:
        return case.mined.authored if case.mined and case.mined.authored else None


def eval_script(stored: StoredCase, base: dict[str, BaseEntry], tests: str) -> str:
    """The script the harness runs in the instance's container after applying the candidate patch: the test paths
    back to the base, the test patch applied, the grader command between the output markers, the paths restored."""
    case = stored.case
    at_base = sorted(base)
    added = sorted(p for p, _ in stored.files.grader_files if p not in base)
    delimiter = "EOF_HINDCAST_TEST_PATCH"
    while delimiter in tests:
        delimiter += "_"
    restore = f"git checkout {case.base_commit} -- {shlex.join(at_base)}" if at_base else ""
    lines = ["#!/bin/bash", "set -uxo pipefail", f"cd {WORKDIR}"]
    lines += [restore] if restore else []
    lines += [f"rm -rf -- {shlex.join(added)}"] if added else []
    lines += [f"git apply --binary -v - <<'{delimiter}'", tests.rstrip("\n"), delimiter] if tests else []
    lines += [f"rm -f -- {shlex.quote(case.grader.junit)}"] if case.grader.junit else []
    lines += ['export PYTEST_ADDOPTS="-rA${PYTEST_ADDOPTS:+ $PYTEST_ADDOPTS}"', f": '{START}'",
              f"bash -c {shlex.quote(case.grader.command)}", f": '{END}'"]
    lines += [restore] if restore else []
    return "\n".join(lines) + "\n"
