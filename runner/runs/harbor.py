"""A Harbor job directory read as imported rows: one ``<trial>/result.json`` (Harbor's TrialResult) per trial,
its reward the outcome.

Per trial: the case is ``task_name`` made a case id (lower case, runs of other characters as ``-``), the variant
the agent's name (and model, when the result names one), the outcome pass when the verifier's reward reaches the
pass threshold (default 1.0), fail below it, and an error when the trial raised before a verifier result
(``exception_info``; the reason names the exception). Tokens (``n_input_tokens`` counts cached ones, plus
``n_output_tokens``) and ``cost_usd`` come from ``agent_result``. Trials are numbered per variant and case in
the order they started.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from runner.runs.jsonvalues import mapping
from runner.runs.rows import Row

RESULT = "result.json"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:80]


def _variant(data: dict[str, Any]) -> str:
    agent = mapping(data.get("agent_info"))
    model = mapping(agent.get("model_info"))
    name = "-".join(str(p) for p in (agent.get("name"), model.get("name")) if p) or "harbor"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-.")[:64] or "harbor"


def _reward(data: dict[str, Any]) -> float | None:
    verifier = data.get("verifier_result")
    rewards = verifier.get("rewards") if isinstance(verifier, dict) else None
    if not isinstance(rewards, dict) or not rewards:
        return None
    value = rewards.get("reward", next(iter(rewards.values())))
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def harbor_rows(job: Path, pass_threshold: float = 1.0) -> list[Row]:
    """The rows of a Harbor job directory; UsageError naming the file of the first trial that cannot be read."""
    found: list[tuple[str, Row]] = []
    for path in sorted(job.glob(f"*/{RESULT}")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"{path}: not a Harbor trial result ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("task_name"), str):
            raise UsageError(f"{path}: not a Harbor trial result (no task_name)")
        case_id = _slug(data["task_name"])
        if not case_id:
            raise UsageError(f"{path}: task_name {data['task_name']!r} gives no case id")
        reward = _reward(data)
        exception = mapping(data.get("exception_info")) or None
        if reward is None and exception is None:
            raise UsageError(f"{path}: neither a verifier reward nor an exception: the trial's outcome is unknown")
        agent = mapping(data.get("agent_result"))
        tokens = [agent.get("n_input_tokens"), agent.get("n_output_tokens")]
        total = sum(t for t in tokens if isinstance(t, int)) if any(isinstance(t, int) for t in tokens) else None
        cost = agent.get("cost_usd")
        if reward is None:
            assert exception is not None
            passed, reason = False, f"harbor: {exception.get('exception_type')}: {exception.get('exception_message')}"
            error = True
        else:
            passed, reason, error = reward >= pass_threshold, f"harbor: reward {reward:g}", False
        extra: dict[str, Any] = {"variant": _variant(data), "reason": reason, "tokens": total, "error": error}
        found.append((str(data.get("started_at") or ""), Row(
            case_id, 1, passed, False, float(cost) if isinstance(cost, (int, float)) and cost >= 0 else None,
            (), extra)))
    if not found:
        raise UsageError(f"{job}: no Harbor trial results (*/{RESULT}) in it")
    numbered: dict[tuple[str, str], int] = {}
    rows = []
    for _, row in sorted(found, key=lambda f: f[0]):
        key = (str(row.extra["variant"]), row.case_id)
        numbered[key] = numbered.get(key, 0) + 1
        rows.append(Row(row.case_id, numbered[key], row.passed, row.critical, row.cost_usd, row.trajectory, row.extra))
    return rows
