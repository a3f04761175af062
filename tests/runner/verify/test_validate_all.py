"""`runner validate` reports every problem of a corpus in one pass, suggests near keys, and applies oracles."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpus import CaseFiles, Corpus
from corpus.cli_support import run_cli
from corpus.errors import CorpusError, ExitCode
from runner.cli import cli
from runner.verify.validate import validate
from tests.testing.casefactory import TEST_V2, build_corpus, oracle_patch
from tests.testing.gitrepo import git_init


def copy_case(corpus: Corpus, new_id: str, edit: tuple[str, str]) -> Path:
    """A copy of calc-add under a new id with one text replacement in its case.yaml; returns that case.yaml."""
    target = corpus.root / "cases" / new_id
    shutil.copytree(corpus.root / "cases" / "calc-add", target)
    path = target / "case.yaml"
    text = path.read_text().replace("id: calc-add", f"id: {new_id}")
    assert edit[0] in text
    path.write_text(text.replace(*edit))
    return path


def test_every_broken_case_is_listed_in_one_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    typo = copy_case(corpus, "a-typo", ("prompt:", "promt:"))
    status = copy_case(corpus, "b-status", ("owner: ada", "owner: ada\nstatus: gone"))
    assert run_cli(cli, "runner", ["validate", "--corpus", str(corpus.root)]) == ExitCode.BAD_INPUT
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"runner: error: {typo}:")
    assert lines[0].endswith("promt: unknown key 'promt' (did you mean 'prompt'?)")
    assert lines[1].startswith(f"runner: error: {status}:")
    assert lines[1].endswith("status: must be one of active, deprecated, found 'gone'")
    assert lines[2] == f"runner: error: {corpus.root}: 2 problems found"


def test_report_keeps_the_cases_that_load(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    copy_case(corpus, "a-typo", ("title:", "titel:"))
    report = validate(corpus)
    assert report.cases == 1 and report.active == 1
    assert len(report.errors) == 1 and "titel: unknown key 'titel' (did you mean 'title'?)" in report.errors[0]


def test_a_missing_commit_and_a_broken_case_both_reported(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    copy_case(corpus, "a-typo", ("prompt:", "promt:"))
    fix = corpus.load("calc-add").case.fix_commit
    gone = copy_case(corpus, "b-gone", (f"fix_commit: {fix}", f"fix_commit: {'3' * 40}"))
    errors = validate(corpus).errors
    assert len(errors) == 2
    assert "did you mean 'prompt'" in errors[0]
    assert errors[1] == f"{gone}: fix_commit: commit {'3' * 40} is not in the repository {(tmp_path / 'repo').resolve()}"


def test_oracle_patch_that_does_not_apply_to_its_base(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, repo, case = build_corpus(tmp_path)
    reverse = oracle_patch(repo, case.fix_commit, case.base_commit, "calc.py")  # expects the fixed code
    corpus.write(case, CaseFiles.of(reverse, {"test_calc.py": TEST_V2.encode()}))
    index = repo.path / ".git" / "index"
    index_before = index.read_bytes()
    assert run_cli(cli, "runner", ["validate", "--corpus", str(corpus.root)]) == ExitCode.BAD_INPUT
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        (f"runner: error: {corpus.root / 'cases' / 'calc-add' / 'oracle.patch'}: does not apply to base "
         f"{case.base_commit[:10]}: error: patch failed: calc.py:1"),
        f"runner: error: {corpus.root}: 1 problem found",
    ]
    assert index.read_bytes() == index_before
    assert repo.git("status", "--porcelain") == ""


def test_oracle_patch_that_applies_is_fine(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    assert validate(corpus).errors == ()


def test_unknown_nested_key_suggests_and_a_far_one_does_not(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    near = copy_case(corpus, "a-near", ("  command:", "  comand:"))
    copy_case(corpus, "b-far", ("owner: ada", "owner: ada\nzzz: 1"))
    errors = validate(corpus).errors
    assert errors[0].startswith(f"{near}:")
    assert errors[0].endswith("grader.comand: unknown key 'comand' (did you mean 'command'?)")
    assert errors[1].endswith("zzz: unknown key 'zzz'")


def test_corpus_yaml_unknown_key_suggests(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    path = corpus.root / "corpus.yaml"
    path.write_text(path.read_text() + "tests_globs: ['t/*']\n")
    with pytest.raises(CorpusError) as caught:
        Corpus.open(corpus.root)
    assert caught.value.message.endswith("tests_globs: unknown key 'tests_globs' (did you mean 'test_globs'?)")


def line_number(path: Path, text: str) -> int:
    """The 1-based line of path that holds text."""
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1) if text in line)


@pytest.mark.parametrize(("edit", "bad_line", "message"), [
    (("  - calc.py", "  - calc.py\n  - src/\n  - {glob: '*.py'}"), "{glob:",
     "trigger_paths[2]: expected a list of text, found an item of a mapping"),
    (("  timeout: 60", "  timeout: 60\n  deleted:\n    - test_old.py\n    - ../outside.py"), "../outside.py",
     "grader.deleted[1]: must be a relative path inside the repository, found '../outside.py'"),
    (("  timeout: 60", ("  timeout: 60\n  junit: report.xml\n  fail_to_pass:\n    - test_calc.py::test_add\n"
                       "    - [nested]")), "[nested]",
     "grader.fail_to_pass[1]: expected a list of text, found an item of a list"),
], ids=["trigger_paths", "grader.deleted", "grader.fail_to_pass"])
def test_a_bad_list_item_is_reported_at_its_own_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                     edit: tuple[str, str], bad_line: str, message: str) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    path = corpus.root / "cases" / "calc-add" / "case.yaml"
    path.write_text(path.read_text().replace(*edit))
    assert run_cli(cli, "runner", ["validate", "--corpus", str(corpus.root)]) == ExitCode.BAD_INPUT
    first = capsys.readouterr().err.splitlines()[0]
    assert first == f"runner: error: {path}:{line_number(path, bad_line)}: {message}"


def test_a_rejection_that_is_not_a_mapping_is_reported_at_its_line(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    path = corpus.root / "rejected.yaml"
    path.write_text(f"rejected:\n  - fix_commit: {'a' * 40}\n    reason: noise\n  - just a sha\n")
    with pytest.raises(CorpusError) as caught:
        corpus.rejections()
    assert str(caught.value) == f"{path}:4: rejected[1]: expected a mapping, found text"


def test_every_problem_of_one_file_is_listed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    path = copy_case(corpus, "many", ("owner: ada", "owner: ada\npolicy: strict\ntgas: [a]\nholdout: maybe"))
    text = path.read_text()
    assert "timeout: 60" in text
    path.write_text(text.replace("prompt:", "promt:", 1).replace("timeout: 60", "timeout: -60", 1))
    assert run_cli(cli, "runner", ["validate", "--corpus", str(corpus.root)]) == ExitCode.BAD_INPUT
    lines = capsys.readouterr().err.splitlines()
    found = [line.removeprefix(f"runner: error: {path}:").split(": ", 1)[1] for line in lines[:-1]]
    assert sorted(found) == sorted([
        "promt: unknown key 'promt' (did you mean 'prompt'?)",
        "policy: must be one of advisory, blocking, found 'strict'",
        "holdout: expected true or false, found text",
        "tgas: unknown key 'tgas' (did you mean 'tags'?)",
        "grader.timeout: must be at least 1",
    ])
    assert lines[-1] == f"runner: error: {corpus.root}: {len(found)} problems found"
    assert all(line.startswith(f"runner: error: {path}:") for line in lines[:-1])


def test_a_wrong_repository_is_one_line_not_one_per_commit(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    for n in range(3):
        copy_case(corpus, f"copy-{n}", ("owner: ada", "owner: ada"))
    other = git_init(tmp_path / "other")
    other.commit({"README.md": "another project\n"}, "start")
    assert run_cli(cli, "runner", ["validate", "--corpus", str(corpus.root), "--repo", str(other.path)]) == 3
    assert capsys.readouterr().err.splitlines() == [
        (f"runner: error: {other.path.resolve()}: none of the 8 commits of the corpus's 4 cases and candidates is in "
        "this repository; is it the right one (--repo, or repo: in corpus.yaml)?"),
        f"runner: error: {corpus.root}: 1 problem found"]
