"""Values read from JSON another program wrote (an agent's transcript, a Harbor job's result.json): an integer, a
number or an object when the value is one, else nothing."""

from __future__ import annotations

from typing import Any


def integer(value: Any) -> int | None:
    """A token count or exit code, or None when it is not an integer."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def number(value: Any) -> float | None:
    """A cost, or None when it is not a number."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def mapping(value: Any) -> dict[str, Any]:
    """A JSON object, or an empty one for anything else."""
    return value if isinstance(value, dict) else {}
