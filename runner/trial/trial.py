"""One trial as a job: a fresh workspace, its candidate (per mode), fail-closed grading, the evidence in one folder
that the executor publishes."""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corpus import StoredCase, case_fingerprint
from corpus.errors import GitError, HindcastError
from corpus.fsutil import tree_bytes, writing
from corpus.model import TamperingPolicy
from corpus.wordings import wording_text
from runner.behaviour.prices import PriceTable
from runner.behaviour.sources import (
    SESSION_FILE,
    STDERR_FILE,
    TRAJECTORY_FILE,
    TRANSCRIPT_FILE,
    copy_trajectory,
    keep_output,
    keep_session,
)
from runner.behaviour.trial import record_behaviour
from runner.executors.jobs import Node, harness_error
from runner.fixture.server import HTTP_LOG, FixtureServer, http_fixture, in_phase
from runner.grading.assets import CaseAssets
from runner.grading.excerpt import explained
from runner.grading.failclosed import RestoreAction, edited_test_files
from runner.grading.frompatch import GradingSetup, grade_patch
from runner.grading.grader import GradeResult
from runner.grading.invariants import outcome_with_invariants
from runner.process import run_command
from runner.runs.result import REFERENCE_FILE, RESULT_FILE, Durations, Outcome, TrialResult
from runner.sandbox.bwrap import TASK_DIR, WORKSPACE, Bind
from runner.sandbox.confine import PHASE_HOMES, PROMPT_FILE, agent_proxy, phase_sandbox
from runner.sandbox.egress import NETWORK_LOG
from runner.sandbox.loopback import joined
from runner.scorecard.card import score_trial
from runner.trial.agent import MARKER_VAR, agent_environment, agent_error, render_command
from runner.trial.presets import PRESETS, home_files
from runner.workspace.prepare import Prepared, prepare, unfilled
from runner.workspace.snapshots import PatchTooLarge, Snapshots, flatten, is_cache
from runner.workspace.workspace import copy_workspace

DEFAULT_TRANSCRIPT_LIMIT = 10 * 1024 * 1024
ATTEMPT_DIR = "attempt"
"""Where the agent's workspace is moved once the agent ended (the grading workspace takes its place)."""
TASK_DIR_NAME = "task"
OUTPUT_DIR_NAME = "output"
"""The trial's output directory (``{output_dir}``: trajectory files, a CLI's history), outside the workspace, and
its copy in the trial folder."""
OUTPUT_DIR = "/output"
"""Where the output directory is inside the sandbox (read-write)."""
GRADING_DIR = "grading"
"""Where the grading workspace is made before it takes the agent's workspace's place."""


class Cancelled(Exception):
    """The run was interrupted; the trial is not recorded."""


class Unrecordable(Exception):
    """What the agent left in its workspace cannot be taken as a patch: a fail, never an error."""


class Oversized(Exception):
    """The agent's workspace or its patch is over its limit (--workspace-limit, --patch-limit): a fail of its
    own, never graded."""


@dataclass(frozen=True)
class SavedAttempt:
    """regrade: a trial of an earlier run whose candidate patch is graded again."""

    run_id: str
    """The source run."""
    directory: Path
    """The source trial folder."""
    result: TrialResult
    """The source trial's result."""


@dataclass(frozen=True)
class TrialSpec:
    """Which trial to run and how its candidate is produced."""

    stored: StoredCase
    """The case with its hidden files."""
    variant: str
    """Variant name (its folder)."""
    trial: int
    """1-based trial number."""
    mode: str
    """agent, baseline, oracle or regrade."""
    command: str | None = None
    """agent: the command template."""
    saved: SavedAttempt | None = None
    """regrade: the trial whose patch is applied."""
    transcript_format: str = "auto"
    """How the transcript is read into behaviour.json."""
    trajectory_file: str | None = None
    """A file the agent leaves in its workspace, copied as trajectory.json and read instead of the transcript."""
    hosts: tuple[str, ...] = ()
    """The model provider's hosts the agent may reach with --agent-network model (its preset's)."""
    preset: str | None = None
    """The preset the command is: its HOME files are written, its trajectory and session files kept."""
    model: str | None = None
    """The preset's model, None for the CLI's default."""
    wording: str | None = None
    """The id of the case's wording the agent is given (drawn from the run's seed); None: the case's prompt."""


@dataclass(frozen=True)
class TrialContext:
    """Run-wide values every trial shares, plain enough to travel to a Ray worker; where a trial runs (the
    repository, the sandbox, the environment cache, cancellation) is its node's."""

    agent_timeout: float
    """Seconds before the agent's process group is killed."""
    hidden: tuple[str, ...]
    """Paths no variable of the agent's environment may contain (corpus, source repository, results)."""
    test_globs: tuple[str, ...] = ()
    """The corpus's test-file globs (built-in rules when empty)."""
    tampering: TamperingPolicy = "fail"
    """corpus.yaml's `grader_tampering`: what tampering with the grader seen while it ran does to a trial."""
    keep: bool = False
    """Keep the scratch directory (workspace included) after the trial."""
    transcript_limit: int = DEFAULT_TRANSCRIPT_LIMIT
    """Bytes of agent output kept in transcript.log."""
    prices: PriceTable | None = None
    """The user's price table, for agents that report tokens but no cost (--prices)."""


@dataclass(frozen=True)
class TrialJob:
    """One trial as a job for an executor: run on a node (this machine or a Ray worker) into a folder, which the
    executor publishes as the trial's folder in the run directory."""

    spec: TrialSpec
    """Which trial and how its candidate is produced."""
    ctx: TrialContext
    """What every trial of the run shares."""
    target: Path
    """The trial's folder in the run directory."""

    @property
    def name(self) -> str:
        """`variant::case #trial`."""
        return f"{self.spec.variant}::{self.spec.stored.case.id} #{self.spec.trial}"

    @property
    def what(self) -> str:
        """A trial."""
        return "trial"

    @property
    def commits(self) -> tuple[str, str]:
        """The case's base and fix commits."""
        return self.spec.stored.case.base_commit, self.spec.stored.case.fix_commit

    def run(self, node: Node, out: Path) -> TrialResult | None:
        """Run the trial on node, its evidence and result.json written into out; None when the run was cancelled
        meanwhile."""
        spec, ctx, target = self.spec, self.ctx, self.target
        scratch = Path(tempfile.mkdtemp(prefix=f"hindcast-{spec.stored.case.id}-", dir=node.scratch))
        try:
            with writing(target):  # a full disk: the run stops with one error naming the trial's folder
                trial = _Trial(spec, ctx, node, out, scratch)
            result = trial.run(node.assets.get(spec.stored))
            if node.cancel.is_set():
                raise Cancelled
            with writing(target):
                result = record_behaviour(out, result, spec.transcript_format, spec.stored.case, ctx.prices,
                                          spec.model)
                (out / RESULT_FILE).write_text(result.to_json(), encoding="utf-8")
            return result
        except Cancelled:
            return None
        finally:
            if not ctx.keep:
                node.discard(scratch)

    def failed(self, reason: str, seconds: float, out: Path) -> TrialResult:
        """A trial that could not be run (its worker lost too often, the harness broken there): an error."""
        spec, case = self.spec, self.spec.stored.case
        result = TrialResult(case_id=case.id, variant=spec.variant, trial=spec.trial, outcome="error",
                             reason=reason, started=datetime.now(UTC).isoformat(timespec="seconds"),
                             case_fingerprint=case_fingerprint(case, spec.stored.files),
                             durations=Durations(total=round(seconds, 3)), mode=spec.mode, wording=spec.wording)
        (out / "transcript.log").write_text(f"[hindcast: {reason}]\n")
        (out / RESULT_FILE).write_text(result.to_json(), encoding="utf-8")
        return result


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


class _Trial:
    """The steps of one trial, collecting facts for result.json as they are established."""

    def __init__(self, spec: TrialSpec, ctx: TrialContext, node: Node, staging: Path, scratch: Path) -> None:
        self.spec, self.ctx, self.node, self.staging, self.scratch = spec, ctx, node, staging, scratch
        self.case = spec.stored.case
        self.facts: dict[str, Any] = {}
        self.durations: dict[str, float] = {}
        self.flags: list[str] = []
        self.fixture: FixtureServer | None = None
        for name, text in (("transcript.log", ""), ("candidate.patch", ""), ("grader.log", "")):
            (staging / name).write_text(text)
        (staging / REFERENCE_FILE).write_bytes(spec.stored.files.oracle_patch)

    def run(self, assets: CaseAssets | HindcastError) -> TrialResult:
        started = datetime.now(UTC).isoformat(timespec="seconds")
        clock = time.monotonic()
        try:
            with self._http_fixture():
                outcome, reason = self._steps(assets)
        except HindcastError as exc:
            outcome, reason = "error", exc.message
        except OSError as exc:
            harness_error(exc, self.staging)
            outcome, reason = "error", f"harness: {exc.strerror or exc}"
        except Cancelled:
            raise
        except Exception as exc:  # noqa: BLE001 - one trial's harness failure must not end the run
            outcome, reason = "error", harness_error(exc, self.staging)
        self.durations["total"] = round(time.monotonic() - clock, 3)
        return TrialResult(
            case_id=self.case.id, variant=self.spec.variant, trial=self.spec.trial, outcome=outcome,
            reason=reason, case_fingerprint=case_fingerprint(self.case, self.spec.stored.files), started=started,
            durations=Durations(**self.durations), mode=self.spec.mode, flags=tuple(self.flags),
            kept=str(self.scratch) if self.ctx.keep else None, wording=self.spec.wording, **self.facts)

    @contextmanager
    def _http_fixture(self) -> Iterator[None]:
        """The case's HTTP fixture for the whole trial; its requests are recorded in http.json at the end."""
        with http_fixture(self.case, self.spec.stored.files, self.staging / HTTP_LOG) as self.fixture:
            yield

    def _prompt(self) -> str:
        """The prompt as the agent reads it, in the trial's wording: `{{HTTP_URL}}` is the trial's fixture's URL."""
        text = wording_text(self.case, self.spec.wording)
        return self.fixture.substitute(text) if self.fixture else text

    def _check(self) -> None:
        if self.node.cancel.is_set():
            raise Cancelled

    def _steps(self, assets: CaseAssets | HindcastError) -> tuple[Outcome, str]:
        self._write_prompt()
        if isinstance(assets, HindcastError):
            raise assets
        seeded = self._seed_grading(assets) if self.spec.mode == "agent" and not self.case.setup.command else None
        try:
            return self._graded_steps(assets, seeded)
        finally:
            if seeded is not None:  # never a copy still writing into a scratch directory being removed
                wait([seeded])

    def _seed_grading(self, assets: CaseAssets) -> Future[Path]:
        """Without a setup command the grading workspace is a copy of the pristine checkout: made from the
        trial's start, beside the agent's own copy, the agent and the recording, out of the agent's sight (a
        thread of its own, gone with the trial: no idle thread outlives a run in the process)."""
        background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hindcast-grading-workspace")
        seeded = background.submit(copy_workspace, assets.pristine, self.scratch / GRADING_DIR)
        background.shutdown(wait=False)
        return seeded

    def _graded_steps(self, assets: CaseAssets, seeded: Future[Path] | None) -> tuple[Outcome, str]:
        spec, ctx, node = self.spec, self.ctx, self.node
        clock = time.monotonic()
        # Nothing to set up: the agent's workspace is copied while its sandbox starts (_attempt), not before.
        bare = unfilled(self.case, self.scratch) if seeded is not None else None
        try:
            prepared = bare or prepare(self.case, node.repo, self.scratch, pristine=assets.pristine,
                                       confinement=node.confinement, env_cache=node.env_cache, cancel=node.cancel)
        finally:
            self.durations["setup"] = round(time.monotonic() - clock, 3)
        self.facts["env_cache"] = prepared.env_cache
        self.facts["resolution"] = prepared.resolution or None
        self._check()
        clock = time.monotonic()
        changed: list[str] | None = None
        try:
            if spec.mode == "agent":
                patch, changed, failure = self._attempt(prepared, assets, seeded, fill=bare is not None)
            else:
                patch, failure = self._given_patch()
        except Unrecordable as exc:
            (self.staging / "grader.log").write_text(f"[hindcast: not graded: {exc}]\n")
            return "fail", f"the workspace the agent left cannot be recorded as a patch: {exc}"
        except Oversized as exc:
            (self.staging / "grader.log").write_text(f"[hindcast: not graded: {exc}]\n")
            self.flags.append("over_limit")
            return "fail", str(exc)
        finally:
            self.durations["agent"] = round(time.monotonic() - clock, 3)
        if failure:
            (self.staging / "grader.log").write_text(f"[hindcast: not graded: {failure}]\n")
            return "error", failure
        self._check()
        clock = time.monotonic()
        try:
            setup = GradingSetup(self.case, spec.stored.files, assets.fix_config, assets.base_config,
                                 ctx.test_globs, ctx.tampering)
            env, loopback = in_phase(self.fixture, prepared.env, "grader")
            graded = grade_patch(setup, prepared.workspace, patch, env, node.confinement, self.scratch,
                                 self.staging / "grader.log", env_binds=prepared.env_binds(),
                                 candidate=spec.mode in ("agent", "regrade"),
                                 what="oracle patch" if spec.mode == "oracle" else "candidate patch",
                                 touched=changed, loopback=loopback, invariants=True)
        finally:
            self.durations["grader"] = round(time.monotonic() - clock, 3)
        self._check()
        if changed is None:
            self._record_changes(list(graded.touched))
        self._record_restoration(graded.restored)
        self.flags.extend(flag for flag in graded.flags if flag not in self.flags)
        if graded.seal is not None and (graded.seal.events or graded.static or graded.seal.disagreement):
            self.facts["seal"] = {**graded.seal.to_dict(),
                                  "static": [{"path": h.path, "flag": h.flag, "reason": h.reason}
                                             for h in graded.static]}
        result = graded.result
        self.facts.update(grader_outcome=result.outcome, grader_reason=result.reason,
                          grader_exit_code=result.exit_code, **explained(self.case.grader, result,
                                                                          self.staging / "grader.log"))
        self.facts["scorecard"] = score_trial(self.case, spec.stored.files, patch, assets.pristine, graded,
                                              ctx.test_globs)
        return self._decide(outcome_with_invariants(self.case, result, graded.invariants))

    def _record_restoration(self, restored: tuple[RestoreAction, ...]) -> None:
        self.facts["restored"] = tuple({"path": a.path, "action": a.action, "cause": a.cause, "kind": a.kind}
                                       for a in restored)
        for kind, cause, flag in (("config", "edited", "edited_test_config"), ("config", "added", "added_test_config"),
                                  ("shadow", "added", "shadowing_module"), ("metadata", None, "package_metadata")):
            if any(a.kind == kind and (cause is None or a.cause == cause) for a in restored):
                self.flags.append(flag)

    def _attempt(self, prepared: Prepared, assets: CaseAssets, seeded: Future[Path] | None,
                 fill: bool = False) -> tuple[bytes, list[str], str | None]:
        """Run the agent in its workspace, take its patch (and the paths it touches), and put a fresh grading
        workspace in its place (seeded: its copy under way, `_seed_grading`); the agent's error, if any, last.
        fill: the workspace is still empty, copied from the pristine checkout while the agent's sandbox starts."""
        workspace, scratch = prepared.workspace, self.scratch
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
            self._check()
            failure = self._run_agent(prepared, held)
            self._check()
            limits = self.node.confinement.limits
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
        (self.staging / "candidate.patch").write_bytes(patch)
        self._record_changes(changed)
        self.facts["ignored_files"] = tuple(ignored)
        if flattened:
            self.flags.append("special_files")
            self.facts["removed_files"] = tuple(flattened)
        if any(not is_cache(p) for p in ignored):
            self.flags.append("ignored_files")
        os.rename(workspace, scratch / ATTEMPT_DIR)
        os.rename(scratch / GRADING_DIR, workspace)
        return patch, changed, failure

    def _record_changes(self, changed: list[str]) -> None:
        grader_paths = [p for p, _ in self.spec.stored.files.grader_files] + list(self.case.grader.deleted)
        edits = edited_test_files(changed, grader_paths, self.ctx.test_globs)
        self.facts.update(changed_files=tuple(changed), test_edits=tuple(edits))
        if edits:
            self.flags.append("edited_tests")

    def _write_prompt(self) -> None:
        saved = self.spec.saved
        if saved is not None and (saved.directory / "prompt.md").is_file():
            shutil.copyfile(saved.directory / "prompt.md", self.staging / "prompt.md")
        else:
            (self.staging / "prompt.md").write_text(self._prompt(), encoding="utf-8")

    def _given_patch(self) -> tuple[bytes, str | None]:
        """baseline, oracle and regrade: the patch to grade, and an error when there is none to grade."""
        spec, transcript = self.spec, self.staging / "transcript.log"
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
            self.facts.update(agent_exit_code=source.agent_exit_code, agent_timed_out=source.agent_timed_out,
                              transcript_bytes=source.transcript_bytes,
                              regraded_from={"run_id": saved.run_id, "outcome": source.outcome,
                                             "reason": source.reason})
            if (saved.directory / "transcript.log").is_file():
                shutil.copyfile(saved.directory / "transcript.log", transcript)
            for name in (TRAJECTORY_FILE, SESSION_FILE, STDERR_FILE, NETWORK_LOG):
                if (saved.directory / name).is_file():
                    shutil.copyfile(saved.directory / name, self.staging / name)
            if source.upstream_lookups:
                self.facts["upstream_lookups"] = source.upstream_lookups
                self.flags.append("upstream_lookup")
            if source.outcome == "error" and source.grader_outcome is None:
                return b"", f"source trial was an error: {source.reason}"
            limit = self.node.confinement.limits.patch
            if (saved.directory / "candidate.patch").stat().st_size > limit:
                raise Oversized(str(PatchTooLarge(limit)))
            patch = (saved.directory / "candidate.patch").read_bytes()
        (self.staging / "candidate.patch").write_bytes(patch)
        return patch, None

    def _run_agent(self, prepared: Prepared, held: Callable[[], None] | None = None) -> str | None:
        """Run the agent's command (held: what must be done before it starts, done while its sandbox starts);
        the agent's error, if any."""
        spec, ctx, conf = self.spec, self.ctx, self.node.confinement
        assert spec.command is not None
        preset = PRESETS.get(spec.preset) if spec.preset else None
        task = self.scratch / TASK_DIR_NAME
        task.mkdir()
        (task / "prompt.md").write_text(self._prompt(), encoding="utf-8")
        output = self.scratch / OUTPUT_DIR_NAME
        output.mkdir()
        marker = f"{MARKER_VAR}={secrets.token_hex(8)}"
        env, loopback = in_phase(self.fixture, agent_environment(prepared.env, (*ctx.hidden, *self.node.hide), marker), "agent")
        proxy = agent_proxy(conf, spec.hosts, loopback.ports if loopback else ())
        if proxy is not None:
            env, loopback = {**env, **proxy.env()}, joined(loopback, proxy.loopback())
        sandbox = phase_sandbox(conf, "agent", self.scratch, workspace=prepared.workspace, env=env,
                                extra=(*prepared.env_binds(), Bind(task, TASK_DIR), Bind(output, OUTPUT_DIR, True)),
                                loopback=loopback)
        if sandbox is not None:
            places = {"workspace": WORKSPACE, "prompt_file": PROMPT_FILE, "output_dir": OUTPUT_DIR}
            home = sandbox.home
        else:
            places = {"workspace": str(prepared.workspace), "prompt_file": str(task / "prompt.md"),
                      "output_dir": str(output)}
            home = self.scratch / PHASE_HOMES["agent"]
            if preset is not None:  # a preset's files never go into the user's own HOME
                home.mkdir(exist_ok=True)
                env = {**env, "HOME": str(home)}
        if preset is not None:
            inside = sandbox.env if sandbox is not None else env
            write_home_files(home, home_files(preset, spec.model, inside))
        command = render_command(spec.command, {**places, "case_id": self.case.id, "trial": str(spec.trial)})
        try:
            ran = run_command(command, prepared.workspace, env, ctx.agent_timeout, self.staging / TRANSCRIPT_FILE,
                              max_output_bytes=ctx.transcript_limit, marker=None if sandbox else marker,
                              sandbox=sandbox, stderr_path=self.staging / STDERR_FILE, held=held)
        finally:
            if proxy is not None:
                proxy.stop()
                proxy.write_log(self.staging / NETWORK_LOG, conf.agent_network)
        self.facts.update(agent_exit_code=ran.exit_code, agent_timed_out=ran.timed_out,
                          transcript_bytes=ran.output_bytes)
        if ran.truncated:
            self.flags.append("transcript_truncated")
        keep_output(output, self.staging / OUTPUT_DIR_NAME)
        # a trajectory the agent should have left and did not: behaviour is then read from the transcript
        if spec.trajectory_file:
            missing = copy_trajectory(prepared.workspace, spec.trajectory_file, self.staging)
        elif preset is not None and preset.trajectory:
            missing = copy_trajectory(output, preset.trajectory, self.staging)
        else:
            missing = None
        if missing:
            self.flags.append("trajectory_missing")
        if preset is not None and preset.session:
            keep_session(home, preset.session, self.staging)
        failure = agent_error(ran)
        if proxy is not None:
            if lookups := proxy.upstream_lookups():
                self.flags.append("upstream_lookup")
                self.facts["upstream_lookups"] = lookups
            never = proxy.never_reached() if ran.start_error is None else None
            if never is not None:  # fails closed: nothing was measured, so the workspace is not graded
                return f"{never} ({failure})" if failure else never
        return failure

    def _decide(self, graded: GradeResult) -> tuple[Outcome, str]:
        if self.facts.get("agent_timed_out"):
            return "fail", (f"agent timed out after {self.ctx.agent_timeout:g}s "
                            f"(partial work graded: {graded.outcome}: {graded.reason})")
        return graded.outcome, graded.reason
