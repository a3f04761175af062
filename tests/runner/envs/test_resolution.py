"""Resolution as of the fix's date, against a package index of the test's own (`tests.testing.localindex`): the
dated resolution picks what the index had then, the build tools stay today's (an old setuptools cannot build an
editable install) and the runtime setuptools is set back to the dated one, a resolution that fails dated falls
back to today's, saying so; and bases whose dependency files differ but resolve alike share one cache entry."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus import Grader, Setup
from corpus.interpreters import installed_pythons
from runner.envs.cache import EnvCache
from runner.envs.manage import list_entries
from runner.envs.project import site_packages
from runner.envs.resolution import Installs, uv_installs
from runner.sandbox.confine import Confinement
from runner.settings import Settings
from runner.verify.verify import VerifyOptions, verify
from runner.workspace.prepare import Prepared, prepare
from tests.testing.casefactory import build_corpus, make_case
from tests.testing.gitrepo import GitRepo, git_init
from tests.testing.localindex import NEW, OLD, Release, backend, library, serve_index
from tests.testing.trialkit import FAST_GRADER

PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"
CONF = Confinement()
FIX_DATE = "2024-01-04T00:00:00Z"
"""The committer date of the fix in every repository here (the third commit of a `tests.testing.gitrepo`)."""
RELEASES = [backend("1.0", OLD, editable=False), backend("80.0", NEW, editable=True),
            library("oldpin", "1.0", OLD), library("oldpin", "2.0", NEW), library("newonly", "2.0", NEW),
            library("pip", "24.0", OLD), library("wheel", "0.40", OLD),
            library("plugin", "1.0", OLD, requires=("app>=1.0",))]
"""The index: a backend of before editable installs and one of today, a library of both dates, one of today only, a
plugin of the test's project, and what `uv venv --seed` installs (so environments are made from it, fast)."""


def pyproject(dependencies: str) -> str:
    return ('[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
            f'[project]\nname = "app"\nversion = "0.1"\ndependencies = [{dependencies}]\n')


def serve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, releases: list[Release]) -> Iterator[str]:
    """An index of releases as every uv command's default, and uv's download cache in tmp_path."""
    with serve_index(releases) as url:
        monkeypatch.setenv("UV_INDEX_URL", url)
        monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
        yield url


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """The test's index (RELEASES)."""
    yield from serve(monkeypatch, tmp_path, RELEASES)


@pytest.fixture
def old_setuptools_breaks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """RELEASES with a dated setuptools that does not import."""
    releases = [backend("1.0", OLD, editable=False, importable=False), *RELEASES[1:]]
    yield from serve(monkeypatch, tmp_path, releases)


def repo_with(path: Path, files: dict[str, str], second: dict[str, str] | None = None) -> tuple[GitRepo, list[str]]:
    """A base of files (and a second base of second), then a fix committed on FIX_DATE."""
    repo = git_init(path)
    bases = [repo.commit({**files, "app.py": "X = 1\n"}, "Base")]
    bases.append(repo.commit(second or {"app.py": "X = 2\n"}, "Second base"))
    repo.commit({"app.py": "X = 3\n"}, "Fix")
    return repo, bases


def prep(tmp_path: Path, repo: GitRepo, base: str, command: str, name: str, cache: EnvCache | None = None) -> Prepared:
    fix = repo.git("rev-parse", "HEAD")
    scratch = tmp_path / "scratch" / name
    scratch.mkdir(parents=True)
    case = make_case(base, fix, id=name, setup=Setup(command=command, python=PYTHON))
    return prepare(case, repo.path, scratch, confinement=CONF, env_cache=cache)


def installed(prepared: Prepared) -> dict[str, str]:
    """name -> version of every distribution in the prepared environment."""
    assert prepared.env_dir is not None
    found = {}
    for site in site_packages(prepared.env_dir):
        for info in site.glob("*.dist-info"):
            name, version = info.name[: -len(".dist-info")].rsplit("-", 1)
            found[name.lower()] = version
    return found


@pytest.mark.parametrize(("command", "expected"), [
    ("uv pip install -e '.[test]' pytest", Installs(("-e .[test]", "pytest"), (), True)),
    ("uv pip install -e . --group dev && msgfmt a.po -o a.mo",
     Installs(("-e .",), ("--group", "dev"), False)),
    ("uv pip install -r requirements.txt -r requirements-test.txt pytest",
     Installs(("-r requirements.txt", "-r requirements-test.txt", "pytest"), (), True)),
    ("uv pip install --python=/x -q --pre -c c.txt 'a>=1' && uv pip install --index-url http://i b",
     Installs(("-c c.txt", "a>=1", "b"), ("--pre", "--index-url", "http://i"), True)),
    ("uv pip install a; make prep", Installs(("a",), (), False)),
])
def test_a_setup_command_s_uv_installs_are_one_resolution(command: str, expected: Installs) -> None:
    assert uv_installs(command) == expected


@pytest.mark.parametrize("command", [None, "", "python -m pip install -e .", "npm ci", "uv pip install 'a"])
def test_a_command_without_a_readable_uv_install_is_not_resolved(command: str | None) -> None:
    assert uv_installs(command) is None


def test_dated_resolution_picks_the_old_release_builds_with_today_s_backend_and_dates_the_runtime_setuptools(
        tmp_path: Path, index: str) -> None:
    repo, bases = repo_with(tmp_path / "repo", {"pyproject.toml": pyproject('"oldpin", "setuptools"')})
    prepared = prep(tmp_path, repo, bases[0], "uv pip install -e .", "dated")
    assert prepared.resolution == f"resolution: as of the fix's date {FIX_DATE} (build tools today's)"
    versions = installed(prepared)
    assert versions["oldpin"] == "1.0"  # 2.0 was uploaded after the fix
    # the editable install needed the backend's build_editable, which only today's setuptools has; the one the
    # tests import is then the dated one, which still ships pkg_resources
    assert versions["app"] == "0.1" and versions["setuptools"] == "1.0"
    [site] = site_packages(prepared.env_dir)  # type: ignore[arg-type]
    assert (site / "pkg_resources" / "__init__.py").read_text() == "OLD = True\n"
    assert (site / "_app_editable.pth").read_text() == "/workspace\n"  # the workspace as the sandbox shows it


def test_a_dated_setuptools_that_does_not_import_is_put_back_at_today_s_and_the_line_says_so(
        tmp_path: Path, old_setuptools_breaks: str) -> None:
    repo, bases = repo_with(tmp_path / "repo", {"pyproject.toml": pyproject('"oldpin", "setuptools"')})
    prepared = prep(tmp_path, repo, bases[0], "uv pip install -e .", "broken")
    assert prepared.resolution == (f"resolution: as of the fix's date {FIX_DATE} (build tools today's); "
                                   "setuptools, wheel kept at today's: ImportError: too old for this Python")
    versions = installed(prepared)
    assert versions["setuptools"] == "80.0" and versions["oldpin"] == "1.0"


def test_the_resolution_sees_an_interpreter_that_is_not_on_path(tmp_path: Path, index: str) -> None:
    path = os.environ["PATH"].split(os.pathsep)
    other = next(f"{major}.{minor}" for (major, minor), python in installed_pythons()
                 if (major, minor) >= (3, 8) and str(python.parent) not in path and f"{major}.{minor}" != PYTHON)
    repo, bases = repo_with(tmp_path / "repo", {"requirements-test.txt": "oldpin\n"})
    fix = repo.git("rev-parse", "HEAD")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    case = make_case(bases[0], fix, setup=Setup(command="uv pip install -r requirements-test.txt", python=other))
    prepared = prepare(case, repo.path, scratch, confinement=CONF)
    assert prepared.resolution == f"resolution: as of the fix's date {FIX_DATE} (build tools today's)"
    assert installed(prepared)["oldpin"] == "1.0"


def test_the_resolution_knows_the_version_the_base_s_tags_give(tmp_path: Path, index: str) -> None:
    text = pyproject('"plugin"').replace('version = "0.1"', 'dynamic = ["version"]')
    repo, bases = repo_with(tmp_path / "repo", {"pyproject.toml": text})
    repo.git("tag", "v1.0", bases[0])  # without it the project is 0.1.dev1, and the plugin needs app>=1.0
    prepared = prep(tmp_path, repo, bases[0], "uv pip install -e .", "tagged")
    assert prepared.resolution == f"resolution: as of the fix's date {FIX_DATE} (build tools today's)"
    assert installed(prepared)["app"] == "1.0" and installed(prepared)["plugin"] == "1.0"


def test_a_resolution_that_fails_dated_falls_back_to_today_s_and_says_so(tmp_path: Path, index: str) -> None:
    repo, bases = repo_with(tmp_path / "repo", {"pyproject.toml": pyproject('"oldpin", "newonly>=2"')})
    prepared = prep(tmp_path, repo, bases[0], "uv pip install -e .", "today")
    assert prepared.resolution.startswith(f"resolution: today's; as of the fix's date {FIX_DATE} it does not "
                                          "resolve: ")
    assert "newonly" in prepared.resolution
    versions = installed(prepared)
    assert versions["oldpin"] == "2.0" and versions["newonly"] == "2.0" and versions["setuptools"] != "1.0"


def test_a_setup_that_fails_dated_runs_again_today_s_and_says_so(tmp_path: Path, index: str) -> None:
    repo, bases = repo_with(tmp_path / "repo", {"pyproject.toml": pyproject('"oldpin"')})
    needs_new = "uv pip install -e . && python -c 'import oldpin, sys; sys.exit(oldpin.VERSION != \"2.0\")'"
    prepared = prep(tmp_path, repo, bases[0], needs_new, "setup-fails")
    assert prepared.resolution.startswith(f"resolution: today's; as of the fix's date {FIX_DATE} setup fails: ")
    assert installed(prepared)["oldpin"] == "2.0" and prepared.setup is not None and prepared.setup.exit_code == 0


def test_bases_whose_files_differ_but_resolve_alike_share_one_entry(tmp_path: Path, index: str) -> None:
    repo, bases = repo_with(tmp_path / "repo", {"requirements-test.txt": "oldpin\n"},
                            {"requirements-test.txt": "# the pin the fix's day had\noldpin < 2\n"})
    command = "uv pip install -r requirements-test.txt"
    first = prep(tmp_path, repo, bases[0], command, "one", EnvCache(tmp_path / "envs"))
    second = prep(tmp_path, repo, bases[1], command, "two", EnvCache(tmp_path / "envs"))
    assert (first.env_cache, second.env_cache) == ("miss", "hit")
    assert second.resolution == f"resolution: as of the fix's date {FIX_DATE} (build tools today's)"
    [entry] = list_entries(tmp_path / "envs")
    assert entry.cases == ("one", "two") and installed(second)["oldpin"] == "1.0"
    assert "dependency_files" not in entry.meta["parts"] and "as_of" not in entry.meta["parts"]


def test_fixes_of_other_dates_that_resolve_alike_share_one_entry(tmp_path: Path, index: str) -> None:
    repo, bases = repo_with(tmp_path / "repo", {"requirements-test.txt": "oldpin\n"})
    first_fix = repo.git("rev-parse", "HEAD")
    later_fix = repo.commit({"app.py": "X = 4\n"}, "A later fix")
    command = "uv pip install -r requirements-test.txt"
    prepared = []
    for name, fix in (("one", first_fix), ("two", later_fix)):
        scratch = tmp_path / "scratch" / name
        scratch.mkdir(parents=True)
        case = make_case(bases[0], fix, id=name, setup=Setup(command=command, python=PYTHON))
        prepared.append(prepare(case, repo.path, scratch, confinement=CONF, env_cache=EnvCache(tmp_path / "envs")))
    assert [p.env_cache for p in prepared] == ["miss", "hit"]
    assert prepared[1].resolution == "resolution: as of the fix's date 2024-01-05T00:00:00Z (build tools today's)"
    [entry] = list_entries(tmp_path / "envs")
    assert entry.cases == ("one", "two")


def test_bases_that_resolve_otherwise_get_entries_of_their_own(tmp_path: Path, index: str) -> None:
    repo, bases = repo_with(tmp_path / "repo", {"requirements-test.txt": "oldpin\n"},
                            {"requirements-test.txt": "oldpin\nnewonly\n"})
    command = "uv pip install -r requirements-test.txt"
    first = prep(tmp_path, repo, bases[0], command, "one", EnvCache(tmp_path / "envs"))
    second = prep(tmp_path, repo, bases[1], command, "two", EnvCache(tmp_path / "envs"))
    assert (first.env_cache, second.env_cache) == ("miss", "miss") and len(list_entries(tmp_path / "envs")) == 2
    assert installed(first)["oldpin"] == "1.0" and installed(second)["oldpin"] == "2.0"  # today's, as it must


def test_verify_says_how_each_attempt_s_setup_resolved(tmp_path: Path, index: str) -> None:
    corpus, _, _ = build_corpus(tmp_path, setup=Setup(python=PYTHON, command="uv pip install oldpin"),
                                grader=Grader(command=FAST_GRADER, timeout=60))
    [verdict] = verify(corpus, VerifyOptions(settings=Settings(env_cache=tmp_path / "envs"))).verdicts
    assert verdict.verdict == "VALID"
    assert [(a.side, a.env_cache) for a in verdict.attempts] == [("baseline", "miss"), ("oracle", "hit")]
    assert {a.resolution for a in verdict.attempts} == {
        f"resolution: as of the fix's date {FIX_DATE} (build tools today's)"}
