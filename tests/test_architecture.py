"""The package boundaries hold: import-linter's contracts from pyproject.toml are kept."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_are_kept() -> None:
    exe = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    proc = subprocess.run([exe], cwd=ROOT, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 broken" in proc.stdout


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    fence = readme.split("```bash\n", 1)[1].split("```", 1)[0].splitlines()
    assert len(fence) == 2 and "demo/run.sh" in fence[0]
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert fence[1] in [line.strip() for line in ci]
    for step in ("ruff check", "mypy", "lint-imports", "mkdocs build --strict", "python -m pytest"):
        assert f"&& {step}" in fence[1]
