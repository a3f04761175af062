"""The verify report as text and as JSON."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict
from typing import Any

from runner.verify.attempt import Attempt
from runner.verify.verify import CaseVerdict, VerifyReport


def attempt_json(attempt: Attempt) -> dict[str, Any]:
    """An attempt as JSON (without its per-test outcomes)."""
    out = asdict(attempt)
    out.pop("tests", None)
    out["duration"], out["setup_duration"] = round(attempt.duration, 3), round(attempt.setup_duration, 3)
    return out


def verdict_json(verdict: CaseVerdict) -> dict[str, Any]:
    """A verdict as JSON, the measured tests under "measured" (null when nothing was measured)."""
    measured = verdict.measured
    return {
        "case_id": verdict.case_id, "verdict": verdict.verdict, "reason": verdict.reason,
        "feature": verdict.feature, "mixed": verdict.mixed, "case_fingerprint": verdict.case_fingerprint, "logs": verdict.logs,
        "measured": None if measured is None else {
            "command": measured.command, "fail_to_pass": list(measured.fail_to_pass),
            "pass_to_pass": list(measured.pass_to_pass), "failures": measured.failures,
            "flaky": list(measured.flaky), "skipped": list(measured.skipped), "skip_reason": measured.skip_reason,
            "written": verdict.written, "current": verdict.current},
        "attempts": [attempt_json(a) for a in verdict.attempts],
    }


def report_json(report: VerifyReport) -> str:
    """The report as one JSON document."""
    return json.dumps({"dataset_fingerprint": report.dataset_fingerprint,
                       "verdicts": [verdict_json(v) for v in report.verdicts]}, indent=2)


def verdict_line(verdict: CaseVerdict) -> str:
    """One line for a verdict as soon as it is known (`calc-add: VALID (feature)`)."""
    label = (f"{verdict.verdict} (feature)" if verdict.feature else f"{verdict.verdict} (mixed)" if verdict.mixed
             else verdict.verdict)
    reason = "" if verdict.feature or verdict.mixed else verdict.reason
    return f"{verdict.case_id}: {label}" + (f" — {reason}" if reason else "")


def measured_line(verdict: CaseVerdict) -> str | None:
    """What was measured, and whether it was written or only proposed."""
    measured = verdict.measured
    if measured is None:
        return None
    kinds = Counter(measured.failures.values())
    how = ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items()))
    text = (f"measured: {len(measured.fail_to_pass)} fail-to-pass" + (f" ({how})" if how else "")
            + f", {len(measured.pass_to_pass)} pass-to-pass")
    if measured.flaky:
        text += f", {len(measured.flaky)} unstable left out"
    if measured.skipped:
        text += f", {len(measured.skipped)} of the fix's tests skipped on both sides"
    if verdict.written:
        return text + "; written to case.yaml"
    if verdict.current:
        return text + "; as case.yaml has them"
    return text + ("; proposed (--update writes them)" if verdict.verdict != "ERROR" and measured.fail_to_pass
                   else "")


def render_verdicts(report: VerifyReport) -> list[str]:
    """The text report: one line per case (verdict and reason) with what was measured and where the logs were
    kept, the counts, and the dataset fingerprint."""
    width = max([len(v.case_id) for v in report.verdicts] + [4])
    lines = [f"{'CASE':<{width}}  VERDICT  REASON"]
    for v in report.verdicts:
        lines.append(f"{v.case_id:<{width}}  {v.verdict:<7}  {v.reason}".rstrip())
        measured = measured_line(v)
        if measured:
            lines.append(f"{'':<{width}}    {measured}")
        if v.logs:
            lines.append(f"{'':<{width}}    logs: {v.logs}")
    counts = {k: sum(1 for v in report.verdicts if v.verdict == k) for k in ("VALID", "INVALID", "ERROR")}
    features = sum(1 for v in report.verdicts if v.feature)
    total, errors = len(report.verdicts), counts["ERROR"]
    valid = f"{counts['VALID']} valid ({features} feature)" if features else f"{counts['VALID']} valid"
    lines.append(f"{total} case{'' if total == 1 else 's'}: {valid}, {counts['INVALID']} invalid, "
                 f"{errors} error{'' if errors == 1 else 's'}")
    if report.dataset_fingerprint is not None:
        lines.append(f"dataset fingerprint: {report.dataset_fingerprint}")
    return lines
