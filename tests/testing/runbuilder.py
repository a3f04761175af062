"""Runs on disk in the DESIGN.md format, and a small corpus, for the compare, flakes and gate tests."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import replace
from pathlib import Path

from corpus import Case, CaseFiles, Corpus, Grader
from runner.runs.digests import result_digest, trial_key
from runner.runs.manifest import read_manifest, write_manifest

FINGERPRINT = "f" * 64
OUTCOME = {"p": "pass", "f": "fail", "e": "error"}
REASON = {"pass": "grader passed", "fail": "grader: 1 test failed", "error": "grader timed out"}


def write_run(root: Path, run_id: str, cells: Mapping[str, str], *, fingerprint: str = FINGERPRINT,
              reasons: Mapping[str, str] | None = None, cost_usd: float | None = None,
              tokens: int | None = None, duration: float = 10.0, variants: tuple[str, ...] = (),
              kinds: Mapping[str, str] | None = None, name: str | None = None,
              created: str = "2024-06-01T00:00:00+00:00", mode: str = "agent",
              holdout: Collection[str] = ()) -> Path:
    """Write run.json and one result.json per trial; return the run directory.

    cells maps "case" (variant "default") or "variant::case" to one letter per trial: p pass, f fail, e error,
    "." a trial without a result. reasons overrides the fail/error reason per key. Trial t of a cell lasts
    duration + t seconds. kinds (as for write_corpus) makes the run record its cases' policy, as runs do; the
    cases in holdout are recorded as holdout cases (with kinds only).
    """
    run_dir = root / run_id
    parsed = {key: (key.split("::", 1) if "::" in key else ("default", key)) for key in cells}
    names = list(variants) or list(dict.fromkeys(variant for variant, _ in parsed.values()))
    manifest = {
        "format": 2, "run_id": run_id, "created": created, "name": name,
        "dataset_fingerprint": fingerprint,
        "runtime": {"hindcast": "0.1.0", "python": "3.11", "os": "linux", "git": "2.43"},
        "config": {"mode": mode, "trials": max(len(v) for v in cells.values()),
                   "variants": [{"name": n, "command": f"agent-{n} {{workspace}}"} for n in names],
                   "cases": sorted({case for _, case in parsed.values()}), "agent_timeout": 600, "jobs": 1},
        "digests": {},
    }
    if kinds is not None:
        manifest["cases_meta"] = {case: {
            "title": f"{case} title", "owner": "ada", "policy": "blocking" if kind == "blocking" else "advisory",
            "critical": kind == "critical", "status": "deprecated" if kind == "deprecated" else "active",
            "holdout": case in holdout}
            for case, kind in kinds.items()}
    run_dir.mkdir(parents=True)
    (run_dir / "run.json").write_text(json.dumps(manifest, indent=2))
    for key, letters in cells.items():
        variant, case_id = parsed[key]
        for trial, letter in enumerate(letters, start=1):
            if letter == ".":
                continue
            outcome = OUTCOME[letter]
            reason = (reasons or {}).get(key, REASON[outcome]) if outcome != "pass" else REASON[outcome]
            result = {
                "format": 1, "case_id": case_id, "variant": variant, "trial": trial, "outcome": outcome,
                "reason": reason, "case_fingerprint": "c" * 64, "started": "2024-06-01T00:00:00+00:00",
                "durations": {"setup": 1.0, "agent": duration + trial - 2.0, "grader": 1.0,
                              "total": duration + trial},
                "agent_exit_code": 0, "agent_timed_out": False, "grader_exit_code": 0 if letter == "p" else 1,
                "changed_files": ["src/app.py"], "flags": [], "cost_usd": cost_usd, "tokens": tokens,
            }
            trial_dir = run_dir / variant / case_id / str(trial)
            trial_dir.mkdir(parents=True)
            (trial_dir / "result.json").write_text(json.dumps(result, indent=2))
    return record_digests(run_dir)


def record_digests(run_dir: Path) -> Path:
    """Record in run.json the digest of every trial folder's result.json as it is now, as the run does when
    trials finish; return the run directory. Tests call it after writing a result on purpose."""
    digests = {trial_key(path.parent.parent.parent.name, path.parent.parent.name, int(path.parent.name)):
               result_digest(path.read_bytes()) for path in run_dir.glob("*/*/[0-9]*/result.json")}
    write_manifest(run_dir, replace(read_manifest(run_dir), digests=digests))
    return run_dir


def write_corpus(root: Path, kinds: Mapping[str, str], trigger_paths: Mapping[str, tuple[str, ...]] | None = None,
                 repo: str | None = None) -> Corpus:
    """A corpus whose cases are "blocking", "advisory", "critical" (advisory policy, critical) or "deprecated"."""
    corpus = Corpus.init(root, "compare-tests", repo=repo)
    for case_id, kind in kinds.items():
        case = Case(id=case_id, title=f"{case_id} title", prompt="Fix it.\n", base_commit="a" * 40,
                    fix_commit="b" * 40, grader=Grader(command="true"), owner="ada",
                    policy="blocking" if kind == "blocking" else "advisory", critical=kind == "critical",
                    status="deprecated" if kind == "deprecated" else "active",
                    deprecated_reason="superseded" if kind == "deprecated" else None,
                    trigger_paths=(trigger_paths or {}).get(case_id, ()))
        corpus.write(case, CaseFiles.of(b"", {}))
    return corpus
