"""Only authoring's review app imports Textual: pyproject's import-linter contract names the app, and every
other module is imported in a clean interpreter to prove it holds at run time too (lazy imports included)."""

from __future__ import annotations

import importlib.util
import pkgutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

CORE_PACKAGES = ("corpus", "miner", "runner")
PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
PROBE = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
    if "textual" in sys.modules:
        print(name)
        break
"""


def review_app_modules() -> tuple[str, ...]:
    """The modules the import-linter contract allows to import Textual."""
    contracts = tomllib.loads(PYPROJECT.read_text())["tool"]["importlinter"]["contracts"]
    (app,) = [c["allowed_importers"] for c in contracts if c.get("protected_modules") == ["textual"]]
    return tuple(app)


def modules_of(package: str) -> list[str]:
    """Every module of package that exists on disk (packages still being written may have few)."""
    spec = importlib.util.find_spec(package)
    assert spec is not None and spec.submodule_search_locations is not None
    return [package] + [f"{package}.{info.name}" for info in pkgutil.iter_modules(spec.submodule_search_locations)]


def first_to_import_textual(modules: list[str]) -> str | None:
    """Import modules one by one in a fresh interpreter; the first after which textual is loaded, if any."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *modules], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip() or None


@pytest.mark.parametrize("package", CORE_PACKAGES)
def test_core_package_does_not_import_textual(package: str) -> None:
    assert first_to_import_textual(modules_of(package)) is None


def test_authoring_outside_the_review_app_does_not_import_textual() -> None:
    app = review_app_modules()
    library = [m for m in modules_of("authoring")
               if m != "authoring" and not any(m == a or m.startswith(a + ".") for a in app)]
    assert "authoring.cli" in library and "authoring.decisions" in library
    assert first_to_import_textual(library) is None


def test_the_review_app_does_import_textual() -> None:
    assert first_to_import_textual(["authoring.app"]) == "authoring.app"
