"""The digest run.json records of every published trial's result.json: recorded as trials finish, audited by
every reader that judges a run, so an outcome changed, added or removed after the run recorded it is refused."""

from __future__ import annotations

import hashlib
import os
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from corpus.errors import UsageError
from runner.runs.manifest import RunManifest, read_manifest, write_manifest
from runner.runs.result import RESULT_FILE, TrialResult, trial_path

WRITE_INTERVAL = 0.5
"""Seconds between two rewrites of run.json while trials finish (plus one at the end and on interruption)."""

TrialState = Literal["recorded", "missing", "unrecorded", "changed", "deleted"]
TrialId = tuple[str, str, int]
"""(variant, case id, trial number)."""

_PROBLEM = {
    "changed": "result.json does not match the digest run.json recorded for it, so it changed after it was "
               "recorded; the run cannot be trusted: make a new run",
    "deleted": "recorded in run.json, but its result.json is gone; the run cannot be trusted: make a new run",
    "unrecorded": "on disk but not recorded in run.json (the run is still going, or stopped before recording it); "
                  "resume it: runner run --resume {run_dir}",
}


def result_digest(data: bytes) -> str:
    """sha256 hex of a result.json's bytes."""
    return hashlib.sha256(data).hexdigest()


def trial_key(variant: str, case_id: str, trial: int) -> str:
    """The key of a trial in run.json's digests: variant/case/trial, its folder relative to the run."""
    return f"{variant}/{case_id}/{trial}"


@dataclass(frozen=True)
class AuditedTrial:
    """One planned trial of a run, as its folder and run.json describe it."""

    variant: str
    """The variant."""
    case_id: str
    """The case."""
    trial: int
    """1-based trial number."""
    state: TrialState
    """recorded (digest matches), missing (neither), unrecorded (folder only), changed, deleted (digest only)."""
    data: bytes | None
    """The result.json bytes when the trial is recorded."""

    @property
    def key(self) -> str:
        """variant/case/trial."""
        return trial_key(self.variant, self.case_id, self.trial)


@dataclass(frozen=True)
class Audit:
    """Every planned trial of a run (variant, case, trial order) against the digests of its run.json."""

    run_dir: Path
    """The run directory."""
    trials: tuple[AuditedTrial, ...]
    """Every planned trial."""
    strays: tuple[str, ...]
    """Digest keys that name no planned trial."""

    def recorded(self) -> list[AuditedTrial]:
        """The trials whose result.json matches its recorded digest."""
        return [a for a in self.trials if a.state == "recorded"]

    def problems(self, *, resuming: bool = False) -> list[str]:
        """One line per trial that does not match run.json, first first; resuming, an unrecorded folder is not one."""
        refused: tuple[TrialState, ...] = ("changed", "deleted") if resuming else ("changed", "deleted", "unrecorded")
        lines = [f"trial {a.key}: {_PROBLEM[a.state].format(run_dir=self.run_dir)}"
                 for a in self.trials if a.state in refused]
        lines += [f"run.json records a digest for {key}, which is not a trial of the run; the run cannot be "
                  f"trusted: make a new run" for key in self.strays]
        return lines

    def check(self, *, resuming: bool = False) -> None:
        """Raise UsageError naming the run directory and the first trial that does not match run.json."""
        problems = self.problems(resuming=resuming)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise UsageError(f"{self.run_dir}: {problems[0]}{more}")


def audit_run(run_dir: Path, manifest: RunManifest) -> Audit:
    """Read every planned trial's result.json and compare it with the digest run.json recorded for it."""
    config = manifest.config
    audited: list[AuditedTrial] = []
    planned: set[str] = set()
    root = os.fspath(run_dir)
    for variant in config.variants:
        for case_id in config.cases:
            for number in config.numbers(variant.name, case_id):
                key = trial_key(variant.name, case_id, number)
                planned.add(key)
                data = _read_result(f"{root}{os.sep}{key}{os.sep}{RESULT_FILE}")  # a join per trial costs more
                recorded = manifest.digests.get(key)
                state: TrialState
                if data is None:
                    state = "missing" if recorded is None else "deleted"
                elif recorded is None:
                    state = "unrecorded"
                else:
                    state = "recorded" if result_digest(data) == recorded else "changed"
                audited.append(AuditedTrial(variant.name, case_id, number, state,
                                            data if state == "recorded" else None))
    strays = tuple(sorted(k for k in manifest.digests if k not in planned))
    return Audit(run_dir, tuple(audited), strays)


def _read_result(path: str) -> bytes | None:
    """A result.json's bytes; None when there is no such file (a string path: a run has thousands of them)."""
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None


class DigestLedger:
    """Records the digest of each published trial in run.json, rewriting it at most every ``interval`` seconds
    (default ``WRITE_INTERVAL``).

    Call ``flush`` at the end, interrupted or not: a trial published but not yet written to run.json is not
    trusted (``--resume`` runs it again).
    """

    def __init__(self, run_dir: Path, interval: float | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.run_dir, self.clock = run_dir, clock
        self.interval = WRITE_INTERVAL if interval is None else interval
        self.manifest = read_manifest(run_dir)
        self.digests = dict(self.manifest.digests)
        self.unwritten = 0
        self.written_at = clock()

    def record(self, result: TrialResult) -> None:
        """Digest the published result.json of a finished trial; write run.json when the interval has passed."""
        path = trial_path(self.run_dir, result.variant, result.case_id, result.trial) / RESULT_FILE
        self.digests[trial_key(result.variant, result.case_id, result.trial)] = result_digest(path.read_bytes())
        self.unwritten += 1
        if self.clock() - self.written_at >= self.interval:
            self.flush()

    def flush(self) -> None:
        """Write run.json with every digest recorded so far, if any is not written yet."""
        if self.unwritten:
            self.manifest = replace(self.manifest, digests=dict(self.digests))
            write_manifest(self.run_dir, self.manifest)
            self.unwritten = 0
        self.written_at = self.clock()


def forget_trials(run_dir: Path, manifest: RunManifest, trials: Iterable[TrialId]) -> RunManifest:
    """Before trials run again: write run.json without their digests, then remove their folders.

    In that order, an interruption at any point leaves at worst an unrecorded folder, which a resume runs again.
    """
    trials = list(trials)
    keys = {trial_key(*t) for t in trials}
    manifest = replace(manifest, digests={k: v for k, v in manifest.digests.items() if k not in keys})
    write_manifest(run_dir, manifest)
    for variant, case_id, number in trials:
        shutil.rmtree(trial_path(run_dir, variant, case_id, number), ignore_errors=True)
    return manifest
