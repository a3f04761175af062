"""The row of a run made elsewhere, one imported trial (``case_id``, ``trial``, ``passed``, ``critical``,
``cost_usd``, ``trajectory`` and the optional EXTRA fields), and a JSONL file of rows read with errors naming
the file and line."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.model import SLUG


@dataclass(frozen=True)
class Row:
    """One imported trial."""

    case_id: str
    """The case id (a slug: it names a folder)."""
    trial: int
    """1-based trial number."""
    passed: bool
    """The outcome."""
    critical: bool = False
    """The row says the case is critical."""
    cost_usd: float | None = None
    """The trial's cost."""
    trajectory: tuple[dict[str, Any], ...] = ()
    """Tool calls, each ``{"tool", "args"}``."""
    extra: dict[str, Any] = field(default_factory=dict)
    """The EXTRA fields the row gives (what `runner export --jsonl` writes besides the above)."""


OUTCOMES = ("pass", "fail", "error")
POLICIES = ("advisory", "blocking")
EXTRA = ("tokens", "reason", "variant", "outcome", "policy", "title", "owner", "dataset_fingerprint")
"""Optional fields of a row: the trial's tokens, reason, variant and outcome (error for a trial that could not
be established: `passed` is then false); its case's policy, title and owner; the dataset fingerprint of the run
it came from (every row of a file gives the same one or none does)."""


def _row(data: Any, where: str, counts: dict[str, int]) -> Row:
    if not isinstance(data, dict):
        raise UsageError(f"{where}: expected a JSON object per line")
    case_id = data.get("case_id")
    if not isinstance(case_id, str) or not SLUG.match(case_id):
        raise UsageError(f"{where}: case_id {case_id!r} is not a case id (lower-case letters, digits and '-')")
    passed = data.get("passed")
    if not isinstance(passed, bool):
        raise UsageError(f"{where}: passed must be true or false, got {passed!r}")
    counter = f"{data.get('variant') or ''}/{case_id}"
    trial = data.get("trial", counts.get(counter, 0) + 1)
    if not isinstance(trial, int) or isinstance(trial, bool) or trial < 1:
        raise UsageError(f"{where}: trial must be a number from 1, got {trial!r}")
    counts[counter] = max(counts.get(counter, 0), trial)
    cost = data.get("cost_usd")
    if cost is not None and (not isinstance(cost, (int, float)) or isinstance(cost, bool) or cost < 0):
        raise UsageError(f"{where}: cost_usd must be a number >= 0, got {cost!r}")
    trajectory = data.get("trajectory") or []
    if not isinstance(trajectory, list) or not all(isinstance(step, dict) for step in trajectory):
        raise UsageError(f"{where}: trajectory must be a list of objects")
    critical = data.get("critical", False)
    if not isinstance(critical, bool):
        raise UsageError(f"{where}: critical must be true or false, got {critical!r}")
    for key, allowed in (("outcome", OUTCOMES), ("policy", POLICIES)):
        if key in data and data[key] not in allowed:
            raise UsageError(f"{where}: {key} must be one of {', '.join(allowed)}, got {data[key]!r}")
    if data.get("outcome") is not None and (data["outcome"] == "pass") != passed:
        raise UsageError(f"{where}: outcome {data['outcome']!r} disagrees with passed {passed!r}")
    for key in ("title", "owner", "dataset_fingerprint"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise UsageError(f"{where}: {key} must be a string, got {data[key]!r}")
    extra = {key: data[key] for key in EXTRA if data.get(key) is not None}
    return Row(case_id, trial, passed, critical, None if cost is None else float(cost), tuple(trajectory), extra)


def read_rows(source: Path) -> list[Row]:
    """The rows of a JSONL file; UsageError naming the file and line of the first bad one."""
    try:
        text = source.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"{source}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"{source}: not UTF-8 text") from None
    rows: list[Row] = []
    counts: dict[str, int] = {}
    seen: set[tuple[str, str, int]] = set()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UsageError(f"{source}:{number}: not JSON ({exc.msg})") from None
        row = _row(data, f"{source}:{number}", counts)
        key = (str(row.extra.get("variant") or ""), row.case_id, row.trial)
        if key in seen:
            raise UsageError(f"{source}:{number}: trial {row.trial} of {row.case_id} is given twice")
        seen.add(key)
        rows.append(row)
    if not rows:
        raise UsageError(f"{source}: no rows")
    return rows
