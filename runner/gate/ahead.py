"""What a run about to start will not let the gate do, said before its first trial."""

from __future__ import annotations

from corpus import Corpus
from runner.gate.pairing import MIN_TRIALS, case_index


def gate_warnings(corpus: Corpus, case_ids: tuple[str, ...], all_cases: bool, trials: int | None) -> tuple[str, ...]:
    """Warnings for a run of agents over these cases: too few trials for `runner compare` to gate at all, and no
    case that can block (every chosen case advisory, so the gate can only warn). Holdout cases count as the
    release gate (`compare --holdout`) counts them."""
    lines: list[str] = []
    if trials is not None and trials < MIN_TRIALS:
        lines.append(f"warning: --trials {trials}: runner compare needs at least {MIN_TRIALS} non-error trials per "
                     f"case, so this run can be reported but not gated")
    index = case_index(corpus)
    chosen = [c for c, info in index.items() if info.status == "active"] if all_cases else \
        [c for c in dict.fromkeys(case_ids) if c in index]
    if chosen and not any(index[c].blocking for c in chosen):
        lines.append(f"warning: every case of this run is advisory ({len(chosen)}), so runner compare can warn but "
                     f"never block on it (make the cases that must hold blocking: authoring set --policy blocking "
                     f"ID..., or --critical)")
    return tuple(lines)
