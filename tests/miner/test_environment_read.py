"""Reading a base's build files: the root entries found in raw trees, and the INI sections parsed alone."""

from __future__ import annotations

import configparser
import os
from pathlib import Path

import pytest

from corpus.languages.python.environment import SETUP_CFG_SECTIONS, TOX_SECTIONS, _load_ini, _sections
from miner.environment.read import BaseReader
from tests.testing.gitrepo import GitRepo, git_init

ROOT: dict[str, str | bytes | None] = {
    "pyproject.toml": "[project]\n",
    "setup.py": "",
    "setup.py.orig": "",  # a longer name that starts with a wanted one
    "tox.ini.bak": "",
    "my setup.py": "",  # a space in the name
    "requirements.txt": "",
    "requirements-dev.txt": "",
    "requirements_docs.txt": "",  # neither test nor dev: not looked at
    "test-requirements.txt": "",
    "Gemfile": "",
    "package.json": "{}",
    "zzz.py": "",
    "requirements/test.txt": "",
    "requirements/docs.txt": "",
    ".github/workflows/ci.yml": "on: push\n",
    ".github/workflows/notes.md": "",
    "setup.cfg/inner": "",  # a directory with a wanted file's name
}


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_the_root_files_looked_at_are_found_in_the_raw_tree(tmp_path: Path, object_format: str) -> None:
    (tmp_path / "repo").mkdir()
    repo = GitRepo(tmp_path / "repo")
    repo.git("init", "-q", f"--object-format={object_format}")
    repo.write(ROOT)
    os.symlink("setup.py", repo.path / "tox.ini")  # a link, not a file
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "files")
    reader = BaseReader(repo.path)
    try:
        key, read = reader.listing(repo.head())
    finally:
        reader.close()
    blob = {path: repo.git("rev-parse", f"HEAD:{path}") for path in ROOT if not path.startswith("setup.cfg/")}
    looked_at = ["pyproject.toml", "setup.py", "requirements.txt", "requirements-dev.txt", "test-requirements.txt",
                 "Gemfile", "package.json", "requirements/test.txt", ".github/workflows/ci.yml"]
    assert key == tuple(sorted((path, blob[path]) for path in looked_at))
    # presence alone counts for these: no setup reads them
    assert sorted(path for path, _ in read) == sorted(set(looked_at) - {"requirements.txt", "Gemfile", "package.json"})


TRICKY_INI = [
    "[tox]\nenvlist = py39\n[flake8]\nmax-line-length = 99\n[testenv]\ndeps =\n    mock\n    pytest\n",
    # an unwanted section whose values look like headers when indented
    "[flake8]\nignore =\n    [testenv]\n    E501\n[testenv]\ndeps = a\n",
    # indented wanted headers: a value's continuation in one, a header in the other (configparser decides)
    "[testenv]\ndeps =\n    a\n    [tox]\n    b\n[tox]\nenvlist = py3\n",
    "[flake8]\n  [testenv]\ndeps = x\n[other]\na = 1\n",
    # DEFAULT's options are every section's
    "[DEFAULT]\nextras = dev\n[other]\nx = 1\n[testenv]\ndeps = b\n",
    # a line starting with "[" that is no header belongs to the section before
    "[testenv]\n[not a header = 1\ndeps = c\n[x]\ny = 2\n",
    # a header followed by a comment, and Windows line ends
    "[testenv] ; the default env\r\ndeps = d\r\n[docs]\r\ndeps = sphinx\r\n",
    # a section given twice (strict=False merges them)
    "[testenv]\ndeps = e\n[other]\na = 1\n[testenv]\nextras = f\n",
    "[options]\npython_requires = >=3.8\n[metadata]\nname = x\n[options.extras_require]\ntest =\n    pytest\n",
    # an indented header before any section is a header
    "  [other]\nx = 1\n[options]\npython_requires = >=3.9\n",
]


def _wanted(parser: configparser.ConfigParser | None, wanted: frozenset[str]) -> object:
    if parser is None:
        return None
    return {name: dict(parser.items(name)) for name in sorted(wanted) if name != "DEFAULT" and parser.has_section(name)}


@pytest.mark.parametrize("text", TRICKY_INI)
@pytest.mark.parametrize("wanted", [TOX_SECTIONS, SETUP_CFG_SECTIONS], ids=["tox.ini", "setup.cfg"])
def test_the_sections_read_parse_as_in_the_whole_file(text: str, wanted: frozenset[str]) -> None:
    whole = configparser.ConfigParser(interpolation=None, strict=False)
    whole.read_string(text)
    assert _wanted(_load_ini(_sections(text, wanted)), wanted) == _wanted(whole, wanted)


def test_an_error_in_a_section_not_read_leaves_the_sections_read() -> None:
    text = "[tox]\nenvlist = py39\n[flake8]\nthis line has no delimiter\n[testenv]\ndeps = mock\n"
    with pytest.raises(configparser.ParsingError):
        configparser.ConfigParser(interpolation=None, strict=False).read_string(text)
    parser = _load_ini(_sections(text, TOX_SECTIONS))
    assert parser is not None and parser.get("testenv", "deps") == "mock"


@pytest.mark.parametrize("text", ["envlist = py38\n[tox]\nenvlist = py39\n",  # no section header first
                                  "[testenv]\ndeps = a\nno delimiter here\n"])
def test_sections_read_that_do_not_parse_count_as_absent(text: str) -> None:
    assert _load_ini(_sections(text, TOX_SECTIONS)) is None


def test_files_read_ahead_are_each_base_s_own_whatever_order_they_are_asked_in(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    bases = []
    for index in range(90):  # a new tox.ini every third commit, a new workflow every fifth
        files: dict[str, str | bytes | None] = {"src.py": f"x = {index}\n"}
        if index % 3 == 0:
            files["tox.ini"] = f"[tox]\nenvlist = py3{index % 13}\n"
        if index % 5 == 0:
            files[".github/workflows/ci.yml"] = f"# {index}\n"
        bases.append(repo.commit(files, f"commit {index}"))
    expected = bases[::-1]  # newest first, as a scan asks
    asked = expected[:40] + expected[70:] + [expected[50]] + [bases[0]]  # some skipped, some out of order
    reader = BaseReader(repo.path)
    try:
        reader.expect(expected)
        for base in asked:
            key, read_files = reader.files(base)
            files_read = read_files()
            assert files_read.key == key
            assert {path: content.decode() for path, content in files_read.contents.items()} == {
                path: repo.git("show", f"{base}:{path}") + "\n" for path in ("tox.ini", ".github/workflows/ci.yml")}
    finally:
        reader.close()
