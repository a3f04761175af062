"""Only authoring's review app imports Textual: the other modules are imported in a clean interpreter to prove it."""

from __future__ import annotations

import importlib.util
import pkgutil
import subprocess
import sys

import pytest

CORE_PACKAGES = ("corpus", "miner", "runner")
TEXTUAL_FREE_AUTHORING = ("authoring.cli", "authoring.leaks", "authoring.decisions", "authoring.lint",
                          "authoring.queue", "authoring.session", "authoring.draft", "authoring.verifying")
PROBE = """
import importlib, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
    if "textual" in sys.modules:
        print(name)
        break
"""


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


def test_authoring_library_and_cli_do_not_import_textual() -> None:
    assert first_to_import_textual(list(TEXTUAL_FREE_AUTHORING)) is None


def test_the_review_app_does_import_textual() -> None:
    assert first_to_import_textual(["authoring.app"]) == "authoring.app"
