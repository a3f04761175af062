"""`runner verify`: prove each case's broken base fails its hidden grader and its oracle passes it."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

from corpus import Corpus, StoredCase, case_fingerprint, corpus_fingerprint
from corpus.errors import HindcastError, UsageError
from corpus.gitutil import open_repository
from corpus.store import Kind
from runner.envs.cache import EnvCache
from runner.grading.frompatch import GradingSetup, grade_patch
from runner.sandbox.confine import Confinement, check_confinement, harness_dirs, hidden_paths
from runner.trial.assets import AssetCache
from runner.verify.record import record_verdicts
from runner.workspace.prepare import prepare

Verdict = Literal["VALID", "INVALID", "ERROR"]
Side = Literal["baseline", "oracle"]


@dataclass(frozen=True)
class VerifyOptions:
    """What to verify and how."""

    case_ids: tuple[str, ...] = ()
    """Cases to verify; empty means every active case."""
    repeats: int = 1
    """How many times each side runs; every run must agree."""
    jobs: int = 1
    """Attempts run at once."""
    repo: Path | None = None
    """Source repository overriding corpus.yaml's."""
    kind: Kind = "cases"
    """Verify approved cases or the miner's candidates."""
    sandbox: str = "bwrap"
    """bwrap: setup and grader run in bubblewrap, as in trials; none: on the host."""
    scratch_root: Path | None = None
    """Where scratch directories are made (default: the system temp dir)."""
    env_cache: Path | None = None
    """The environment cache directory (--env-cache); None runs every attempt's setup afresh."""


@dataclass(frozen=True)
class Attempt:
    """One baseline or oracle grading of a case."""

    side: Side
    """baseline (base + grader) or oracle (base + oracle patch + grader)."""
    repeat: int
    """1-based repeat number."""
    outcome: str
    """pass, fail or error."""
    reason: str
    """Why."""
    duration: float
    """Seconds for the whole attempt."""


@dataclass(frozen=True)
class CaseVerdict:
    """A case's verdict over all its attempts."""

    case_id: str
    """The case."""
    verdict: Verdict
    """VALID, INVALID or ERROR."""
    reason: str
    """Why (empty for VALID)."""
    case_fingerprint: str
    """The case fingerprint it was verified at."""
    attempts: tuple[Attempt, ...]
    """Every attempt, baseline and oracle."""


@dataclass(frozen=True)
class VerifyReport:
    """All verdicts of one verify call."""

    verdicts: list[CaseVerdict]
    """One per case, in id order."""
    dataset_fingerprint: str
    """Fingerprint of the corpus's active cases at the time."""

    @property
    def all_valid(self) -> bool:
        """True when every verified case is VALID."""
        return all(v.verdict == "VALID" for v in self.verdicts)


def cases_to_verify(corpus: Corpus, case_ids: tuple[str, ...], kind: Kind) -> list[StoredCase]:
    """The named cases (each must exist) or every active one."""
    if case_ids:
        known = set(corpus.ids(kind))
        missing = [c for c in case_ids if c not in known]
        if missing:
            raise UsageError(f"--case {missing[0]}: no such {'case' if kind == 'cases' else 'candidate'} in "
                             f"{corpus.root}")
        return [corpus.load(c, kind) for c in dict.fromkeys(case_ids)]
    return corpus.load_all(kind, active_only=True)


def verify(corpus: Corpus, options: VerifyOptions, progress: Callable[[str], None] | None = None) -> VerifyReport:
    """Verify the selected cases and record the verdicts (for approved cases) in verification.json."""
    if options.repeats < 1 or options.jobs < 1:
        raise UsageError("--repeats and --jobs must be at least 1")
    repo = open_repository(corpus.repo_path(options.repo))
    cases = cases_to_verify(corpus, options.case_ids, options.kind)
    scratch_root = options.scratch_root or Path(tempfile.gettempdir())
    conf = check_confinement(Confinement(options.sandbox, hide=tuple(  # type: ignore[arg-type]
        Path(p) for p in hidden_paths(corpus.root, repo, scratch_root, *harness_dirs()))))
    work = [(stored, side, r) for stored in cases for r in range(1, options.repeats + 1)
            for side in ("baseline", "oracle")]
    scratch_root.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="hindcast-verify-", dir=scratch_root))
    try:
        assets = AssetCache(repo, root / "templates")
        context = _Context(repo, assets, conf, root, corpus.config.test_globs,
                           EnvCache(options.env_cache) if options.env_cache is not None else None)
        with ThreadPoolExecutor(max_workers=options.jobs) as pool:
            futures = [pool.submit(run_attempt, stored, side, r, context)  # type: ignore[arg-type]
                       for stored, side, r in work]
            attempts: dict[str, list[Attempt]] = {s.case.id: [] for s in cases}
            for (stored, _, _), future in zip(work, futures):
                attempt = future.result()
                attempts[stored.case.id].append(attempt)
                if progress:
                    progress(f"{stored.case.id}: {attempt.side} #{attempt.repeat}: {attempt.outcome}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    verdicts = [decide(s, attempts[s.case.id]) for s in cases]
    all_cases = corpus.load_all("cases")
    report = VerifyReport(verdicts, corpus_fingerprint((s.case, s.files) for s in all_cases))
    if options.kind == "cases":
        record_verdicts(corpus, report)
    return report


@dataclass(frozen=True)
class _Context:
    """What every attempt of one verify call shares."""

    repo: Path
    assets: AssetCache
    confinement: Confinement
    root: Path
    test_globs: tuple[str, ...]
    env_cache: EnvCache | None = None


def run_attempt(stored: StoredCase, side: Side, repeat: int, context: _Context) -> Attempt:
    """One fresh workspace, setup, and the side's patch graded exactly as a trial grades a patch (sandboxed,
    restored, grader files written); harness failures become an error attempt."""
    scratch = Path(tempfile.mkdtemp(prefix=f"{stored.case.id}-", dir=context.root))
    try:
        assets = context.assets.get(stored)
        if isinstance(assets, HindcastError):
            raise assets
        prepared = prepare(stored.case, context.repo, scratch, pristine=assets.pristine,
                           confinement=context.confinement, env_cache=context.env_cache)
        setup = GradingSetup(stored.case, stored.files, assets.fix_config, assets.base_config, context.test_globs)
        patch = stored.files.oracle_patch if side == "oracle" else b""
        graded = grade_patch(setup, prepared.workspace, patch, prepared.env, context.confinement, scratch,
                             scratch / "grader.log", env_binds=prepared.env_binds(), candidate=False,
                             what=f"{side} patch")
        result = graded.result
        return Attempt(side, repeat, result.outcome, result.reason, result.duration)
    except HindcastError as exc:
        return Attempt(side, repeat, "error", exc.message, 0.0)
    except OSError as exc:
        return Attempt(side, repeat, "error", f"harness: {exc.strerror or exc}", 0.0)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


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
    return verdict("VALID", "")


def report_json(report: VerifyReport) -> str:
    """The report as one JSON document."""
    return json.dumps({"dataset_fingerprint": report.dataset_fingerprint,
                       "verdicts": [asdict(v) for v in report.verdicts]}, indent=2)


def render_verdicts(report: VerifyReport) -> list[str]:
    """The text report: one line per case (verdict and reason), the counts, and the dataset fingerprint."""
    width = max([len(v.case_id) for v in report.verdicts] + [4])
    lines = [f"{'CASE':<{width}}  VERDICT  REASON"]
    lines += [f"{v.case_id:<{width}}  {v.verdict:<7}  {v.reason}".rstrip() for v in report.verdicts]
    counts = {k: sum(1 for v in report.verdicts if v.verdict == k) for k in ("VALID", "INVALID", "ERROR")}
    lines.append(f"{len(report.verdicts)} cases: {counts['VALID']} valid, {counts['INVALID']} invalid, "
                 f"{counts['ERROR']} errors")
    lines.append(f"dataset fingerprint: {report.dataset_fingerprint}")
    return lines
