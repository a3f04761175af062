"""A trial's candidate without an agent: baseline (the base as it is), oracle (the oracle patch) and regrade (an
earlier trial's patch, with its agent's record)."""

from __future__ import annotations

import shutil

from runner.behaviour.sources import SESSION_FILE, STDERR_FILE, TRAJECTORY_FILE
from runner.sandbox.egress import NETWORK_LOG
from runner.trial.state import Oversized, TrialState
from runner.workspace.snapshots import PatchTooLarge


def given_patch(trial: TrialState) -> tuple[bytes, str | None]:
    """baseline, oracle and regrade: the patch to grade, and an error when there is none to grade."""
    spec, transcript = trial.spec, trial.staging / "transcript.log"
    if spec.mode == "baseline":
        transcript.write_text("[hindcast: baseline: no agent ran, the base is graded as it is]\n")
        patch = b""
    elif spec.mode == "oracle":
        transcript.write_text("[hindcast: oracle: the oracle patch is graded]\n")
        patch = spec.stored.files.oracle_patch
    else:
        saved = spec.saved
        assert saved is not None
        source = saved.result
        trial.facts.update(agent_exit_code=source.agent_exit_code, agent_timed_out=source.agent_timed_out,
                           transcript_bytes=source.transcript_bytes,
                           regraded_from={"run_id": saved.run_id, "outcome": source.outcome,
                                          "reason": source.reason})
        if (saved.directory / "transcript.log").is_file():
            shutil.copyfile(saved.directory / "transcript.log", transcript)
        for name in (TRAJECTORY_FILE, SESSION_FILE, STDERR_FILE, NETWORK_LOG):
            if (saved.directory / name).is_file():
                shutil.copyfile(saved.directory / name, trial.staging / name)
        if source.upstream_lookups:
            trial.facts["upstream_lookups"] = source.upstream_lookups
            trial.flags.append("upstream_lookup")
        if source.outcome == "error" and source.grader_outcome is None:
            return b"", f"source trial was an error: {source.reason}"
        limit = trial.node.confinement.limits.patch
        if (saved.directory / "candidate.patch").stat().st_size > limit:
            raise Oversized(str(PatchTooLarge(limit)))
        patch = (saved.directory / "candidate.patch").read_bytes()
    (trial.staging / "candidate.patch").write_bytes(patch)
    return patch, None
