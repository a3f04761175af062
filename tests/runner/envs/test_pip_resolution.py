"""Resolution as of the fix's date for setups that install with pip, with real pip against a package index of
the test's own (`tests.testing.localindex`): the dated index offers what the upstream had then, the build tools
whole, and a dated setup that fails falls back to today's, saying so."""

from __future__ import annotations

import hashlib
import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus import Setup
from runner.envs.cache import EnvCache
from runner.envs.manage import list_entries
from runner.envs.pipindex import dated_page, installs_with_pip, serve_dated
from runner.sandbox.confine import Confinement
from runner.workspace.prepare import Prepared, prepare
from tests.testing.casefactory import make_case
from tests.testing.gitrepo import git_init
from tests.testing.localindex import NEW, OLD, Release, backend, library, serve_index

PYTHON = f"{sys.version_info[0]}.{sys.version_info[1]}"
FIX_DATE = "2024-01-04T00:00:00Z"
"""The committer date of the fix (the third commit of a `tests.testing.gitrepo`)."""
RELEASES = [library("oldpin", "1.0", OLD), library("oldpin", "2.0", NEW), library("newonly", "2.0", NEW),
            backend("1.0", OLD, editable=False), backend("80.0", NEW, editable=True)]
"""No pip in it: the environment is then made by `python -m venv`, whose pip is the interpreter's own."""
PIP = "python -m pip install --no-cache-dir --disable-pip-version-check --quiet"


def serve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, releases: list[Release]) -> Iterator[str]:
    """An index of releases as pip's upstream (and uv's, which finds no pip in it to seed)."""
    with serve_index(releases) as url:
        monkeypatch.setenv("PIP_INDEX_URL", url)
        monkeypatch.setenv("UV_INDEX_URL", url)
        monkeypatch.setenv("UV_CACHE_DIR", str(tmp_path / "uv-cache"))
        monkeypatch.setenv("PIP_CONFIG_FILE", "/dev/null")
        yield url


@pytest.fixture
def index(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """The test's index (RELEASES)."""
    yield from serve(monkeypatch, tmp_path, RELEASES)


@pytest.fixture
def old_setuptools_breaks(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """RELEASES with a dated setuptools that does not import."""
    yield from serve(monkeypatch, tmp_path, [*RELEASES[:3], backend("1.0", OLD, editable=False, importable=False),
                                             RELEASES[4]])


def prep(tmp_path: Path, command: str) -> tuple[Prepared, dict[str, str]]:
    """command run as a case's setup on a repository whose fix is of FIX_DATE; the prepared trial and the
    versions its environment holds."""
    repo = git_init(tmp_path / "repo")
    base = repo.commit({"app.py": "X = 1\n"}, "Base")
    repo.commit({"app.py": "X = 2\n"}, "Second")
    fix = repo.commit({"app.py": "X = 3\n"}, "Fix")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    case = make_case(base, fix, id="pip", setup=Setup(command=command, python=PYTHON))
    prepared = prepare(case, repo.path, scratch, confinement=Confinement())
    assert prepared.env_dir is not None
    versions = {}
    for info in prepared.env_dir.glob("lib/python*/site-packages/*.dist-info"):
        name, version = info.name[: -len(".dist-info")].rsplit("-", 1)
        versions[name.lower()] = version
    return prepared, versions


def test_pip_gets_the_release_of_the_fix_s_date_builds_with_today_s_tools_and_dates_the_runtime_setuptools(
        tmp_path: Path, index: str) -> None:
    prepared, versions = prep(tmp_path, f"{PIP} oldpin setuptools==80.0")
    # setuptools 80.0 was uploaded after the fix, but build tools are exempt as on the uv path: the dated setup
    # installed it (a pin the dated index does not offer falls back to today's, as below)
    assert prepared.resolution == f"resolution: as of the fix's date {FIX_DATE} (pip; build tools today's)"
    assert versions["oldpin"] == "1.0"  # 2.0 was uploaded after the fix
    # once set up, the setuptools the tests import is the dated one, which still ships pkg_resources
    assert versions["setuptools"] == "1.0"
    assert prepared.env_dir is not None
    [site] = prepared.env_dir.glob("lib/python*/site-packages")
    assert (site / "pkg_resources" / "__init__.py").read_text() == "OLD = True\n"


def test_a_dated_setuptools_that_does_not_import_is_put_back_at_today_s_and_the_line_says_so(
        tmp_path: Path, old_setuptools_breaks: str) -> None:
    prepared, versions = prep(tmp_path, f"{PIP} oldpin setuptools==80.0")
    assert prepared.resolution == (f"resolution: as of the fix's date {FIX_DATE} (pip; build tools today's); "
                                   "setuptools kept at today's: ImportError: too old for this Python")
    assert versions["setuptools"] == "80.0" and versions["oldpin"] == "1.0"


def test_a_build_tool_the_setup_pinned_lower_is_not_set_back_above_its_pin(monkeypatch: pytest.MonkeyPatch,
                                                                          tmp_path: Path) -> None:
    # an old test runner bounds a build tool's dependency (pytest 3.5 holds pluggy<0.7): the dated version set
    # back after setup is the newest the index had then up to the one the setup's resolution chose, never above
    releases = [*RELEASES, backend("0.5", OLD, editable=False)]
    for _ in serve(monkeypatch, tmp_path, releases):
        prepared, versions = prep(tmp_path, f"{PIP} oldpin setuptools==0.5")
    assert prepared.resolution == f"resolution: as of the fix's date {FIX_DATE} (pip; build tools today's)"
    assert versions["setuptools"] == "0.5" and versions["oldpin"] == "1.0"


def test_an_old_pin_resolves_dated(tmp_path: Path, index: str) -> None:
    prepared, versions = prep(tmp_path, f"{PIP} oldpin==1.0")
    assert prepared.resolution.startswith("resolution: as of the fix's date")
    assert versions["oldpin"] == "1.0"


def test_a_release_newer_than_the_fix_is_not_offered_so_setup_falls_back_to_today_s(
        tmp_path: Path, index: str) -> None:
    prepared, versions = prep(tmp_path, f"{PIP} oldpin==2.0")
    assert prepared.resolution.startswith(
        f"resolution: today's; as of the fix's date {FIX_DATE} setup fails: ")
    assert "oldpin==2.0" in prepared.resolution
    assert versions["oldpin"] == "2.0"
    log = (tmp_path / "scratch" / "setup.log").read_text()
    assert "No matching distribution found for oldpin==2.0" not in log  # the log is today's run's


def test_the_dated_page_keeps_what_was_uploaded_before_and_what_pip_needs_to_choose() -> None:
    page = {"name": "lib", "files": [
        {"filename": "lib-1.0.tar.gz", "url": "../../files/lib-1.0.tar.gz", "hashes": {"sha256": "ab"},
         "requires-python": ">=2.7", "upload-time": "2015-01-01T00:00:00.123Z", "yanked": "broken"},
        {"filename": "lib-2.0.tar.gz", "url": "/files/lib-2.0.tar.gz", "hashes": {},
         "upload-time": "2016-01-01T00:00:00Z"},
        {"filename": "lib-0.9.tar.gz", "url": "/files/lib-0.9.tar.gz", "hashes": {}}]}
    text = dated_page(page, "http://index/simple/lib/", "2015-06-01T00:00:00Z", exempt=False)
    assert ('<a href="http://index/files/lib-1.0.tar.gz#sha256=ab" data-requires-python="&gt;=2.7" '
            'data-yanked="broken">lib-1.0.tar.gz</a>') in text
    assert "lib-2.0" not in text  # after the date
    assert "lib-0.9" not in text  # no upload time: its date cannot be established
    whole = dated_page(page, "http://index/simple/lib/", "2015-06-01T00:00:00Z", exempt=True)
    assert "lib-2.0" in whole and "lib-0.9" in whole


def test_a_project_with_nothing_that_old_keeps_its_first_upload_day() -> None:
    """Releases uploaded again later (atomicwrites', all re-uploaded in 2022) would leave the project with no
    file as of an earlier date, and everything that needs it out of the resolution: the first day's files stay."""
    page = {"name": "again", "files": [
        {"filename": f"again-{v}.tar.gz", "url": f"/files/again-{v}.tar.gz", "hashes": {}, "upload-time": t}
        for v, t in (("1.0", "2022-07-09T03:54:05Z"), ("1.4", "2022-07-09T04:09:48Z"),
                     ("1.4.1", "2022-07-08T18:00:00Z"), ("2.0", "2022-07-12T00:00:00Z"))]}
    text = dated_page(page, "http://index/simple/again/", "2019-09-13T00:00:00Z", exempt=False)
    assert [v for v in ("1.0", "1.4", "1.4.1", "2.0") if f">again-{v}.tar.gz<" in text] == ["1.0", "1.4", "1.4.1"]
    older = {"name": "again", "files": [*page["files"], {"filename": "again-0.9.tar.gz", "url": "/f/a-0.9.tar.gz",
                                                         "hashes": {}, "upload-time": "2018-01-01T00:00:00Z"}]}
    text = dated_page(older, "http://index/simple/again/", "2019-09-13T00:00:00Z", exempt=False)
    assert ">again-0.9.tar.gz<" in text and ">again-1.0.tar.gz<" not in text  # a file that old: the date rules


def test_a_page_fetched_once_serves_every_later_date_of_the_process() -> None:
    """The setups of one verify ask the upstream once per project: a second dated index, of another date, serves
    the page after the upstream is gone, with its own date's files; a project never fetched is then a 502."""
    def get(url: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(url, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, ""

    with serve_index(RELEASES) as upstream, serve_dated("2030-01-01T00:00:00Z", upstream=upstream) as later:
        status, page = get(f"{later.url}oldpin/")
    assert status == 200 and "oldpin-1.0" in page and "oldpin-2.0" in page
    with serve_dated(FIX_DATE, upstream=upstream) as dated:
        status, page = get(f"{dated.url}oldpin/")
        assert status == 200 and "oldpin-1.0" in page and "oldpin-2.0" not in page
        assert get(f"{dated.url}newonly/")[0] == 502
        assert dated.view() == {"newonly": "status 502", "oldpin": hashlib.sha256(page.encode()).hexdigest()}


def test_fixes_of_other_dates_whose_index_reads_the_same_share_one_environment(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, index: str) -> None:
    """A dated pip build keeps what it read of its index; a fix of another date whose index answers the same
    shares its entry (pip gets the same pages, so it resolves the same set), and one after a new release of a
    project the setup read builds its own."""
    repo = git_init(tmp_path / "repo")
    base = repo.commit({"app.py": "X = 1\n"}, "Base")
    repo.commit({"app.py": "X = 2\n"}, "Second")
    fixes = [repo.commit({"app.py": "X = 3\n"}, "Fix"), repo.commit({"app.py": "X = 4\n"}, "Next day's fix"),
             repo.commit({"app.py": "X = 5\n"}, "A fix after oldpin 2.0", days=600)]
    cache = EnvCache(tmp_path / "envs")
    results = []
    for number, fix in enumerate(fixes):
        scratch = tmp_path / f"scratch{number}"
        scratch.mkdir()
        case = make_case(base, fix, id=f"pip{number}", setup=Setup(command=f"{PIP} oldpin", python=PYTHON))
        prepared = prepare(case, repo.path, scratch, confinement=Confinement(), env_cache=cache)
        assert prepared.env_dir is not None
        [info] = prepared.env_dir.glob("lib/python*/site-packages/oldpin-*.dist-info")
        results.append((prepared.env_cache, info.name, prepared.resolution))
    dated = f"resolution: as of the fix's date {FIX_DATE} (pip; build tools today's)"
    shared = ("resolution: as of the fix's date 2024-01-05T00:00:00Z (pip; build tools today's); "
              f"environment of the fix of {FIX_DATE}, whose index read the same")
    assert results[0] == ("miss", "oldpin-1.0.dist-info", dated)
    assert results[1] == ("hit", "oldpin-1.0.dist-info", shared)
    assert results[2][:2] == ("miss", "oldpin-2.0.dist-info")
    assert len(list_entries(cache.root)) == 2
    # a warm run takes the kept answer: the next day's fix shares the entry without asking the index anything
    monkeypatch.setenv("PIP_INDEX_URL", "http://127.0.0.1:9/simple/")
    scratch = tmp_path / "again"
    scratch.mkdir()
    case = make_case(base, fixes[1], id="pip1", setup=Setup(command=f"{PIP} oldpin", python=PYTHON))
    again = prepare(case, repo.path, scratch, confinement=Confinement(), env_cache=EnvCache(tmp_path / "envs"))
    assert (again.env_cache, again.resolution) == ("hit", shared)


@pytest.mark.parametrize(("command", "pip"), [
    ("python -m pip install -e .", True), ("pip install -r requirements.txt && pytest", True),
    ("/opt/py27/bin/pip2.7 install six", True), ("uv pip install -e .", False), ("pipx install x", False),
    ("python -m pip install --no-index --find-links wheels .", False),
    ("pip install --no-index . && pip install pytest", True), ("npm ci", False), (None, False)])
def test_a_pip_setup_is_told_from_a_uv_one(command: str | None, pip: bool) -> None:
    assert installs_with_pip(command) is pip


def test_a_build_holding_files_of_the_project_is_not_shared_with_another_base(tmp_path: Path, index: str) -> None:
    """An entry with an egg-info in its overlay serves its own base tree alone: a fix of another base and date
    whose index reads the same builds its own."""
    repo = git_init(tmp_path / "repo")
    command = f"{PIP} oldpin && mkdir -p app.egg-info && echo 'Name: app' > app.egg-info/PKG-INFO"
    first = repo.commit({"app.py": "X = 1\n"}, "Base")
    fix = repo.commit({"app.py": "X = 2\n"}, "Fix")
    later = repo.commit({"app.py": "X = 3\n"}, "Another fix")
    cache = EnvCache(tmp_path / "envs")
    got = []
    for number, (base, fixed) in enumerate([(first, fix), (fix, later)]):
        scratch = tmp_path / f"scratch{number}"
        scratch.mkdir()
        case = make_case(base, fixed, id=f"pip{number}", setup=Setup(command=command, python=PYTHON))
        prepared = prepare(case, repo.path, scratch, confinement=Confinement(), env_cache=cache)
        got.append((prepared.env_cache, "whose index read the same" in prepared.resolution))
    assert got == [("miss", False), ("miss", False)]
    [family] = (cache.root / "resolutions" / "pip-views").iterdir()
    records = [json.loads(path.read_text()) for path in sorted(family.iterdir())]
    assert sorted(bool(r["tree"]) for r in records) == [True, True] and not any("same_as" in r for r in records)
