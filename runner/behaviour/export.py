"""A run written back as the per-trial JSONL rows ``runner import`` reads (``runner.runs.interop``), each trial's
trajectory read from its transcript."""

from __future__ import annotations

import json

from runner.behaviour.parse import parse
from runner.behaviour.sources import TRANSCRIPT_FILE
from runner.runs.load import LoadedRun
from runner.runs.result import trial_path


def export_rows(run: LoadedRun) -> str:
    """Every recorded trial of a run as one JSONL row: case_id, variant, trial, passed (false for an error, with
    ``outcome`` saying which), reason, critical, cost_usd, tokens, the trajectory read from its transcript, the
    run's dataset fingerprint and the case's policy, title and owner as the run recorded them: what `runner
    import` needs to make a run that compares with this one."""
    lines = []
    for trial in run.trials:
        meta = run.manifest.cases_meta.get(trial.case_id)
        transcript = trial_path(run.directory, trial.variant, trial.case_id, trial.trial) / TRANSCRIPT_FILE
        try:
            record = parse(transcript.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            record = None
        trajectory = [] if record is None else [
            {"tool": c.raw_name, "args": c.arguments, **({} if c.exit_code is None else {"exit_code": c.exit_code})}
            for c in record.tool_calls]
        lines.append(json.dumps({
            "case_id": trial.case_id, "variant": trial.variant, "trial": trial.trial,
            "passed": trial.outcome == "pass", "outcome": trial.outcome, "reason": trial.reason,
            "critical": bool(meta and meta.critical), "cost_usd": trial.cost_usd, "tokens": trial.tokens,
            "trajectory": trajectory, "dataset_fingerprint": run.manifest.dataset_fingerprint,
            **({} if meta is None else {"policy": meta.policy, "title": meta.title, "owner": meta.owner})},
            sort_keys=True))
    return "".join(line + "\n" for line in lines)
