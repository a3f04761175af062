"""Which interpreters count as installed (corpus.interpreters), on pyenv roots and PATH directories made here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from corpus.errors import WorkspaceError
from corpus.interpreters import find_python, installed_pythons
from tests.testing.envrepos import fake_pythons


def test_one_interpreter_per_minor_version_newest_first(tmp_path: Path) -> None:
    root = tmp_path / "pyenv"
    fake_pythons(root, "3.9.1", "3.9.18", "3.12.1", "2.7.18")
    (root / "versions" / "pypy3.10-7.3").mkdir(parents=True)  # not CPython: not counted
    (root / "versions" / "3.13.0").mkdir()  # no interpreter inside: not counted
    path_dir = tmp_path / "bin"
    path_dir.mkdir()
    for name in ("python3.11", "python3.12", "python3-config", "python3"):
        (path_dir / name).symlink_to(sys.executable)
    (path_dir / "python3.10").write_text("not executable")
    found = installed_pythons(roots=[root, tmp_path / "missing"], path=str(path_dir))
    assert [version for version, _ in found] == [(3, 12), (3, 11), (3, 9), (2, 7)]
    assert dict(found)[(3, 12)] == root / "versions" / "3.12.1" / "bin" / "python3.12"  # pyenv before PATH
    assert dict(found)[(3, 11)] == path_dir / "python3.11"
    assert dict(found)[(3, 9)] == root / "versions" / "3.9.18" / "bin" / "python3.9"


def test_shims_on_path_are_not_interpreters(tmp_path: Path) -> None:
    shims = tmp_path / "pyenv" / "shims"
    shims.mkdir(parents=True)
    (shims / "python3.11").symlink_to(sys.executable)
    assert installed_pythons(roots=[], path=str(shims)) == ()


def test_find_python_prefers_pyenv_root_and_names_a_missing_version(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "pyenv"
    fake_pythons(root, "3.4.10")
    monkeypatch.setenv("PYENV_ROOT", str(root))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert find_python("3.4") == root / "versions" / "3.4.10" / "bin" / "python3.4"
    with pytest.raises(WorkspaceError, match=r"setup.python 'three': expected a version such as 3.8"):
        find_python("three")
    with pytest.raises(WorkspaceError, match=r"setup.python 1.2: no python1.2 interpreter found"):
        find_python("1.2")
