"""The demo repository builds deterministically and every demo case is valid against it.

Grading here uses plain git and subprocess on purpose: it is the independent ground truth for the
runner's own verification.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.testing.isolation import PROJECT_BIN

REPO_ROOT = Path(__file__).resolve().parents[1]
BUILD_SCRIPT = REPO_ROOT / "demo" / "build_app.py"
CORPUS = REPO_ROOT / "demo" / "corpus"
CASE_IDS = sorted(p.name for p in (CORPUS / "cases").iterdir() if (p / "case.yaml").is_file())
DOC_SUFFIXES = (".md", ".rst", ".txt")


def git_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    return env


def git(repo: Path, *args: str, input: bytes | None = None, check: bool = True) -> bytes:
    proc = subprocess.run(
        ["git", *args], cwd=repo, env=git_env(), input=input, capture_output=True, check=False
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout


def git_ok(repo: Path, *args: str) -> bool:
    proc = subprocess.run(["git", *args], cwd=repo, env=git_env(), capture_output=True, check=False)
    return proc.returncode == 0


def build(dest: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BUILD_SCRIPT), str(dest), *extra],
        capture_output=True,
        text=True,
        env=git_env(),
        check=False,
    )


def build_tip(dest: Path) -> str:
    proc = build(dest)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip().splitlines()[-1]


@dataclass(frozen=True)
class DemoCase:
    id: str
    dir: Path
    data: dict[str, Any]

    @property
    def base(self) -> str:
        return str(self.data["base_commit"])

    @property
    def fix(self) -> str:
        return str(self.data["fix_commit"])

    @property
    def grader(self) -> dict[str, Any]:
        return dict(self.data["grader"])

    def grader_files(self) -> dict[str, Path]:
        root = self.dir / "grader"
        return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def load_case(case_id: str) -> DemoCase:
    case_dir = CORPUS / "cases" / case_id
    data = YAML(typ="safe").load((case_dir / "case.yaml").read_text(encoding="utf-8"))
    return DemoCase(case_id, case_dir, data)


@pytest.fixture(scope="module")
def demo_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    repo = tmp_path_factory.mktemp("demo") / "app"
    build_tip(repo)
    return repo


def changed_paths(repo: Path, case: DemoCase) -> dict[str, str]:
    """Path -> status letter (A, M, D) for every path the fix commit changed."""
    out = git(repo, "diff", "--name-status", "--no-renames", case.base, case.fix).decode()
    return {line.split("\t")[1]: line.split("\t")[0] for line in out.splitlines()}


def is_test_path(path: str) -> bool:
    return path.startswith("tests/")


# -- the build script ---------------------------------------------------------------------------------


def test_build_is_deterministic(tmp_path: Path) -> None:
    first, second = build_tip(tmp_path / "a"), build_tip(tmp_path / "b")
    assert re.fullmatch(r"[0-9a-f]{40}", first)
    assert first == second
    assert first in (REPO_ROOT / "demo" / "README.md").read_text(encoding="utf-8"), "README names the tip"
    assert int(git(tmp_path / "a", "rev-list", "--count", "HEAD")) >= 30
    assert git(tmp_path / "a", "symbolic-ref", "--short", "HEAD").decode().strip() == "main"


def test_build_refuses_non_empty_dest_unless_forced(tmp_path: Path) -> None:
    dest = tmp_path / "app"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine\n")
    refused = build(dest)
    assert refused.returncode == 2
    assert len(refused.stderr.strip().splitlines()) == 1
    assert (dest / "keep.txt").exists()
    forced = build(dest, "--force")
    assert forced.returncode == 0, forced.stderr
    assert not (dest / "keep.txt").exists()
    assert forced.stdout.strip() == build_tip(tmp_path / "fresh")


def test_print_shas_lists_every_commit(tmp_path: Path) -> None:
    proc = build(tmp_path / "app", "--print-shas")
    assert proc.returncode == 0, proc.stderr
    *rows, tip = proc.stdout.strip().splitlines()
    assert len(rows) >= 30
    assert rows[-1].split(" ", 1)[0] == tip
    assert all(re.fullmatch(r"[0-9a-f]{40} \S.*", row) for row in rows)


def test_app_suite_passes_at_tip(demo_repo: Path, tmp_path: Path) -> None:
    workspace = export(demo_repo, "HEAD", tmp_path / "ws")
    proc = run_grader("python -m pytest -q -p no:cacheprovider", workspace, timeout=120)
    assert proc.returncode == 0, proc.stdout


# -- the demo corpus ----------------------------------------------------------------------------------


def test_corpus_yaml() -> None:
    data = YAML(typ="safe").load((CORPUS / "corpus.yaml").read_text(encoding="utf-8"))
    assert data["name"] == "demo"
    assert data["repo"] == "../app"
    assert set(data["defaults"]) == {"owner", "policy"}


def test_corpus_has_enough_cases() -> None:
    assert len(CASE_IDS) >= 3
    cases = [load_case(case_id) for case_id in CASE_IDS]
    assert any(case.data.get("critical") for case in cases)
    assert any(case.grader.get("junit") for case in cases)


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_fields(case_id: str) -> None:
    case = load_case(case_id)
    assert case.data["id"] == case_id
    for key in ("base_commit", "fix_commit"):
        assert re.fullmatch(r"[0-9a-f]{40}", str(case.data[key])), key
    assert case.grader["command"].strip()
    assert case.data["trigger_paths"] and case.data["tags"] and case.data["owner"]
    junit = case.grader.get("junit")
    if junit:
        assert f"--junitxml={junit}" in case.grader["command"]
    for test_id in [*case.grader.get("fail_to_pass", []), *case.grader.get("pass_to_pass", [])]:
        assert re.fullmatch(r"tests/[\w/]+\.py::\w+", test_id), test_id


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_prompt_does_not_leak(case_id: str) -> None:
    case = load_case(case_id)
    prompt = case.data["prompt"]
    assert case.base[:7] not in prompt and case.fix[:7] not in prompt
    assert "tests/" not in prompt and "test_" not in prompt
    for test_id in [*case.grader.get("fail_to_pass", []), *case.grader.get("pass_to_pass", [])]:
        assert test_id.split("::")[-1] not in prompt


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_commits(case_id: str, demo_repo: Path) -> None:
    case = load_case(case_id)
    for sha in (case.base, case.fix):
        assert git(demo_repo, "cat-file", "-t", sha).decode().strip() == "commit"
    assert git_ok(demo_repo, "merge-base", "--is-ancestor", case.fix, "HEAD")
    parents = git(demo_repo, "rev-list", "--parents", "-n", "1", case.fix).decode().split()[1:]
    assert parents == [case.base]


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_grader_files_are_the_fix_versions(case_id: str, demo_repo: Path) -> None:
    case = load_case(case_id)
    changed = changed_paths(demo_repo, case)
    tests_changed = {p for p, status in changed.items() if is_test_path(p) and status in "AM"}
    tests_deleted = {p for p, status in changed.items() if is_test_path(p) and status == "D"}
    files = case.grader_files()
    assert set(files) == tests_changed
    assert set(case.grader.get("deleted", [])) == tests_deleted
    for path, local in files.items():
        assert local.read_bytes() == git(demo_repo, "show", f"{case.fix}:{path}"), path


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_oracle_is_the_fix_source_diff(case_id: str, demo_repo: Path, tmp_path: Path) -> None:
    case = load_case(case_id)
    changed = changed_paths(demo_repo, case)
    source = sorted(p for p in changed if not is_test_path(p) and not p.endswith(DOC_SUFFIXES))
    assert source, "a fix must change source"
    expected = git(demo_repo, "diff", "--binary", case.base, case.fix, "--", *source)
    assert (case.dir / "oracle.patch").read_bytes() == expected
    workspace = export(demo_repo, case.base, tmp_path / "ws")
    git(workspace, "apply", "--check", str(case.dir / "oracle.patch"))


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_baseline_fails_and_oracle_passes(case_id: str, demo_repo: Path, tmp_path: Path) -> None:
    case = load_case(case_id)
    baseline = grade(case, export(demo_repo, case.base, tmp_path / "baseline"), oracle=False)
    oracle = grade(case, export(demo_repo, case.base, tmp_path / "oracle"), oracle=True)
    assert baseline.returncode != 0, f"baseline passes:\n{baseline.stdout}"
    assert oracle.returncode == 0, f"oracle fails:\n{oracle.stdout}"
    junit = case.grader.get("junit")
    if junit:
        fail_to_pass = case.grader.get("fail_to_pass", [])
        pass_to_pass = case.grader.get("pass_to_pass", [])
        at_base = junit_outcomes(tmp_path / "baseline" / junit)
        at_fix = junit_outcomes(tmp_path / "oracle" / junit)
        assert all(at_base.get(test_id) != "passed" for test_id in fail_to_pass), at_base
        assert all(at_base.get(test_id) == "passed" for test_id in pass_to_pass), at_base
        assert all(at_fix.get(test_id) == "passed" for test_id in [*fail_to_pass, *pass_to_pass]), at_fix


# -- plain workspaces and grading -------------------------------------------------------------------


def export(repo: Path, commit: str, dest: Path) -> Path:
    """Unpack `git archive COMMIT` into dest and make it a repository of its own (so `git apply` is rooted)."""
    dest.mkdir(parents=True)
    archive = git(repo, "archive", "--format=tar", commit)
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    git(dest, "init", "-q")
    return dest


def run_grader(command: str, workspace: Path, timeout: int) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in git_env().items() if not k.startswith(("PYTEST", "PYTHONPATH"))}
    env["PATH"] = f"{PROJECT_BIN[0]}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        ["bash", "-c", command],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def grade(case: DemoCase, workspace: Path, *, oracle: bool) -> subprocess.CompletedProcess[str]:
    if oracle:
        git(workspace, "apply", "--binary", str(case.dir / "oracle.patch"))
    for path, local in case.grader_files().items():
        target = workspace / path
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(local, target)
    for path in case.grader.get("deleted", []):
        (workspace / path).unlink(missing_ok=True)
    junit = case.grader.get("junit")
    if junit:
        (workspace / junit).unlink(missing_ok=True)
    return run_grader(case.grader["command"], workspace, int(case.grader.get("timeout", 300)))


def junit_outcomes(path: Path) -> dict[str, str]:
    """pytest node id -> passed | failed | skipped, read from a pytest JUnit XML report."""
    outcomes: dict[str, str] = {}
    for testcase in ET.parse(path).getroot().iter("testcase"):
        node = f"{testcase.get('classname', '').replace('.', '/')}.py::{testcase.get('name')}"
        if testcase.find("failure") is not None or testcase.find("error") is not None:
            outcomes[node] = "failed"
        elif testcase.find("skipped") is not None:
            outcomes[node] = "skipped"
        else:
            outcomes[node] = "passed"
    return outcomes
