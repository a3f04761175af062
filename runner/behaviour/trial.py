"""behaviour.json: a trial's behaviour record and metrics, written beside result.json, whose ``behaviour`` field
carries its sha256, so run.json's digest of result.json vouches for it too."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from corpus.fsutil import atomic_write_bytes
from runner.behaviour.metrics import trial_metrics
from runner.behaviour.parse import FORMATS, parse
from runner.behaviour.record import Behaviour
from runner.runs.result import TrialResult

BEHAVIOUR_FILE = "behaviour.json"
FORMAT = 1
"""The format number of behaviour.json."""
AGENT_MODES = ("agent", "regrade")
"""Modes whose transcript is an agent's (a regrade copies its source trial's)."""


def behaviour_document(record: Behaviour) -> dict[str, Any]:
    """behaviour.json as data: the record, and the metrics computed from it."""
    metrics = trial_metrics(record)
    return {"format": FORMAT, "record": asdict(record), "metrics": metrics.values,
            "calls_by_tool": metrics.calls_by_tool}


def record_behaviour(folder: Path, result: TrialResult, transcript_format: str = "auto") -> TrialResult:
    """Read folder's transcript.log, write behaviour.json, and return the result with its digest and with the
    cost and tokens the record gives (unless the result already has them). Modes without an agent: unchanged."""
    if result.mode not in AGENT_MODES:
        return result
    if transcript_format not in FORMATS:
        raise ValueError(f"unknown transcript format {transcript_format!r}")
    path = folder / "transcript.log"
    text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    record = parse(text, transcript_format)
    if "transcript_truncated" in result.flags and record.status == "parsed":
        record = replace(record, status="partial", reason="the transcript was cut at its size limit")
    data = (json.dumps(behaviour_document(record), indent=2, sort_keys=True) + "\n").encode("utf-8")
    atomic_write_bytes(folder / BEHAVIOUR_FILE, data)
    return replace(result, behaviour={"format": record.format, "status": record.status,
                                      "sha256": hashlib.sha256(data).hexdigest()},
                   cost_usd=result.cost_usd if result.cost_usd is not None else record.cost_usd,
                   tokens=result.tokens if result.tokens is not None else record.tokens.total)


def behaviour_problem(folder: Path, result: TrialResult) -> str | None:
    """Why a trial's behaviour.json cannot be trusted (missing, or not the file its result.json recorded)."""
    if not result.behaviour:
        return None
    path = folder / BEHAVIOUR_FILE
    try:
        data = path.read_bytes()
    except OSError:
        return f"{path}: recorded in result.json but missing"
    if hashlib.sha256(data).hexdigest() != result.behaviour.get("sha256"):
        return f"{path}: does not match the digest its result.json recorded"
    return None


def read_behaviour(folder: Path) -> dict[str, Any] | None:
    """A trial's behaviour.json as data; None when the trial has none."""
    try:
        data = json.loads((folder / BEHAVIOUR_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
