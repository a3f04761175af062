"""The base's version for setup: a workspace has no tags, so a project versioned from them gets it from Hindcast."""

from __future__ import annotations

from pathlib import Path

from corpus import Case, Grader, Setup
from runner.envs.environment import VERSION_VARIABLE, failure_line, version_environment
from runner.workspace.prepare import prepare
from tests.testing.gitrepo import git_init


def test_the_nearest_earlier_tag_names_the_version(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    untagged = repo.commit({"a.txt": "1"}, "first")
    tagged = repo.commit({"a.txt": "2"}, "second")
    repo.git("tag", "v3.16.1")
    later = repo.commit({"a.txt": "3"}, "third")
    future = repo.commit({"a.txt": "4"}, "fourth")
    repo.git("tag", "v4.0.0")  # after the bases below: never seen from them
    repo.git("tag", "nightly", future)
    assert version_environment(repo.path, untagged) == {}
    assert version_environment(repo.path, tagged) == {VERSION_VARIABLE: "3.16.1"}
    assert version_environment(repo.path, later) == {VERSION_VARIABLE: "3.16.1.post1.dev1"}


def test_a_tag_that_is_no_version_sets_nothing(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    base = repo.commit({"a.txt": "1"}, "first")
    repo.git("tag", "release-candidate")
    assert version_environment(repo.path, base) == {}


def test_setup_sees_the_version(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    base = repo.commit({"a.txt": "1"}, "first")
    repo.git("tag", "2.5")
    fix = repo.commit({"a.txt": "2"}, "fix")
    case = Case(id="c", title="t", prompt="p", base_commit=base, fix_commit=fix, grader=Grader(command="true"),
                setup=Setup(command=f'echo "${VERSION_VARIABLE}" > version.txt'))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    prepared = prepare(case, repo.path, scratch)
    assert (prepared.workspace / "version.txt").read_text() == "2.5\n"


def test_the_failure_line_names_the_error_not_only_the_last_words() -> None:
    tail = ("Resolved 3 packages\n  × No solution found when resolving dependencies:\n"
            "  ╰─▶ Because filelock==0.1.dev1 and you require virtualenv>=21.2, we can conclude that your "
            "requirements are unsatisfiable.\n")
    line = failure_line(tail)
    assert line.startswith("× No solution found when resolving dependencies: … ╰─▶ Because filelock==0.1.dev1")
    assert failure_line("building\nok, then broken\n") == "ok, then broken"
    assert len(failure_line("error: " + "x" * 1000)) == 300
