"""`runner verify`: prove each case's broken base fails its hidden grader and its oracle passes it, measuring
which tests fail at base and pass with the oracle (`runner.verify.measure`)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal, cast

from corpus import Corpus, StoredCase, case_fingerprint, corpus_fingerprint
from corpus.errors import HindcastError, UsageError
from corpus.fsutil import hindcast_temp
from corpus.gitutil import open_repository
from corpus.layout import Kind
from corpus.model import Case, Grader
from runner.envs.cache import open_env_cache
from runner.envs.environment import uv_binary
from runner.executors.jobs import Janitor, Node, not_removed, run_jobs
from runner.executors.local import executor_for
from runner.grading.assets import AssetCache
from runner.grading.grader import judge_tests
from runner.sandbox.confine import confine, harness_dirs, hidden_paths
from runner.settings import Settings
from runner.verify.ahead import BuildAhead
from runner.verify.attempt import SIDES, Attempt, AttemptJob
from runner.verify.keep import LOGS_DIR, keep_attempt, publish_logs
from runner.verify.measure import Measured, collection_failures, measure, measuring_case, missing_collection
from runner.verify.progress import Step, StepName
from runner.verify.record import record_candidate_verdict, record_verdicts
from runner.verify.schedule import BuildersFirst

Verdict = Literal["VALID", "INVALID", "ERROR"]
FEATURE_REASON = "feature: the base lacks the names or signatures the tests use; the prompt must specify them"
MIXED_REASON = ("mixed: some tests fail at base for lack of the names or signatures they use, others on the bug; "
                "the prompt must specify the new interface")
BASE_RUNS = 2
"""The base side runs at least this often when its tests are measured: a test enters fail_to_pass only when its
base failure repeats (a timing test that fails once under load is unstable, never an expectation)."""


def side_runs(case: Case, repeats: int) -> dict[str, int]:
    """How often each side of a case runs: repeats, and the base at least BASE_RUNS times when verify measures
    its tests (a JUnit report)."""
    base = max(repeats, BASE_RUNS) if case.grader.junit is not None else repeats
    return {"baseline": base, "oracle": repeats}


@dataclass(frozen=True)
class VerifyOptions:
    """What to verify and how."""

    case_ids: tuple[str, ...] = ()
    """Cases to verify; empty means every active case (candidates need all_cases)."""
    repeats: int = 1
    """How many times each side runs; every run must agree."""
    settings: Settings = field(default_factory=Settings)
    """How the attempts run: jobs, sandbox, environment cache, executor, --keep (every attempt's workspace and
    logs kept, expected or not)."""
    repo: Path | None = None
    """Source repository overriding corpus.yaml's."""
    kind: Kind = "cases"
    """Verify approved cases or the miner's candidates."""
    scratch_root: Path | None = None
    """Where scratch directories are made (default: corpus.fsutil.hindcast_temp, the one the sandbox hides)."""
    all_cases: bool = False
    """Every active case, or every candidate (`--all`)."""
    update: bool = False
    """Write the measured grader into approved cases too (candidates always get it)."""
    top: int | None = None
    """Of the selection, the best-scored this many (mined.score, then id); implies every case or candidate."""
    min_score: float | None = None
    """Only those the miner scored at least this; implies every case or candidate."""
    since: str | None = None
    """Only fixes authored on or after this ISO date (YYYY-MM-DD); implies every case or candidate."""

    @property
    def narrowed(self) -> bool:
        """True when --top, --min-score or --since narrows the selection."""
        return self.top is not None or self.min_score is not None or self.since is not None


@dataclass(frozen=True)
class CaseVerdict:
    """A case's verdict over all its attempts."""

    case_id: str
    """The case."""
    verdict: Verdict
    """VALID, INVALID or ERROR."""
    reason: str
    """Why (empty for VALID, unless it is a feature)."""
    case_fingerprint: str
    """The case fingerprint it was verified at (after the measured grader was written, when it was)."""
    attempts: tuple[Attempt, ...]
    """Every attempt, baseline and oracle."""
    feature: bool = False
    """The base fails only for lack of the names or signatures the tests use."""
    mixed: bool = False
    """Some tests fail at base for lack of an interface, others on the bug (the prompt must name the interface)."""
    measured: Measured | None = None
    """The tests measured on both sides (None without a JUnit report or when an attempt erred)."""
    written: bool = False
    """True when the measured grader was written into the case or candidate."""
    current: bool = False
    """True when the case's grader already held what was measured (nothing to write)."""
    logs: str | None = None
    """The directory of the kept logs of its unexpected attempts (or all attempts with --keep)."""


@dataclass(frozen=True)
class VerifyReport:
    """All verdicts of one verify call."""

    verdicts: list[CaseVerdict]
    """One per case, in id order."""
    dataset_fingerprint: str | None
    """Fingerprint of the corpus's active cases at the time; None when candidates were verified (they are no
    dataset) or the corpus has no case (a fingerprint of nothing is no dataset either)."""
    warnings: tuple[str, ...] = ()
    """What the harness could not clean up (a scratch directory not removed)."""

    @property
    def all_valid(self) -> bool:
        """True when every verified case is VALID."""
        return all(v.verdict == "VALID" for v in self.verdicts)


def cases_to_verify(corpus: Corpus, options: VerifyOptions) -> list[StoredCase]:
    """The named cases (each must exist), or every one: `--all`, or no `--case` for approved cases."""
    kind, case_ids = options.kind, options.case_ids
    if case_ids and (options.all_cases or options.narrowed):
        raise UsageError("--case excludes --all, --top, --min-score and --since")
    if case_ids:
        known = set(corpus.ids(kind))
        missing = [c for c in case_ids if c not in known]
        if missing:
            other: Kind = "candidates" if kind == "cases" else "cases"
            hint = (f" (it is {'an approved case: drop --candidates' if other == 'cases' else 'a candidate: add --candidates'})"
                    if missing[0] in corpus.ids(other) else "")
            raise UsageError(f"--case {missing[0]}: no such {'case' if kind == 'cases' else 'candidate'} in "
                             f"{corpus.root}{hint}")
        return [corpus.load(c, kind) for c in dict.fromkeys(case_ids)]
    if kind == "candidates" and not (options.all_cases or options.narrowed):
        raise UsageError("--candidates needs --case ID, --all (every candidate) or --top N")
    chosen = corpus.load_all(kind, active_only=True)
    if not options.narrowed:
        return chosen

    def score(stored: StoredCase) -> float:
        return stored.case.mined.score if stored.case.mined else 0.0

    def authored(stored: StoredCase) -> str:
        return (stored.case.mined.authored or "") if stored.case.mined else ""

    if options.min_score is not None:
        chosen = [s for s in chosen if score(s) >= options.min_score]
    if options.since is not None:
        chosen = [s for s in chosen if authored(s)[:10] >= options.since]
    if options.top is not None:
        chosen = sorted(chosen, key=lambda s: (-score(s), s.case.id))[:options.top]
    return sorted(chosen, key=lambda s: s.case.id)


def verify(corpus: Corpus, options: VerifyOptions, progress: Callable[[str], None] | None = None,
           on_verdict: Callable[[CaseVerdict], None] | None = None,
           on_start: Callable[[int, int], None] | None = None,
           on_step: Callable[[Step], None] | None = None) -> VerifyReport:
    """Verify the selected cases; record the verdicts (verification.json for cases, each candidate its own) and
    write the measured grader into candidates (and cases with update).

    The attempts are jobs of the executor the settings choose (threads here, or a Ray cluster), whose logs are
    published under this call's scratch root. on_start gets the numbers of cases and attempts about to run, progress a line
    per finished attempt as it ends, on_step each step an attempt starts and its end (from the attempts' threads,
    where they run on this machine), on_verdict each case's verdict as soon as it is known (in case order)."""
    settings = options.settings.absolute()
    if options.repeats < 1 or settings.jobs < 1:
        raise UsageError("--repeats and --jobs must be at least 1")
    repo = open_repository(corpus.repo_path(options.repo))
    cases = cases_to_verify(corpus, options)
    if settings.executor == "ray":
        from runner.executors.ray_executor import connect

        connect(settings)
    scratch_root = options.scratch_root or hindcast_temp()
    conf = confine(settings, hidden_paths(corpus.root, repo, scratch_root, *harness_dirs()))
    uv_binary()  # what the trials' threads need of the interpreter, resolved before they start
    env_cache = open_env_cache(settings.env_cache)
    scratch_root.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="hindcast-verify-", dir=scratch_root))
    verdicts: list[CaseVerdict] = []
    runs = {stored.case.id: side_runs(stored.case, options.repeats) for stored in cases}
    if on_start:
        on_start(len(cases), sum(sum(n.values()) for n in runs.values()))
    jobs = {stored.case.id: [AttemptJob(stored, side, r, corpus.config.test_globs, settings.keep,
                                        root / LOGS_DIR / stored.case.id / f"{side}-{r}")
                             for r in range(1, max(runs[stored.case.id].values()) + 1) for side in SIDES
                             if r <= runs[stored.case.id][side]]
            for stored in cases}
    ended: dict[AttemptJob, Attempt] = {}
    named = {job.name: job for case_jobs in jobs.values() for job in case_jobs}
    order = BuildersFirst([(case_id, job) for case_id, case_jobs in jobs.items() for job in case_jobs])

    def step(name: str, which: str) -> None:
        job = named[name]
        if which in SIDES:  # grading: the environment is there
            order.ready(job)
        if on_step is not None:
            on_step(Step(job.stored.case.id, job.side, job.repeat, cast(StepName, which)))

    def done(job: AttemptJob, attempt: Attempt | None) -> bool:
        order.ended(job)
        if attempt is not None:
            ended[job] = replace(attempt, logs=str(job.target))
            if on_step is not None:
                on_step(Step(job.stored.case.id, job.side, job.repeat, "done", attempt.outcome, attempt.duration))
            if progress:
                progress(f"{job.stored.case.id}: {job.side} #{job.repeat}: {attempt.outcome}")
        while len(verdicts) < len(cases) and all(j in ended for j in jobs[cases[len(verdicts)].case.id]):
            stored = cases[len(verdicts)]
            attempts = [ended.pop(j) for j in jobs[stored.case.id]]
            verdict = conclude(corpus, stored, attempts, options)
            verdicts.append(verdict)
            if options.kind == "candidates":
                record_candidate_verdict(corpus, verdict)
            if on_verdict:
                on_verdict(verdict)
        return True

    janitor = Janitor()
    warnings: list[str] = []
    try:
        node = Node(repo, AssetCache(repo, root / "templates"), conf, env_cache, scratch=root,
                    discard=janitor.discard, step=step)
        executor = executor_for(settings, node)
        ahead = BuildAhead(cases, node, order, settings.jobs) if env_cache is not None and settings.executor == "local" else None
        try:  # Ctrl-C: every attempt is stopped, nothing of this verify stays on a cluster
            if ahead is not None:
                ahead.start()
            run_jobs(executor, order, settings.jobs, done)
        finally:
            if ahead is not None:
                ahead.stop()
            executor.close()
    except KeyboardInterrupt:
        partial = _recorded(corpus, options, verdicts, warnings, record=bool(verdicts))
        raise Interrupted(partial, len(cases)) from None
    finally:
        if env_cache is not None:
            env_cache.close()
        warnings += not_removed(janitor.close(root))
    return _recorded(corpus, options, verdicts, warnings)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped verify: every attempt was stopped, the verdicts of the cases that finished are recorded,
    no other case's record changed."""

    def __init__(self, report: VerifyReport, selected: int) -> None:
        super().__init__()
        self.report = report
        """The verdicts reached before the interrupt (recorded)."""
        self.selected = selected
        """How many cases were selected."""


def _recorded(corpus: Corpus, options: VerifyOptions, verdicts: list[CaseVerdict], warnings: list[str],
              record: bool = True) -> VerifyReport:
    """The report of verdicts, recorded unless told (candidates record theirs one by one as they are reached)."""
    all_cases = corpus.load_all("cases") if options.kind == "cases" and record else []
    fingerprint = corpus_fingerprint((s.case, s.files) for s in all_cases) if all_cases else None
    report = VerifyReport(list(verdicts), fingerprint, tuple(warnings))
    if options.kind == "cases" and record:
        record_verdicts(corpus, report)
    return report


def conclude(corpus: Corpus, stored: StoredCase, attempts: list[Attempt], options: VerifyOptions) -> CaseVerdict:
    """The case's verdict from its attempts: the measured tests, the grader judged on the same reports, the
    measured grader written where it belongs, the logs of unexpected attempts kept."""
    grader_paths = [path for path, _ in stored.files.grader_files]
    attempts = [_base_collection(a, grader_paths) for a in attempts]
    measured = None
    target = stored.case.grader
    write = options.kind == "candidates" or options.update
    if stored.case.grader.junit is not None and not any(a.outcome == "error" for a in attempts):
        runs = {side: [a.tests for a in sorted(attempts, key=lambda a: a.repeat) if a.side == side]
                for side in ("baseline", "oracle")}
        measured = measure(runs["baseline"], runs["oracle"], measuring_case(stored.case).grader.command,
                           grader_paths, stored.case.grader.fail_to_pass)
        if write:
            target = measured.grader(stored.case.grader)
        attempts = [_judged(a, target) for a in attempts]
    verdict = decide(stored, attempts)
    if measured is not None and measured.skipped and not measured.fail_to_pass:
        first = measured.skipped[0]
        verdict = replace(verdict, verdict="ERROR", reason=f"the fix's tests skipped on both sides "
                          f"({len(measured.skipped)}): {first}: {measured.skip_reason or 'no reason given'}")
    case, written = stored.case, False
    if write and measured is not None and verdict.verdict == "VALID" and target != stored.case.grader:
        case = replace(stored.case, grader=target)
        try:
            corpus.write(case, stored.files, options.kind, expect_mtime_ns=stored.mtime_ns)
            written = True
        except HindcastError as exc:
            verdict = replace(verdict, verdict="ERROR", reason=f"measured grader not written: {exc.message}")
            case = stored.case
    feature = verdict.verdict == "VALID" and measured is not None and measured.feature
    mixed = verdict.verdict == "VALID" and measured is not None and measured.mixed
    expected = {"baseline": "fail", "oracle": "pass"}
    kept = [a for a in verdict.attempts if options.settings.keep or a.outcome != expected[a.side]
            or any(status != "pass" for _, status, _ in a.invariants)]
    logs = publish_logs(corpus.root, stored.case.id, [Path(a.logs) for a in kept if a.logs])
    shown = tuple(keep_attempt(a, logs) for a in verdict.attempts)
    reason = (FEATURE_REASON if feature and not verdict.reason else MIXED_REASON if mixed and not verdict.reason
              else verdict.reason)
    current = measured is not None and measured.grader(stored.case.grader) == stored.case.grader
    return replace(verdict, reason=reason, attempts=shown, feature=feature, mixed=mixed, measured=measured,
                   written=written,
                   current=current,
                   logs=str(logs) if logs else None, case_fingerprint=case_fingerprint(case, stored.files))


def _base_collection(attempt: Attempt, grader_paths: list[str]) -> Attempt:
    """A base whose grader test modules cannot be collected because they import what the base lacks (pytest exit
    2) failed, it did not err; the oracle side may not."""
    if attempt.side == "baseline" and attempt.outcome == "error" and attempt.exit_code == 2 \
            and missing_collection(attempt.tests, grader_paths):
        first = collection_failures(attempt.tests)[0]
        detail = first.message.split(" | ")[-1]
        return replace(attempt, outcome="fail", reason=f"{first.test_id} cannot be collected at base: {detail}")
    return attempt


def _judged(attempt: Attempt, grader: Grader) -> Attempt:
    """The attempt's report judged by grader (the case's own, or the measured one being written)."""
    outcome, reason = judge_tests(grader, attempt.exit_code, attempt.tests)
    if outcome == "fail" and collection_failures(attempt.tests):
        reason = attempt.reason
    return replace(attempt, outcome=outcome, reason=reason)


def decide(stored: StoredCase, attempts: list[Attempt]) -> CaseVerdict:
    """VALID only when every baseline failed and every oracle passed; errors win over everything."""
    ordered = tuple(sorted(attempts, key=lambda a: (a.repeat, a.side)))

    def verdict(v: Verdict, reason: str) -> CaseVerdict:
        return CaseVerdict(stored.case.id, v, reason, case_fingerprint(stored.case, stored.files), ordered)

    errors = [a for a in ordered if a.outcome == "error"]
    if errors:
        return verdict("ERROR", f"{errors[0].side}: {errors[0].reason}")
    baseline = {a.outcome for a in ordered if a.side == "baseline"}
    oracle = {a.outcome for a in ordered if a.side == "oracle"}
    if len(baseline) > 1 or len(oracle) > 1:
        side = "baseline" if len(baseline) > 1 else "oracle"
        return verdict("INVALID", f"flaky: {side} outcomes differ across repeats")
    if baseline == {"pass"}:
        return verdict("INVALID", "baseline passes: the grader does not detect the bug")
    if oracle == {"fail"}:
        reason = next(a.reason for a in ordered if a.side == "oracle")
        return verdict("INVALID", f"oracle fails: {reason}")
    # An invariant the fix itself breaks would mark every correct fix unsafe: the case is not sound.
    broken = next(((name, status, code) for a in ordered if a.side == "oracle"
                   for name, status, code in a.invariants if status != "pass"), None)
    if broken is not None:
        name, status, code = broken
        if status == "error" or code in (126, 127):  # with the oracle, the command is the author's mistake
            return verdict("ERROR", f"oracle: invariant {name} could not run"
                                    + (f" (exit {code}: not runnable)" if code is not None else ""))
        return verdict("INVALID", f"oracle breaks invariant {name} (exit {code}): a correct fix could never keep it")
    return verdict("VALID", "")
