"""Runs made elsewhere: per-trial JSONL rows (``case_id``, ``trial``, ``passed``, ``critical``, ``cost_usd``,
``trajectory``) turned into a run directory (a run goes back out as such rows by ``runner.behaviour.export``).

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.fsutil import atomic_write_text, staging_directory
from corpus.model import SLUG
from runner.runs.digests import result_digest, trial_key
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

TRANSCRIPT = "transcript.log"


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
    """tokens, reason and variant when the row gives them."""


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
    extra = {key: data[key] for key in ("tokens", "reason", "variant") if key in data}
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
    if source.is_dir():
        from runner.runs.harbor import harbor_rows

        rows = harbor_rows(source)
    else:
        rows = read_rows(source)
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
