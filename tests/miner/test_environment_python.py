"""A Python candidate's interpreter and install command, inferred from its base commit's declarations."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.interpreters import Installed
from tests.testing.envrepos import PY_FIXED, PY_TEST_FIXED, candidate_of, fake_pythons, fix_on
from tests.testing.gitrepo import git_init
from tests.testing.minerrepos import SRC, TEST

SETUP_PY = """from setuptools import setup

setup(
    name="app",
    python_requires=">=3.9",
    extras_require={{"tests": ["pytest>=7", "mock"]}},
    classifiers=[
{classifiers}
    ],
)
"""


@pytest.fixture
def pythons(tmp_path: Path) -> Installed:
    """3.9 to 3.13 'installed', and nothing else of the machine's."""
    return fake_pythons(tmp_path / "pyenv", "3.9.18", "3.10.13", "3.11.7", "3.12.1", "3.13.0")


def setup_of(tmp_path: Path, files: dict[str, str | None], pythons: Installed) -> tuple[str | None, str | None,
                                                                                       tuple[str, ...]]:
    repo, fix = fix_on(tmp_path / "repo", files)
    candidate = candidate_of(repo, fix, pythons)
    assert candidate.case.mined is not None
    return candidate.case.setup.python, candidate.case.setup.command, candidate.case.mined.setup_origin


def pyproject(requires: str | None = None, extras: str = "", groups: str = "") -> str:
    text = '[build-system]\nrequires = ["setuptools"]\n\n[project]\nname = "app"\nversion = "1"\n'
    if requires is not None:
        text += f'requires-python = "{requires}"\n'
    if extras:
        text += f"\n[project.optional-dependencies]\n{extras}\n"
    if groups:
        text += f"\n[dependency-groups]\n{groups}\n"
    return text


def test_the_candidate_of_an_old_fix_gets_its_base_s_dependencies_not_the_tip_s(tmp_path: Path,
                                                                                  pythons: Installed) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"pyproject.toml": pyproject(">=3.9,<3.11", 'test = ["pytest", "mock"]'),
                 "app/__init__.py": SRC, "tests/test_app.py": TEST}, "Start")
    old_fix = repo.commit({"app/__init__.py": PY_FIXED, "tests/test_app.py": PY_TEST_FIXED}, "Fix f")
    repo.commit({"pyproject.toml": pyproject(">=3.12", groups='testing = ["pytest>=8", "hypothesis"]')},
                "Move the test dependencies to a group")
    repo.commit({"app/mod.py": SRC, "tests/test_mod.py": TEST.replace("from app", "from app.mod")}, "Add mod")
    new_fix = repo.commit({"app/mod.py": PY_FIXED, "tests/test_mod.py": PY_TEST_FIXED.replace("from app",
                                                                                               "from app.mod")},
                          "Fix f in mod")
    old = candidate_of(repo, old_fix, pythons)
    assert (old.case.setup.python, old.case.setup.command) == ("3.10", "uv pip install -e '.[test]'")
    assert old.case.mined is not None and old.case.mined.setup_origin == (
        'python 3.10: newest installed within requires-python ">=3.9,<3.11" (pyproject.toml)',
        'command: extra "test" of pyproject.toml')
    new = candidate_of(repo, new_fix, pythons)
    assert (new.case.setup.python, new.case.setup.command) == ("3.13", "uv pip install -e . --group testing")


def test_classifiers_keep_the_newest_installed_python_out(tmp_path: Path, pythons: Installed) -> None:
    classifiers = "\n".join(f'        "Programming Language :: Python :: 3.{minor}",' for minor in (9, 10, 11))
    python, command, origin = setup_of(tmp_path, {"setup.py": SETUP_PY.format(classifiers=classifiers)}, pythons)
    assert python == "3.11"
    assert command == "uv pip install -e '.[tests]'"  # the extra's literal list names pytest
    assert origin == (('python 3.11: newest installed within requires-python ">=3.9" (setup.py) and 3.9 to 3.11, '
                      'the versions named (classifiers in setup.py)'),
                      'command: extra "tests" of setup.py')


def test_an_extra_set_on_the_extras_mapping_counts(tmp_path: Path, pythons: Installed) -> None:
    setup_py = ('from setuptools import setup\n\nEXTRAS_REQUIRE = {"docs": ["sphinx"], "tests_no_zope": ["pytest"]}\n'
                'EXTRAS_REQUIRE["tests"] = EXTRAS_REQUIRE["tests_no_zope"] + ["zope.interface"]\n'
                'if EXTRAS_REQUIRE["dev"] == []:\n    pass\n'
                'setup(name="app", extras_require=EXTRAS_REQUIRE)\n')
    _, command, origin = setup_of(tmp_path, {"setup.py": setup_py}, pythons)
    assert command == "uv pip install -e '.[tests]' pytest"
    assert origin[1] == 'command: extra "tests" of setup.py, plus pytest'


def test_a_test_command_class_is_not_an_extra(tmp_path: Path, pythons: Installed) -> None:
    setup_py = ('from setuptools import setup\n\nsetup(\n    name="app",\n    cmdclass={"test": PyTest},\n'
                '    extras_require={"security": [], "socks": ["PySocks"]},\n)\n')
    tox = "[tox]\nenvlist = py39\n\n[testenv]\ndeps = -rrequirements-dev.txt\nextras =\n    security\n    socks\n"
    files = {"setup.py": setup_py, "tox.ini": tox, "requirements-dev.txt": "pytest>=3\ntrustme\n"}
    _, command, origin = setup_of(tmp_path, files, pythons)
    assert command == "uv pip install -e '.[security,socks]' -r requirements-dev.txt"
    assert origin[1] == "command: deps and extras of [testenv] in tox.ini"


def test_the_extras_mapping_of_a_setup_keyword_dict_counts(tmp_path: Path, pythons: Installed) -> None:
    setup_py = ('from setuptools import setup\n\nkwargs = {"cmdclass": {"dev": object},\n'
                '          "extras_require": {"testing": ["pytest"]}}\nsetup(name="app", **kwargs)\n')
    _, command, _ = setup_of(tmp_path, {"setup.py": setup_py}, pythons)
    assert command == "uv pip install -e '.[testing]'"


def test_a_python_2_setup_py_is_still_read_for_its_extras(tmp_path: Path, pythons: Installed) -> None:
    setup_py = ('from setuptools import setup\nprint "building"\n'
                'setup(name="app", extras_require={"tests": ["nose"]})\n')
    _, command, _ = setup_of(tmp_path, {"setup.py": setup_py}, pythons)
    assert command == "uv pip install -e '.[tests]' pytest"


def test_an_upper_bound_of_requires_python_is_kept(tmp_path: Path, pythons: Installed) -> None:
    python, _, origin = setup_of(tmp_path, {"pyproject.toml": pyproject(">=3.8, <3.12")}, pythons)
    assert python == "3.11"
    assert origin[0] == 'python 3.11: newest installed within requires-python ">=3.8, <3.12" (pyproject.toml)'


def test_setup_cfg_declares_the_range_and_the_extra(tmp_path: Path, pythons: Installed) -> None:
    cfg = "[metadata]\nname = app\n\n[options]\npython_requires = >=3.9,<3.10\n\n[options.extras_require]\n" \
          "testing =\n    pytest\n    freezegun\n"
    python, command, origin = setup_of(tmp_path, {"setup.cfg": cfg, "setup.py": "from setuptools import setup\n"
                                                                                 "setup()\n"}, pythons)
    assert (python, command) == ("3.9", "uv pip install -e '.[testing]'")
    assert origin == ('python 3.9: newest installed within requires-python ">=3.9,<3.10" (setup.cfg)',
                      'command: extra "testing" of setup.cfg')


def test_the_tox_envlist_bounds_the_version_and_its_deps_are_installed(tmp_path: Path,
                                                                        pythons: Installed) -> None:
    tox = ("[tox]\nenvlist = py3{9,10}-{a,b}, lint\n\n[testenv]\ndeps =\n    -r{toxinidir}/requirements-test.txt\n"
           "    py39: importlib-metadata\n    {env:EXTRA:}\n    coverage\nextras = socks\ncommands = pytest\n")
    files = {"setup.py": "from setuptools import setup\nsetup()\n", "tox.ini": tox,
             "requirements-test.txt": "pytest>=7\nresponses\n"}
    python, command, origin = setup_of(tmp_path, files, pythons)
    assert python == "3.10"
    assert command == "uv pip install -e '.[socks]' -r requirements-test.txt coverage"
    assert origin == ("python 3.10: newest installed within 3.9 to 3.10, the versions named (tox.ini envlist)",
                      "command: deps and extras of [testenv] in tox.ini")


def test_the_ci_matrix_bounds_the_version(tmp_path: Path, pythons: Installed) -> None:
    workflow = ("name: tests\non: [push]\njobs:\n  test:\n    strategy:\n      matrix:\n"
                "        python-version: ['3.9', \"3.10\", pypy-3.9]\n        include:\n"
                "          - python-version: '3.11'\n    steps:\n      - uses: actions/setup-python@v5\n"
                "        with:\n          python-version: ${{ matrix.python-version }}\n")
    files = {"pyproject.toml": pyproject(">=3.9"), ".github/workflows/tests.yml": workflow}
    python, command, origin = setup_of(tmp_path, files, pythons)
    assert python == "3.11"
    assert command == "uv pip install -e . pytest"
    assert origin == (('python 3.11: newest installed within requires-python ">=3.9" (pyproject.toml) and 3.9 to '
                      '3.11, the versions named (CI matrix in .github/workflows/tests.yml)'),
                      "command: the project alone (it declares no test dependencies), plus pytest")


def test_a_dependency_group_is_installed_with_uv_or_listed_for_pip(tmp_path: Path) -> None:
    groups = 'dev = ["ruff"]\ntest = ["pytest>=6", "attrs"]'
    files = {"pyproject.toml": pyproject(">=3.6", groups=groups)}
    modern = fake_pythons(tmp_path / "modern", "3.12.1")
    python, command, origin = setup_of(tmp_path / "a", files, modern)
    assert (python, command) == ("3.12", "uv pip install -e . --group test")
    assert origin[1] == 'command: dependency group "test" of pyproject.toml'
    old = fake_pythons(tmp_path / "old", "3.7.16")
    python, command, origin = setup_of(tmp_path / "b", files, old)
    assert (python, command) == ("3.7", "python -m pip install -e . 'pytest>=6' attrs")
    assert origin[1] == ('command: the requirements of dependency group "test" of pyproject.toml (pip has no '
                         '--group); pip, as uv does not install into Python 3.7')


def test_an_extra_named_test_wins_over_a_dev_group(tmp_path: Path, pythons: Installed) -> None:
    files = {"pyproject.toml": pyproject(extras='test = ["pytest"]', groups='dev = ["pytest", "black"]')}
    _, command, _ = setup_of(tmp_path, files, pythons)
    assert command == "uv pip install -e '.[test]'"


def test_a_requirements_only_project(tmp_path: Path, pythons: Installed) -> None:
    files = {"requirements.txt": "requests\n", "requirements-test.txt": "responses\n",
             "requirements-docs.txt": "sphinx\n"}
    python, command, origin = setup_of(tmp_path, files, pythons)
    assert python == "3.12"  # the newest installed released before the fix (2024-01-03; 3.13 came in October)
    assert command == "uv pip install -r requirements.txt -r requirements-test.txt pytest"
    assert origin == ("python 3.12: from the commit date (2024-01-03)",
                      ("command: requirements.txt and requirements-test.txt (no pyproject.toml or setup.py), "
                      "plus pytest"))


def test_a_requirements_directory_is_read(tmp_path: Path, pythons: Installed) -> None:
    files = {"setup.py": "from setuptools import setup\nsetup()\n", "requirements/tests.txt": "pytest\nmock\n",
             "requirements/base.txt": "six\n"}
    _, command, _ = setup_of(tmp_path, files, pythons)
    assert command == "uv pip install -e . -r requirements/tests.txt"


def test_a_declared_range_with_nothing_installed_names_its_newest_version(tmp_path: Path,
                                                                            pythons: Installed) -> None:
    tox = "[tox]\nenvlist = py27, py35\n"
    python, command, origin = setup_of(tmp_path, {"setup.py": "from setuptools import setup\nsetup()\n",
                                                  "tox.ini": tox}, pythons)
    assert python == "3.5"
    assert origin[0] == "python 3.5: newest declared (2.7 to 3.5, the versions named (tox.ini envlist)); " \
                        "not installed"
    assert command == "python -m pip install -e . pytest"


def test_a_lower_bound_above_every_installed_python_is_chosen(tmp_path: Path, pythons: Installed) -> None:
    python, _, origin = setup_of(tmp_path, {"pyproject.toml": pyproject(">=3.15")}, pythons)
    assert python == "3.15"
    assert origin[0] == 'python 3.15: lowest allowed by requires-python ">=3.15" (pyproject.toml); none installed fits'


def test_python_2_only_projects_get_python_2_and_pip(tmp_path: Path) -> None:
    installed = fake_pythons(tmp_path / "pyenv", "2.7.18", "3.6.15", "3.12.1")
    setup_py = SETUP_PY.format(classifiers='        "Programming Language :: Python :: 2.6",\n'
                                           '        "Programming Language :: Python :: 2.7",')
    python, command, _ = setup_of(tmp_path, {"setup.py": setup_py.replace('python_requires=">=3.9",', "")},
                                  installed)
    assert (python, command) == ("2.7", "python -m pip install -e '.[tests]'")


def test_nothing_declared_and_nothing_installed(tmp_path: Path) -> None:
    python, command, origin = setup_of(tmp_path, {}, ())
    assert (python, command) == (None, "uv pip install pytest")
    assert origin == ("python: none; the project declares no version and no interpreter is installed",
                      "command: the test runner alone (no pyproject.toml, setup.py or requirements file)")


def test_a_python_case_gets_python_setup_in_a_repository_with_a_package_json(tmp_path: Path,
                                                                              pythons: Installed) -> None:
    files = {"package.json": '{"name": "web"}\n', "package-lock.json": "{}\n", "pyproject.toml": pyproject()}
    python, command, origin = setup_of(tmp_path, files, pythons)
    assert (python, command) == ("3.12", "uv pip install -e . pytest")
    assert not any("npm" in line for line in origin)


def test_unreadable_declarations_are_ignored(tmp_path: Path, pythons: Installed) -> None:
    files = {"pyproject.toml": "[project\nrequires-python = '>=3.9'\n", "tox.ini": "envlist = [py38\n",
             "setup.cfg": "not = a section\n", "setup.py": "setup(python_requires='>=nonsense')\n"}
    python, command, origin = setup_of(tmp_path, files, pythons)
    assert (python, command) == ("3.12", "uv pip install -e . pytest")
    assert origin[0] == "python 3.12: from the commit date (2024-01-03)"
