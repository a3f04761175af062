"""The agent's phase of a trial: its command run in its sandbox, what it left taken as a patch, and the grading
workspace put in its place."""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path

from corpus.errors import GitError
from corpus.fsutil import tree_bytes
from runner.behaviour.sources import STDERR_FILE, TRANSCRIPT_FILE, copy_trajectory, keep_output, keep_session
from runner.fixture.server import in_phase
from runner.grading.assets import CaseAssets
from runner.process import run_command
from runner.sandbox.bwrap import TASK_DIR, WORKSPACE, Bind
from runner.sandbox.confine import PHASE_HOMES, PROMPT_FILE, agent_proxy, phase_sandbox
from runner.sandbox.egress import NETWORK_LOG
from runner.sandbox.loopback import joined
from runner.trial.agent import MARKER_VAR, agent_environment, agent_error, render_command
from runner.trial.presets import PRESETS, home_files
from runner.trial.state import (
    ATTEMPT_DIR,
    GRADING_DIR,
    OUTPUT_DIR,
    OUTPUT_DIR_NAME,
    TASK_DIR_NAME,
    Oversized,
    TrialState,
    Unrecordable,
)
from runner.workspace.prepare import Prepared
from runner.workspace.snapshots import PatchTooLarge, Snapshots, flatten, is_cache
from runner.workspace.workspace import copy_workspace


def write_home_files(home: Path, files: dict[str, str]) -> None:
    """Write a preset's files into the agent's HOME, each unless a file is there already (--agent-home put the
    user's own there: it wins)."""
    for relative, text in files.items():
        path = home / relative
        if path.exists() or path.is_symlink():
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _check_size(workspace: Path, limit: int | None) -> None:
    """Oversized when the workspace holds more than limit bytes."""
    if limit is None:
        return
    size = tree_bytes(workspace, limit)
    if size > limit:
        raise Oversized(f"the agent's workspace is over {limit} bytes when it ended (--workspace-limit)")


def attempt(trial: TrialState, prepared: Prepared, assets: CaseAssets, seeded: Future[Path] | None,
            fill: bool = False) -> tuple[bytes, list[str], str | None]:
    """Run the agent in its workspace, take its patch (and the paths it touches), and put a fresh grading
    workspace in its place (seeded: its copy under way, `runner.trial.trial.seed_grading`); the agent's error,
    if any, last. fill: the workspace is still empty, copied from the pristine checkout while the agent's
    sandbox starts."""
    workspace, scratch = prepared.workspace, trial.scratch
    snapshots = Snapshots(assets.template, workspace, scratch / "private")
    held: Callable[[], None] | None = None
    if seeded is None:
        snapshots.take("setup", stat_cache=workspace / ".git" / "index")
        setup_tree = snapshots.tree("setup")
        ignored_at_setup = snapshots.ignored("setup")
        copy_workspace(workspace, scratch / GRADING_DIR)  # the seed: base after setup
    else:  # nothing ran in the workspace since its checkout: the setup state is the base tree
        setup_tree, ignored_at_setup = assets.base_tree, set()

        def held() -> None:
            if fill:
                copy_workspace(assets.pristine, workspace, made=True)
            shutil.copy2(workspace / ".git" / "index", snapshots.index("setup"))
    try:
        trial.check()
        failure = run_agent(trial, prepared, held)
        trial.check()
        limits = trial.node.confinement.limits
        _check_size(workspace, limits.workspace)
        try:
            flattened = flatten(workspace)
            snapshots.take("final", stat_cache=snapshots.index("setup"))
            patch, changed, ignored_at_end = snapshots.diff_and_ignored(setup_tree, "final", limit=limits.patch)
            ignored = sorted(ignored_at_end - ignored_at_setup)
        except PatchTooLarge as exc:
            raise Oversized(str(exc)) from None
        except (GitError, OSError) as exc:  # only what the agent left can make this fail
            raise Unrecordable(str(exc)) from None
    finally:
        if seeded is not None:
            seeded.result()
    (trial.staging / "candidate.patch").write_bytes(patch)
    trial.record_changes(changed)
    trial.facts["ignored_files"] = tuple(ignored)
    if flattened:
        trial.flags.append("special_files")
        trial.facts["removed_files"] = tuple(flattened)
    if any(not is_cache(p) for p in ignored):
        trial.flags.append("ignored_files")
    os.rename(workspace, scratch / ATTEMPT_DIR)
    os.rename(scratch / GRADING_DIR, workspace)
    return patch, changed, failure


def run_agent(trial: TrialState, prepared: Prepared, held: Callable[[], None] | None = None) -> str | None:
    """Run the agent's command (held: what must be done before it starts, done while its sandbox starts);
    the agent's error, if any."""
    spec, ctx, conf = trial.spec, trial.ctx, trial.node.confinement
    assert spec.command is not None
    preset = PRESETS.get(spec.preset) if spec.preset else None
    task = trial.scratch / TASK_DIR_NAME
    task.mkdir()
    (task / "prompt.md").write_text(trial.prompt(), encoding="utf-8")
    output = trial.scratch / OUTPUT_DIR_NAME
    output.mkdir()
    marker = f"{MARKER_VAR}={secrets.token_hex(8)}"
    hidden = (*ctx.hidden, *trial.node.hide)
    env, loopback = in_phase(trial.fixture, agent_environment(prepared.env, hidden, marker), "agent")
    proxy = agent_proxy(conf, spec.hosts, loopback.ports if loopback else ())
    if proxy is not None:
        env, loopback = {**env, **proxy.env()}, joined(loopback, proxy.loopback())
    sandbox = phase_sandbox(conf, "agent", trial.scratch, workspace=prepared.workspace, env=env,
                            extra=(*prepared.env_binds(), Bind(task, TASK_DIR), Bind(output, OUTPUT_DIR, True)),
                            loopback=loopback)
    if sandbox is not None:
        places = {"workspace": WORKSPACE, "prompt_file": PROMPT_FILE, "output_dir": OUTPUT_DIR}
        home = sandbox.home
    else:
        places = {"workspace": str(prepared.workspace), "prompt_file": str(task / "prompt.md"),
                  "output_dir": str(output)}
        home = trial.scratch / PHASE_HOMES["agent"]
        if preset is not None:  # a preset's files never go into the user's own HOME
            home.mkdir(exist_ok=True)
            env = {**env, "HOME": str(home)}
    if preset is not None:
        inside = sandbox.env if sandbox is not None else env
        write_home_files(home, home_files(preset, spec.model, inside))
    command = render_command(spec.command, {**places, "case_id": trial.case.id, "trial": str(spec.trial)})
    try:
        ran = run_command(command, prepared.workspace, env, ctx.agent_timeout, trial.staging / TRANSCRIPT_FILE,
                          max_output_bytes=ctx.transcript_limit, marker=None if sandbox else marker,
                          sandbox=sandbox, stderr_path=trial.staging / STDERR_FILE, held=held)
    finally:
        if proxy is not None:
            proxy.stop()
            proxy.write_log(trial.staging / NETWORK_LOG, conf.agent_network)
    trial.facts.update(agent_exit_code=ran.exit_code, agent_timed_out=ran.timed_out,
                       transcript_bytes=ran.output_bytes)
    if ran.truncated:
        trial.flags.append("transcript_truncated")
    keep_output(output, trial.staging / OUTPUT_DIR_NAME)
    # a trajectory the agent should have left and did not: behaviour is then read from the transcript
    if spec.trajectory_file:
        missing = copy_trajectory(prepared.workspace, spec.trajectory_file, trial.staging)
    elif preset is not None and preset.trajectory:
        missing = copy_trajectory(output, preset.trajectory, trial.staging)
    else:
        missing = None
    if missing:
        trial.flags.append("trajectory_missing")
    if preset is not None and preset.session:
        keep_session(home, preset.session, trial.staging)
    failure = agent_error(ran)
    if proxy is not None:
        if lookups := proxy.upstream_lookups():
            trial.flags.append("upstream_lookup")
            trial.facts["upstream_lookups"] = lookups
        never = proxy.never_reached() if ran.start_error is None else None
        if never is not None:  # fails closed: nothing was measured, so the workspace is not graded
            return f"{never} ({failure})" if failure else never
    return failure
