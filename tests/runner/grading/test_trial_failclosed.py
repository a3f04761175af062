"""Fail-closed restoration of test configuration, and tree snapshots that see every change."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

from runner.grading.failclosed import FixConfig, is_test_config, read_fix_config, restore_for_grading
from runner.workspace.snapshots import Snapshots
from runner.workspace.workspace import build_template, template_tree, workspace_from_template
from tests.testing.casefactory import build_repo
from tests.testing.gitrepo import git_init

PYPROJECT_PYTEST = b'[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n'


def restore(workspace: Path, fix: dict[str, bytes], changed: Iterable[str], setup: dict[str, bytes],
            grader: Iterable[str] = (), installed: frozenset[str] = frozenset()) -> set[tuple[str, str, str]]:
    """Restore a workspace holding the patched files; setup holds every file as it was before the patch."""
    actions = restore_for_grading(workspace, changed, setup.get, FixConfig(tuple(sorted(fix.items()))),
                                  [p for p in setup if is_test_config(p)], grader, (),
                                  frozenset(p.split("/")[0] for p in setup), lambda names: set(names) & installed)
    return {(a.path, a.action, a.cause) for a in actions}


def write(root: Path, files: dict[str, bytes]) -> None:
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(content)


def test_config_is_set_to_the_fix_version_and_additions_removed(tmp_path: Path) -> None:
    setup = {"tests/conftest.py": b"base\n", "pytest.ini": b"[pytest]\n", "setup.cfg": b"[metadata]\n"}
    fix = {"tests/conftest.py": b"base\n", "pytest.ini": b"[pytest]\n", "web/jest.config.js": b"fix\n",
           "setup.cfg": b"[metadata]\n"}
    write(tmp_path, {**setup, "tests/conftest.py": b"skip everything\n", "sub/conftest.py": b"new\n",
                     "vitest.config.ts": b"new\n", "node_modules/pkg/jest.config.js": b"vendored\n",
                     "setup.cfg": b"[metadata]\nname = y\n", "pytest.py": b"fake\n", "docs/pytest.py": b"ok\n"})
    changed = ["tests/conftest.py", "sub/conftest.py", "vitest.config.ts", "setup.cfg", "pytest.py",
               "docs/pytest.py"]
    done = restore(tmp_path, fix, changed, setup)
    assert done == {("tests/conftest.py", "written", "edited"), ("sub/conftest.py", "removed", "added"),
                    ("vitest.config.ts", "removed", "added"), ("web/jest.config.js", "written", "fix"),
                    ("pytest.py", "removed", "added")}
    assert (tmp_path / "tests/conftest.py").read_bytes() == b"base\n"
    assert (tmp_path / "node_modules/pkg/jest.config.js").exists()  # packages' own configs are left alone
    assert (tmp_path / "setup.cfg").read_bytes() == b"[metadata]\nname = y\n"  # a build file without pytest
    assert (tmp_path / "docs/pytest.py").exists()  # only the workspace root can shadow the test runner


def test_pyproject_is_restored_only_when_changed_and_configuring_pytest(tmp_path: Path) -> None:
    write(tmp_path, {"pyproject.toml": PYPROJECT_PYTEST.replace(b"-q", b"-k nothing")})
    setup = {"pyproject.toml": PYPROJECT_PYTEST}
    assert restore(tmp_path, {}, [], setup) == set()  # untouched: left as the base has it
    assert restore(tmp_path, {}, ["pyproject.toml"], setup) == {("pyproject.toml", "written", "edited")}
    assert (tmp_path / "pyproject.toml").read_bytes() == PYPROJECT_PYTEST  # no fix version: back to base
    fix_version = PYPROJECT_PYTEST + b"# fix\n"
    write(tmp_path, {"pyproject.toml": b'[project]\nname = "x"\n'})  # the agent dropped the pytest section
    assert restore(tmp_path, {"pyproject.toml": fix_version}, ["pyproject.toml"], setup) == {
        ("pyproject.toml", "written", "edited")}
    assert (tmp_path / "pyproject.toml").read_bytes() == fix_version


def test_tests_metadata_and_bytecode_the_patch_touched_are_set_back(tmp_path: Path) -> None:
    setup = {"tests/test_a.py": b"def test_a(): assert False\n", "app.py": b"x = 1\n"}
    write(tmp_path, {"tests/test_a.py": b"def test_a(): pass\n", "tests/test_new.py": b"def test_b(): pass\n",
                     "app.py": b"x = 2\n", "plug-1.0.dist-info/entry_points.txt": b"[pytest11]\np = plug\n",
                     "__pycache__/app.cpython-311.pyc": b"forged", "lib.pyc": b"forged"})
    changed = ["tests/test_a.py", "tests/test_new.py", "app.py", "plug-1.0.dist-info/entry_points.txt",
               "__pycache__/app.cpython-311.pyc", "lib.pyc"]
    assert restore(tmp_path, {}, changed, setup) == {
        ("tests/test_a.py", "written", "edited"), ("tests/test_new.py", "removed", "added"),
        ("plug-1.0.dist-info/entry_points.txt", "removed", "added"),
        ("__pycache__/app.cpython-311.pyc", "removed", "added"), ("lib.pyc", "removed", "added")}
    assert (tmp_path / "tests/test_a.py").read_bytes() == setup["tests/test_a.py"]
    assert (tmp_path / "app.py").read_bytes() == b"x = 2\n"  # source is the candidate's


def test_a_new_root_module_is_removed_only_when_it_shadows_an_installed_one(tmp_path: Path) -> None:
    setup = {"shop/__init__.py": b"", "shop/cart.py": b"x = 1\n"}
    write(tmp_path, {**setup, "shop/helpers.py": b"y = 2\n", "requests/__init__.py": b"forged\n",
                     "json.py": b"forged\n", "tools.py": b"mine\n", "sitecustomize.py": b"import os\n"})
    changed = ["shop/helpers.py", "requests/__init__.py", "json.py", "tools.py", "sitecustomize.py"]
    done = restore(tmp_path, {}, changed, setup, installed=frozenset({"requests", "json", "shop"}))
    assert done == {("requests", "removed", "added"), ("json.py", "removed", "added"),
                    ("sitecustomize.py", "removed", "added")}
    assert (tmp_path / "shop/helpers.py").exists()  # a new file in the project's own package stays
    assert (tmp_path / "tools.py").exists()  # a new root module nobody else provides stays


def test_grader_paths_are_left_to_the_grader(tmp_path: Path) -> None:
    write(tmp_path, {"tests/conftest.py": b"agent\n"})
    assert restore(tmp_path, {"tests/conftest.py": b"fix\n"}, ["tests/conftest.py"], {},
                   grader=["tests/conftest.py"]) == set()


def test_fix_config_is_read_from_the_fix_commit(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    repo.commit({"a.py": "x\n", "tests/conftest.py": "one\n"}, "base")
    fix = repo.commit({"tests/conftest.py": "two\n", "pytest.ini": "[pytest]\n", "pyproject.toml": "[x]\n",
                       "web/jest.config.mjs": "export default {}\n"}, "fix")
    config = read_fix_config(repo.path, fix)
    assert dict(config.files) == {"tests/conftest.py": b"two\n", "pytest.ini": b"[pytest]\n",
                                  "pyproject.toml": b"[x]\n", "web/jest.config.mjs": b"export default {}\n"}


def test_snapshots_see_same_size_edits_made_right_after_setup(tmp_path: Path) -> None:
    repo, base, _ = build_repo(tmp_path / "repo")
    template = build_template(repo.path, base, tmp_path / "template")
    for attempt in range(5):
        workspace = workspace_from_template(template, tmp_path / f"ws{attempt}")
        snapshots = Snapshots(template, workspace, tmp_path / f"private{attempt}")
        snapshots.take("setup", stat_cache=workspace / ".git" / "index")
        setup_tree = snapshots.tree("setup")
        (workspace / "calc.py").write_text((workspace / "calc.py").read_text().replace("-", "+"))
        snapshots.take("final", stat_cache=snapshots.index("setup"))
        patch, changed = snapshots.diff(setup_tree, "final")
        assert changed == ["calc.py"] and b"+    return a + b" in patch


def test_copies_of_a_pristine_workspace_are_clean_and_see_every_edit(tmp_path: Path) -> None:
    from corpus.gitutil import run_git
    from runner.workspace.workspace import copy_workspace, pristine_workspace

    repo, base, _ = build_repo(tmp_path / "repo")
    template = build_template(repo.path, base, tmp_path / "template")
    pristine = pristine_workspace(template, tmp_path / "pristine")
    for attempt in range(3):
        workspace = copy_workspace(pristine, tmp_path / f"ws{attempt}")
        assert run_git(["status", "--porcelain"], workspace).stdout == b""
        snapshots = Snapshots(template, workspace, tmp_path / f"private{attempt}")
        shutil.copy2(workspace / ".git" / "index", snapshots.index("setup"))
        (workspace / "calc.py").write_text((workspace / "calc.py").read_text().replace("-", "+"))  # same size
        snapshots.take("final", stat_cache=snapshots.index("setup"))
        patch, changed = snapshots.diff(template_tree(template)[0], "final")
        assert changed == ["calc.py"] and b"+    return a + b" in patch
    assert (pristine / "calc.py").read_text().count("-") >= 1  # the copies never touch the pristine tree


def test_template_workspace_matches_the_foundation_workspace(tmp_path: Path) -> None:
    from runner.workspace.workspace import assert_isolated, create_workspace

    repo, base, _ = build_repo(tmp_path / "repo")
    plain = create_workspace(repo.path, base, tmp_path / "plain")
    template = build_template(repo.path, base, tmp_path / "template")
    copied = workspace_from_template(template, tmp_path / "copy")
    assert assert_isolated(plain) == assert_isolated(copied)
    tree, paths = template_tree(template)
    assert paths == {"README.md", "calc.py", "test_calc.py"} and tree == repo.git("rev-parse", f"{base}^{{tree}}")
    assert not (template / "objects" / "info" / "alternates").exists()
    assert sorted(p.name for p in copied.iterdir()) == sorted(p.name for p in plain.iterdir())


def test_snapshot_names_odd_paths_exactly(tmp_path: Path) -> None:
    repo, base, _ = build_repo(tmp_path / "repo")
    template = build_template(repo.path, base, tmp_path / "template")
    workspace = workspace_from_template(template, tmp_path / "ws")
    snapshots = Snapshots(template, workspace, tmp_path / "private")
    shutil.copy2(workspace / ".git" / "index", snapshots.index("setup"))
    odd = ["tab\there.txt", "new\nline.txt", "ünï cödé.txt", "-dash.txt"]
    for name in odd:
        (workspace / name).write_text("x\n")
    (workspace / "README.md").unlink()
    snapshots.take("final", stat_cache=snapshots.index("setup"))
    patch, changed = snapshots.diff(template_tree(template)[0], "final")
    assert sorted(changed) == sorted([*odd, "README.md"]) and patch.startswith(b"diff --git")
