"""Runs made elsewhere: per-trial JSONL rows (``case_id``, ``trial``, ``passed``, ``critical``, ``cost_usd``,
``trajectory``) turned into a run directory, and a run written back as such rows.

An imported run is a run like any other on disk (run.json with every trial's digest, one folder per trial), so
``report``, ``compare`` and ``flakes`` read it unchanged. It has no corpus: its dataset fingerprint is the
sha256 of its sorted case ids (two imports of the same cases compare; other cases need --allow-dataset-change),
each case's governance is recorded from the rows (critical) and --policy, and a trajectory becomes the trial's
transcript.log in the generic JSONL format, one ``{"tool", "args"}`` object per line.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.fsutil import atomic_write_text, staging_directory
from runner.behaviour.parse import parse
from runner.runs.digests import result_digest, trial_key
from runner.runs.harbor import harbor_rows
from runner.runs.load import LoadedRun
from runner.runs.manifest import (
    VARIANT_NAME,
    CaseMeta,
    RunConfig,
    RunManifest,
    Variant,
    created_now,
    write_manifest,
)
from runner.runs.result import RESULT_FILE, TrialResult, trial_path
from runner.runs.rows import read_rows

TRANSCRIPT = "transcript.log"


def dataset_fingerprint(case_ids: list[str]) -> str:
    """The fingerprint of an imported run's cases: sha256 of their sorted ids, one per line."""
    return hashlib.sha256("\n".join(sorted(set(case_ids))).encode()).hexdigest()


def import_rows(source: Path, out: Path, variant: str = "imported", policy: str = "blocking",
                name: str | None = None) -> Path:
    """Write the rows of source (a JSONL file, or a Harbor job directory: ``runner.runs.harbor``) as the run
    directory out (which must not exist), atomically. Rows that name a ``variant`` are that variant's trials (a
    matrix); the others are ``variant``'s."""
    if out.exists():
        raise UsageError(f"--out {out}: already exists")
    rows = harbor_rows(source) if source.is_dir() else read_rows(source)
    names = [str(r.extra.get("variant") or variant) for r in rows]
    bad = next((n for n in names if not VARIANT_NAME.match(n)), None)
    if bad is not None:
        raise UsageError(f"variant {bad!r}: use letters, digits, '.', '_' or '-'")
    if len(set(zip(names, ((r.case_id, r.trial) for r in rows), strict=True))) != len(rows):
        raise UsageError(f"{source}: a trial of a case is given twice for one variant")
    cases = sorted({r.case_id for r in rows})
    critical = {c: any(r.critical for r in rows if r.case_id == c) for c in cases}
    now = created_now()
    variants = tuple(Variant(n, None) for n in dict.fromkeys(names))
    config = RunConfig("agent", max(r.trial for r in rows), variants, tuple(cases), 0.0)
    runtime: dict[str, Any] = {"imported_from": str(source.resolve()), "format": "jsonl rows"}
    runtime["fingerprint"] = hashlib.sha256(json.dumps(runtime, sort_keys=True).encode()).hexdigest()
    staged = staging_directory(out.parent if str(out.parent) else Path("."), out.name)
    try:
        digests: dict[str, str] = {}
        for row, name_ in zip(rows, names, strict=True):
            folder = trial_path(staged, name_, row.case_id, row.trial)
            folder.mkdir(parents=True)
            if row.trajectory:
                atomic_write_text(folder / TRANSCRIPT, "".join(json.dumps(step) + "\n" for step in row.trajectory))
            tokens = row.extra.get("tokens")
            outcome = "error" if row.extra.get("error") else "pass" if row.passed else "fail"
            result = TrialResult(
                row.case_id, name_, row.trial, outcome,  # type: ignore[arg-type]
                str(row.extra.get("reason") or ("imported: passed" if row.passed else "imported: failed")),
                hashlib.sha256(row.case_id.encode()).hexdigest(), now, cost_usd=row.cost_usd,
                tokens=tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None)
            text = result.to_json()
            atomic_write_text(folder / RESULT_FILE, text)
            digests[trial_key(name_, row.case_id, row.trial)] = result_digest(text.encode("utf-8"))
        meta = {c: CaseMeta(c, None, "blocking" if critical[c] else policy, critical[c]) for c in cases}
        write_manifest(staged, RunManifest(out.name, now, dataset_fingerprint(cases), runtime, config,
                                           digests=digests, name=name, cases_meta=meta))
        os.rename(staged, out)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    return out


def export_rows(run: LoadedRun) -> str:
    """Every recorded trial of a run as one JSONL row: case_id, variant, trial, passed (false for an error, with
    ``outcome`` saying which), reason, critical, cost_usd, tokens, and the trajectory read from its transcript."""
    lines = []
    for trial in run.trials:
        meta = run.manifest.cases_meta.get(trial.case_id)
        transcript = trial_path(run.directory, trial.variant, trial.case_id, trial.trial) / TRANSCRIPT
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
            "trajectory": trajectory}, sort_keys=True))
    return "".join(line + "\n" for line in lines)
