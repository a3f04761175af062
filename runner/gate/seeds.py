"""Rule wording-seed: two agent runs whose prompts' wordings were drawn from different seeds.

A case with several wordings gives trial n the wording ``corpus.wordings.draw`` picks from the run's seed, so two runs
with one seed give each trial the same wording and pair trial by trial. With different seeds trial n may have had
another prompt in each run, and a change of a case may be the wording's rather than the agent's: the gate warns,
naming the seeds and the compared cases with several wordings. With one wording per case the seed draws nothing and
the rule is silent; runs in another mode than agent draw no wording.
"""

from __future__ import annotations

from collections.abc import Sequence

from runner.gate.finding import Finding
from runner.gate.pairing import Row, RunTrials

SHOWN = 5
"""Case keys the finding names before "and N more"."""


def wording_seed_findings(baseline: RunTrials, candidate: RunTrials, rows: Sequence[Row]) -> list[Finding]:
    """WARN when two agent runs drew their wordings from different seeds and a compared case has several."""
    if baseline.seed == candidate.seed or baseline.mode != "agent" or candidate.mode != "agent":
        return []
    worded = [r.key for r in rows if r.baseline is not None and r.candidate is not None
              and any(len(meta.wordings) > 1 for run in (baseline, candidate)
                      if (meta := run.cases_meta.get(r.case_id)) is not None)]
    if not worded:
        return []
    keys = ", ".join(worded[:SHOWN]) + (f" and {len(worded) - SHOWN} more" if len(worded) > SHOWN else "")
    return [Finding("WARN", "wording-seed", (
        f"the runs drew their prompts' wordings from different seeds (baseline {baseline.seed}, candidate "
        f"{candidate.seed}): {len(worded)} compared case{'' if len(worded) == 1 else 's'} with several wordings "
        f"({keys}) may have given a trial another wording in each run, so a change there may be the wording's, "
        f"not the agent's; run both with one --seed to pair them trial by trial (rule wording-seed)"))]
