"""Every way the project tells a person to install Hindcast works as written: the distribution's name is not
someone else's on PyPI (`hindcast` is an unrelated package), the CI example installs the wheel a checkout
builds, and the Ray hints install Ray."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from runner.executors.ray_executor import INSTALL

ROOT = Path(__file__).resolve().parents[1]
BARE = re.compile(r"pip install\s+(?:-\S+\s+)*['\"]?hindcast(?![-\w])")
"""`pip install hindcast`, `pip install 'hindcast[ray]'`: the unrelated package on PyPI."""
UV = str(Path(sys.executable).parent / "uv")


def hint_files() -> list[Path]:
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / name for name in tracked.split()
            if name.endswith((".md", ".py", ".yml", ".yaml", ".sh", ".toml")) and (ROOT / name).is_file()
            and name != "tests/test_install_hints.py"]


def test_no_hint_installs_the_unrelated_package_of_pypi() -> None:
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"] == "hindcast-evals"
    found = [f"{path.relative_to(ROOT)}: {match.group(0)}" for path in hint_files()
             for match in BARE.finditer(path.read_text(encoding="utf-8", errors="replace"))]
    assert not found


def test_the_ci_workflow_installs_the_wheel_a_checkout_builds(tmp_path: Path) -> None:
    workflow = (ROOT / "examples" / "ci" / "hindcast.yml").read_text()
    command = re.search(r"uv build --wheel --out-dir YOUR_REPO/\.github/hindcast", workflow)
    glob = re.search(r"\.github/hindcast/(\S+\.whl)", workflow)
    assert command and glob
    subprocess.run([UV, "build", "--wheel", "--out-dir", str(tmp_path), str(ROOT)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob(glob.group(1))
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        assert "Name: hindcast-evals\n" in archive.read(metadata).decode()
        entry = archive.read(next(n for n in names if n.endswith(".dist-info/entry_points.txt"))).decode()
    assert {"runner/cli.py", "miner/cli.py", "authoring/cli.py", "corpus/errors.py"} <= set(names)
    assert "runner = runner.cli:main" in entry


def test_the_ray_hint_installs_ray_as_written() -> None:
    words = shlex.split(INSTALL.split(": ", 1)[1])
    assert words[:3] == ["uv", "pip", "install"]
    proc = subprocess.run([UV, *words[1:], "--dry-run", "--offline"], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert "ray" in (ROOT / "pyproject.toml").read_text().split("[project.optional-dependencies]")[1]
