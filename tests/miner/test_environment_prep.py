"""The steps only a project's CI runs to prepare files for its tests (compiled catalogues, generated code) join
the inferred setup after the install: from GitHub workflows, tox's commands_pre and a Makefile's test target."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from corpus.interpreters import Installed
from tests.testing.envrepos import candidate_of, fake_pythons, fix_on
from tests.testing.gitrepo import GitRepo

PYPROJECT = '[project]\nname = "app"\nrequires-python = ">=3.9"\n'
INSTALL = "uv pip install -e . pytest"
PO = 'msgid ""\nmsgstr "Content-Type: text/plain; charset=UTF-8\\n"\n\nmsgid "Hello"\nmsgstr "Hallo"\n'
CATALOG = "app/locale/de/LC_MESSAGES/app"
WORKFLOW = f"""name: tests
on: [push, pull_request]
jobs:
  docs:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Generate the API pages
        run: python docs/generate.py
      - run: sphinx-build docs build
  tests:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python-version: ["3.9", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{{{ matrix.python-version }}}}
      - name: Install gettext
        run: sudo apt-get install -y gettext
      - name: Install dependencies
        run: python -m pip install tox
      - name: Compile catalogs
        run: msgfmt -o {CATALOG}.mo {CATALOG}.po
      - name: Generate the parser tables
        run: |
          cd app
          python gen_tables.py --out tables.py
      - name: Generate only on Windows
        if: runner.os == 'Windows'
        run: python app/gen_tables.py
      - name: Generate with a secret
        env:
          TOKEN: ${{{{ secrets.TOKEN }}}}
        run: python app/gen_tables.py
      - name: Compile the version file
        run: echo "v=${{{{ github.sha }}}}" > app/version.txt
      - name: Run tests
        run: tox -e py
      - name: Compile a coverage badge
        run: python tools/compile_badge.py
      - name: Publish compiled docs
        run: python tools/compile_docs.py && twine upload dist/*
"""
TOX = """[tox]
envlist = py312

[testenv]
deps = pytest
commands_pre =
    {envpython} -m pip install -e .
    {envpython} {toxinidir}/tools/compile_catalogs.py
commands = pytest {posargs}
"""
MAKEFILE = """.PHONY: test compile-catalogs venv lint protos

venv:
\tpython -m venv .venv

compile-catalogs:
\tmsgfmt -o app/locale/de/LC_MESSAGES/app.mo app/locale/de/LC_MESSAGES/app.po

# a prerequisite that installs first is not taken, whatever its name
protos: venv
\tprotoc --python_out=app app/api.proto

lint:
\truff check .

test: venv compile-catalogs lint protos
\tpython -m pytest
"""


@pytest.fixture
def pythons(tmp_path: Path) -> Installed:
    return fake_pythons(tmp_path / "pyenv", "3.12.1")


def setup_of(tmp_path: Path, files: dict[str, str | None], pythons: Installed) -> tuple[GitRepo, str | None,
                                                                                       tuple[str, ...]]:
    repo, fix = fix_on(tmp_path / "repo", {"pyproject.toml": PYPROJECT, **files})
    candidate = candidate_of(repo, fix, pythons)
    assert candidate.case.mined is not None
    return repo, candidate.case.setup.command, candidate.case.mined.setup_origin


def test_a_workflow_s_steps_that_prepare_files_before_the_tests_are_taken(tmp_path: Path, pythons: Installed) -> None:
    _, command, origin = setup_of(tmp_path, {".github/workflows/tests.yml": WORKFLOW}, pythons)
    assert command == (f"{INSTALL} && msgfmt -o {CATALOG}.mo {CATALOG}.po"
                       " && (cd app && python gen_tables.py --out tables.py)")
    assert origin[1:] == ("command: the project alone (it declares no test dependencies), plus pytest",
                          "setup: .github/workflows/tests.yml step 'Compile catalogs'",
                          "setup: .github/workflows/tests.yml step 'Generate the parser tables'")


def test_the_prepared_files_exist_once_the_steps_have_run_on_the_base(tmp_path: Path, pythons: Installed) -> None:
    files = {".github/workflows/tests.yml": WORKFLOW, f"{CATALOG}.po": PO,
             "app/gen_tables.py": "import sys\nopen(sys.argv[2], 'w').write('TABLES = {}\\n')\n"}
    repo, command, _ = setup_of(tmp_path, files, pythons)
    assert command is not None and command.startswith(f"{INSTALL} && ")
    base = tmp_path / "base"
    base.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD~1"], cwd=repo.path, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
    subprocess.run(["bash", "-ec", command.removeprefix(f"{INSTALL} && ")], cwd=base, check=True)
    assert (base / f"{CATALOG}.mo").read_bytes().startswith(b"\xde\x12\x04\x95")  # a GNU catalogue
    assert (base / "app" / "tables.py").read_text() == "TABLES = {}\n"


def test_a_workflow_without_a_test_step_adds_nothing(tmp_path: Path, pythons: Installed) -> None:
    workflow = WORKFLOW.replace("tox -e py", "make ci")
    _, command, origin = setup_of(tmp_path, {".github/workflows/tests.yml": workflow}, pythons)
    assert command == INSTALL
    assert not any(line.startswith("setup:") for line in origin)


@pytest.mark.parametrize("test_step", ["python -m pytest -q tests", "uv run --frozen pytest", "tox -p auto",
                                       "COVERAGE=1 coverage run -m pytest"])
def test_the_test_step_is_found_however_pytest_or_tox_is_started(tmp_path: Path, pythons: Installed,
                                                                  test_step: str) -> None:
    workflow = WORKFLOW.replace("tox -e py", test_step)
    _, command, _ = setup_of(tmp_path, {".github/workflows/tests.yml": workflow}, pythons)
    assert command is not None and "msgfmt" in command


def test_a_job_s_working_directory_is_kept_inside_its_step(tmp_path: Path, pythons: Installed) -> None:
    workflow = WORKFLOW.replace("  tests:\n    runs-on: ubuntu-latest\n",
                                "  tests:\n    runs-on: ubuntu-latest\n    defaults:\n      run:\n"
                                "        working-directory: src\n")
    _, command, _ = setup_of(tmp_path, {".github/workflows/tests.yml": workflow}, pythons)
    assert command == (f"{INSTALL} && (cd src && msgfmt -o {CATALOG}.mo {CATALOG}.po)"
                       " && (cd src && cd app && python gen_tables.py --out tables.py)")


def test_tox_commands_pre_that_prepare_files_are_taken(tmp_path: Path, pythons: Installed) -> None:
    _, command, origin = setup_of(tmp_path, {"tox.ini": TOX}, pythons)
    assert command == "uv pip install -e . pytest && python tools/compile_catalogs.py"
    assert origin[-1] == "setup: tox.ini [testenv] commands_pre"


def test_a_makefile_s_test_prerequisites_that_prepare_files_are_taken(tmp_path: Path, pythons: Installed) -> None:
    _, command, origin = setup_of(tmp_path, {"Makefile": MAKEFILE}, pythons)
    assert command == f"{INSTALL} && make compile-catalogs"
    assert origin[-1] == "setup: Makefile target 'compile-catalogs', a prerequisite of 'test'"


def test_a_workflow_s_make_step_runs_only_what_the_makefile_lets_prepare(tmp_path: Path, pythons: Installed) -> None:
    workflow = WORKFLOW.replace(f"msgfmt -o {CATALOG}.mo {CATALOG}.po", "make protos")
    _, command, _ = setup_of(tmp_path, {".github/workflows/tests.yml": workflow, "Makefile": MAKEFILE}, pythons)
    assert command is not None and "make protos" not in command  # protos installs a venv first
    kept = WORKFLOW.replace(f"msgfmt -o {CATALOG}.mo {CATALOG}.po", "make compile-catalogs")
    _, command, origin = setup_of(tmp_path / "kept", {".github/workflows/tests.yml": kept, "Makefile": MAKEFILE},
                                  pythons)
    assert command == f"{INSTALL} && make compile-catalogs && (cd app && python gen_tables.py --out tables.py)"
    assert origin[2] == "setup: .github/workflows/tests.yml step 'Compile catalogs'"  # once, from the workflow
    assert len(origin) == 4


def test_a_default_command_drops_the_steps_too(tmp_path: Path, pythons: Installed) -> None:
    repo, fix = fix_on(tmp_path / "repo", {"pyproject.toml": PYPROJECT, "tox.ini": TOX})
    corpus = tmp_path / "evals"
    corpus.mkdir()
    (corpus / "corpus.yaml").write_text("name: app\ndefaults:\n  setup:\n    command: make deps\n")
    candidate = candidate_of(repo, fix, pythons, corpus)
    assert candidate.case.setup.command == "make deps"
    assert candidate.case.mined is not None
    assert not any(line.startswith("setup:") for line in candidate.case.mined.setup_origin)
