"""What counts as files of the project in a cache entry: they pin the entry to its base tree."""

from __future__ import annotations

import json
from pathlib import Path

from runner.envs.project import env_holds_project, overlay_holds_project


def test_build_output_metadata_and_compiled_files_in_the_overlay_are_the_projects() -> None:
    assert overlay_holds_project(["gen", "gen/out.txt"]) is None
    assert overlay_holds_project(["node_modules/x/build/a.js", "node_modules/x/y.so"]) is None
    assert overlay_holds_project(["gen", "build", "build/lib/pkg/__init__.py"]) == "build"
    assert overlay_holds_project(["src/pkg.egg-info/PKG-INFO"]) == "src/pkg.egg-info/PKG-INFO"
    assert overlay_holds_project(["pkg-1.0.dist-info"]) == "pkg-1.0.dist-info"
    assert overlay_holds_project(["pkg/_speed.cpython-311-x86_64-linux-gnu.so"]) is not None


def test_an_installed_copy_of_the_projects_package_is_the_projects_an_editable_install_is_not(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "src" / "tinypkg").mkdir(parents=True)
    (workspace / "src" / "tinypkg" / "__init__.py").write_text("")
    (workspace / "helper.py").write_text("")
    (workspace / "setup.py").write_text("")
    site = tmp_path / "env" / "lib" / "python3.11" / "site-packages"
    (site / "requests").mkdir(parents=True)
    (site / "setup.py").write_text("")  # a name the project has, but not one it installs
    (site / "__editable__.tinypkg-0.1.pth").write_text("/workspace/src\n")
    editable = site / "tinypkg-0.1.dist-info"
    editable.mkdir()
    (editable / "direct_url.json").write_text(json.dumps({"url": "file:///workspace", "dir_info": {"editable": True}}))
    assert env_holds_project(tmp_path / "env", workspace) is None
    assert env_holds_project(None, workspace) is None
    (site / "helper.py").write_text("")
    assert env_holds_project(tmp_path / "env", workspace) == str(site / "helper.py")
    (site / "helper.py").unlink()
    (site / "tinypkg").mkdir()
    assert env_holds_project(tmp_path / "env", workspace) == str(site / "tinypkg")
    (site / "tinypkg").rmdir()
    (editable / "direct_url.json").write_text(json.dumps({"url": "file:///workspace", "dir_info": {}}))
    assert env_holds_project(tmp_path / "env", workspace) == str(editable)
