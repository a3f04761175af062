"""The packages carry no `# type: ignore`: a Literal or a typed value says what the ignore hid (mypy holds corpus
and runner to its strict flags, pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_package_module_silences_the_type_checker() -> None:
    found = [f"{path.relative_to(ROOT)}:{number}" for package in ("corpus", "miner", "authoring", "runner")
             for path in sorted((ROOT / package).rglob("*.py"))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if "type: ignore" in line]
    assert found == []
