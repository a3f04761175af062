"""Runs made elsewhere: per-trial JSONL rows (``case_id``, ``trial``, ``passed``, ``critical``, ``cost_usd``,
``trajectory``) turned into a run directory (a run goes back out as such rows by ``runner.behaviour.export``).

An imported run is a run like any other on disk (run.json with every trial's digest, one folder per trial), so
``report``, ``compare`` and ``flakes`` read it unchanged. It has no corpus: its dataset fingerprint is the
sha256 of its sorted case ids (two imports of the same cases compare; other cases need --allow-dataset-change)
unless the rows name the fingerprint of the run they came from (``runner export --jsonl`` does, so a run exported
and imported again compares with itself), each case's governance is recorded from the rows (critical, policy,
title, owner) and --policy where they say nothing, and a trajectory becomes the trial's
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
from corpus.fsutil import staging_directory, write_staged, writing
from corpus.model import Policy
from runner.runs.digests import result_digest, trial_key
from runner.runs.harbor import harbor_rows
from runner.runs.manifest import (
    VARIANT_NAME,
    CaseMeta,
    RunConfig,
    RunManifest,
    Variant,
    created_now,
    write_manifest,
)
from runner.runs.result import RESULT_FILE, Outcome, TrialResult, trial_path
from runner.runs.rows import Row, read_rows

TRANSCRIPT = "transcript.log"


def dataset_fingerprint(case_ids: list[str]) -> str:
    """The fingerprint of an imported run's cases: sha256 of their sorted ids, one per line."""
    return hashlib.sha256("\n".join(sorted(set(case_ids))).encode()).hexdigest()


def import_rows(source: Path, out: Path, variant: str = "imported", policy: Policy = "blocking",
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
    critical: dict[str, bool] = {}
    given: dict[str, dict[str, Any]] = {}  # a case's first row
    for row in rows:
        critical[row.case_id] = critical.get(row.case_id, False) or row.critical
        given.setdefault(row.case_id, row.extra)
    fingerprints = {r.extra.get("dataset_fingerprint") for r in rows}
    if len(fingerprints) > 1:
        raise UsageError(f"{source}: the rows name {len(fingerprints - {None})} dataset fingerprints; every row "
                         f"gives the one of the run it came from, or none does")
    dataset = fingerprints.pop() or dataset_fingerprint(cases)
    now = created_now()
    variants = tuple(Variant(n, None) for n in dict.fromkeys(names))
    config = RunConfig("agent", max(r.trial for r in rows), variants, tuple(cases), 0.0)
    runtime: dict[str, Any] = {"imported_from": str(source.resolve()), "format": "jsonl rows"}
    runtime["fingerprint"] = hashlib.sha256(json.dumps(runtime, sort_keys=True).encode()).hexdigest()
    staged = staging_directory(out.parent if str(out.parent) else Path("."), out.name)
    try:
        with writing(out):
            digests = _write_trials(staged, rows, names, now)
        meta = {c: CaseMeta(given[c].get("title") or c, given[c].get("owner"),
                            given[c].get("policy") or ("blocking" if critical[c] else policy), critical[c])
                for c in cases}
        write_manifest(staged, RunManifest(out.name, now, dataset, runtime, config,
                                           digests=digests, name=name, cases_meta=meta))
        os.rename(staged, out)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    return out


def _write_trials(staged: Path, rows: list[Row], names: list[str], now: str) -> dict[str, str]:
    """Write every row's trial folder into the staged run; the digest of each result.json, by trial key."""
    digests: dict[str, str] = {}
    made: set[str] = set()
    for row, name_ in zip(rows, names, strict=True):
        folder = trial_path(staged, name_, row.case_id, row.trial)
        case_dir = f"{name_}/{row.case_id}"
        if case_dir not in made:
            folder.parent.mkdir(parents=True)
            made.add(case_dir)
        folder.mkdir()
        if row.trajectory:
            write_staged(folder / TRANSCRIPT,
                         "".join(json.dumps(step) + "\n" for step in row.trajectory).encode("utf-8"))
        tokens = row.extra.get("tokens")
        outcome: Outcome = row.extra.get("outcome") or ("error" if row.extra.get("error") else
                                                        "pass" if row.passed else "fail")
        result = TrialResult(
            row.case_id, name_, row.trial, outcome,
            str(row.extra.get("reason") or ("imported: passed" if row.passed else "imported: failed")),
            hashlib.sha256(row.case_id.encode()).hexdigest(), now, cost_usd=row.cost_usd,
            tokens=tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None)
        data = result.to_json().encode("utf-8")
        write_staged(folder / RESULT_FILE, data)
        digests[trial_key(name_, row.case_id, row.trial)] = result_digest(data)
    return digests
