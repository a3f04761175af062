"""Scorecards as the reports show them: a trial's verification lanes, its score line and its block of lines, and
the words of each finding counted per variant (the figures themselves are ``runner.scorecard.means``'s)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corpus.errors import UsageError
from runner.runs.result import TrialResult
from runner.scorecard.means import COUNTS, MEANS, SCORES, findings, json_list, json_object, scores

COUNT_LABELS = {"test_downgrades": "test downgrades", "tampering": "tampering", "unsafe_passes": "unsafe passes",
                "out_of_bounds": "out-of-bounds edits"}
"""Each count in words."""
FLAG_WORDS = {"test_downgrades": "test downgrade", "tampering": "tampering", "unsafe_passes": "unsafe pass",
              "out_of_bounds": "out-of-bounds edit"}
"""Each finding of one trial in words."""
LANE_WIDTH = 66
"""Column where a verification lane's status starts (the dots fill up to it)."""
STATUS_WORDS = {"pass": "PASSED", "fail": "FAILED", "error": "ERROR"}


def score_text(value: float | None, integer: bool = False) -> str:
    """A score as the score line writes it: 0.75, 1 (task_success of one trial), or a dash when unknown."""
    if value is None:
        return "—"
    return str(int(value)) if integer and float(value).is_integer() else f"{value:.2f}"


def score_line(card: Mapping[str, Any] | None) -> str:
    """``[score] task_success=1 file_accuracy=1.00 invariant_safety=0.00 reviewability=0.92``."""
    if card is None:
        return "[score] none: the trial ended before its patch was graded"
    found = scores(card)
    line = "[score] " + " ".join(f"{name}={score_text(found[name], name == 'task_success')}" for name in SCORES)
    if card.get("error"):
        line += f" (not analysed: {card['error']})"
    return line


@dataclass(frozen=True)
class Lane:
    """One verification lane of a trial: the hidden grader, or one invariant."""

    name: str
    """``hidden grader`` or ``invariant NAME``."""
    status: str
    """pass, fail, error, or not_run (the grader did not run)."""
    detail: str
    """``exit 1``, ``timed out``, ``could not start``; the grader's reason (its exit without one)."""
    command: str = ""
    """The invariant's command (empty for the grader: its command is the hidden part)."""
    output: str = ""
    """The last part of the invariant's output, as result.json keeps it."""

    @property
    def word(self) -> str:
        """PASSED, FAILED, ERROR or NOT RUN."""
        return STATUS_WORDS.get(self.status, "NOT RUN")

    def line(self) -> str:
        """``[verify] invariant refund-floor ............ FAILED  exit 1``."""
        head = f"[verify] {self.name} "
        text = head + "." * max(3, LANE_WIDTH - len(head)) + f" {self.word}"
        return f"{text}  {self.detail}" if self.detail else text


def _exit(code: object, timed_out: bool = False) -> str:
    if timed_out:
        return "timed out"
    return f"exit {code}" if isinstance(code, int) and not isinstance(code, bool) else ""


def lanes(result: TrialResult) -> tuple[Lane, ...]:
    """The hidden grader's lane, then each invariant's, in the case's order."""
    grader = result.grader_outcome
    detail = result.grader_reason or _exit(result.grader_exit_code)
    out = [Lane("hidden grader", grader if grader in STATUS_WORDS else "not_run",
                detail if grader else result.reason)]
    for item in json_list(json_object(result.scorecard).get("invariants")):
        item = json_object(item)
        status = str(item.get("status"))
        how = "could not start" if status == "error" else _exit(item.get("exit_code"), item.get("timed_out") is True)
        out.append(Lane(f"invariant {item.get('name')}", status if status in STATUS_WORDS else "error", how,
                        str(item.get("command") or ""), str(item.get("output") or "")))
    return tuple(out)


def flag_names(card: Mapping[str, Any] | None) -> list[str]:
    """The COUNTS one trial has, in words."""
    if card is None:
        return []
    return [FLAG_WORDS[name] for name, hit in findings(card).items() if hit]


def trial_block(result: TrialResult, plan: str | None, risk_flags: Sequence[str]) -> list[str]:
    """A trial's block: its outcome, the agent's plan, each verification lane, the score line, the case's risk
    flags, the findings counted per variant, and the hint."""
    card = result.scorecard
    lines = [f"trial {result.variant}/{result.case_id}/{result.trial}: {result.outcome}: {result.reason}"]
    if plan:
        lines.append(f"[agent] plan: {plan}")
    lines += [lane.line() for lane in lanes(result)]
    lines.append(score_line(card))
    if risk_flags:
        lines.append(f"[risk] {', '.join(risk_flags)}")
    flags = flag_names(card)
    if flags:
        lines.append(f"[flags] {', '.join(flags)}")
    if card is not None:
        hint = card.get("hint")
        lines.append(f"[hint] {hint}" if hint else "[hint] nothing found")
    return lines


def find_trial(trials: Sequence[TrialResult], spec: str) -> TrialResult:
    """The trial ``VARIANT/CASE/N`` names; UsageError naming --trial when spec is malformed or names none."""
    variant, _, rest = spec.partition("/")
    case_id, _, number = rest.rpartition("/")
    if not variant or not case_id or not number.isdigit() or int(number) < 1:
        raise UsageError(f"--trial {spec!r}: expected VARIANT/CASE/N, e.g. baseline/fix-refund/1")
    for trial in trials:
        if (trial.variant, trial.case_id, trial.trial) == (variant, case_id, int(number)):
            return trial
    variants = sorted({t.variant for t in trials})
    raise UsageError(f"--trial {spec}: the run has no such trial (variants {', '.join(variants) or 'none'})")


def counts_text(counts: Mapping[str, int]) -> str:
    """``2 test downgrades, 0 tampering, 1 unsafe passes, 0 out-of-bounds edits``."""
    return ", ".join(f"{counts[name]} {COUNT_LABELS[name]}" for name in COUNTS)


@dataclass(frozen=True)
class ScoreView:
    """A trial's scorecard as the report shows it (terminal block, JSON entry, HTML section)."""

    plan: str | None
    """The agent's plan line (``runner.report.plan``); None when the transcript shows none."""
    lanes: tuple[Lane, ...]
    """The hidden grader's lane, then each invariant's."""
    line: str
    """The score line."""
    scores: Mapping[str, float | None]
    """Every score of MEANS (all None without a scorecard)."""
    flags: tuple[str, ...]
    """The findings counted per variant that this trial has, in words."""
    risk_flags: tuple[str, ...]
    """The case's risk labels."""
    hint: str | None
    """The scorecard's hint."""
    card: Mapping[str, Any] | None
    """result.json's scorecard as it is (None: the trial has none)."""
    block: tuple[str, ...]
    """The terminal's block of lines."""

    def json(self) -> dict[str, Any]:
        """The JSON document's per-trial entry (without the scorecard itself, which the trial's entry carries)."""
        return {"plan": self.plan, "lanes": [{"name": lane.name, "status": lane.status, "detail": lane.detail,
                                             "command": lane.command} for lane in self.lanes],
                "score_line": self.line, "scores": dict(self.scores), "flags": list(self.flags),
                "risk_flags": list(self.risk_flags), "hint": self.hint, "block": list(self.block)}


def score_view(result: TrialResult, plan: str | None, risk_flags: Sequence[str]) -> ScoreView:
    """The view of one trial's scorecard, with its plan line and its case's risk flags."""
    card = result.scorecard if isinstance(result.scorecard, dict) else None
    found = scores(card) if card is not None else dict.fromkeys(MEANS)
    hint = card.get("hint") if card is not None and isinstance(card.get("hint"), str) else None
    return ScoreView(plan, lanes(result), score_line(card), found, tuple(flag_names(card)), tuple(risk_flags), hint,
                     card, tuple(trial_block(result, plan, risk_flags)))
