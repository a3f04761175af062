"""run.json: a run's identity, fingerprints, configuration (its mode, trials, variants and cases), the settings it
was started with and the digest of every trial it recorded."""

from __future__ import annotations

import json
import re
import secrets
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.fsutil import atomic_write_text
from corpus.model import Bait, Policy, Status, Step, Trajectory
from runner.settings import RecordedSettings

FORMAT = 2
"""The format number of run.json (2: with the digest of every recorded trial)."""
RUN_FILE = "run.json"
MODES = ("agent", "baseline", "oracle", "regrade")
VARIANT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
DIGEST = re.compile(r"^[0-9a-f]{64}$")



def created_now(now: datetime | None = None) -> str:
    """The time a run is made, as run.json records it: UTC to the microsecond, so runs made within one second
    (scripted ones are) still sort in the order they were made; a run recorded to the second, as older ones are,
    sorts before the runs of its second recorded more finely."""
    return (now or datetime.now(UTC)).isoformat(timespec="microseconds")


def new_run_stamp() -> tuple[str, str]:
    """A new run's id (its UTC second plus a random suffix, e.g. 20261129T141500Z-a1b2) and its creation time,
    from one reading of the clock."""
    now = datetime.now(UTC)
    return f"{now.strftime('%Y%m%dT%H%M%SZ')}-{secrets.token_hex(2)}", created_now(now)


@dataclass(frozen=True)
class Variant:
    """One column of the matrix: a name and the agent command template it runs (None without an agent)."""

    name: str
    """Directory name of the variant's trials."""
    command: str | None
    """Agent command template with {workspace}, {prompt_file}, {case_id}, {trial}."""
    transcript_format: str = "auto"
    """How the agent's transcript is read into behaviour.json (``runner.behaviour.parse.FORMATS``)."""
    trajectory_file: str | None = None
    """A file the agent leaves in its workspace (a path relative to it) read instead of its stdout."""
    hosts: tuple[str, ...] = ()
    """The model provider's hosts its agent may reach with --agent-network model (a preset's, `HOST[:PORT]`)."""
    preset: str | None = None
    """The preset the command is (``runner.trial.presets``): its HOME files, trajectory and session files."""
    model: str | None = None
    """The preset's model (--agent-arg model=M), None for the CLI's default."""


@dataclass(frozen=True)
class RunConfig:
    """What a run measures; a resumed run must match it."""

    mode: str
    """agent, baseline, oracle or regrade."""
    trials: int
    """Trials per variant and case."""
    variants: tuple[Variant, ...]
    """The variants, in order."""
    cases: tuple[str, ...]
    """The case ids, in order."""
    agent_timeout: float
    """Seconds before an agent's process group is killed."""
    jobs: int = 1
    """Trials run at once when the run was created (not part of what a resume must match)."""
    patch_from: str | None = None
    """regrade: the run directory whose candidate patches are graded again."""
    shard: str | None = None
    """`I/N`: the run holds the I-th of N deterministic parts of the trials (runner merge joins them)."""
    seed: int = 0
    """What each trial's wording is drawn from, with its number (``corpus.wordings.draw``); 0 in runs made before
    runs recorded one, which drew nothing."""

    def comparable(self) -> dict[str, Any]:
        """The fields a resumed run must reproduce (everything but jobs)."""
        data = asdict(self)
        data.pop("jobs")
        return data

    def planned(self) -> list[tuple[str, str, int]]:
        """Every trial the run is made of, as (variant, case, trial) in case, variant, trial order: all of them,
        or its shard's (the I-th of N contiguous parts of that order, their sizes differing by one at most, so
        a case's trials stay together but where a part ends)."""
        every = [(variant.name, case_id, t) for case_id in self.cases for variant in self.variants
                 for t in range(1, self.trials + 1)]
        if self.shard is None:
            return every
        index, count = (int(n) for n in self.shard.split("/"))
        return every[len(every) * (index - 1) // count:len(every) * index // count]

    def numbers(self, variant: str, case_id: str) -> list[int]:
        """The trial numbers of one variant::case the run is made of (1..trials, or its shard's)."""
        if self.shard is None:
            return list(range(1, self.trials + 1))
        return [t for v, c, t in self.planned() if v == variant and c == case_id]


@dataclass(frozen=True)
class CaseMeta:
    """What a run keeps of a selected case when it starts, so the run can be judged without the corpus."""

    title: str
    """The case's one-line label."""
    owner: str | None
    """Who answers for the case (the corpus default when the case names nobody)."""
    policy: Policy
    """advisory or blocking."""
    critical: bool
    """Blocks on any regression and is never quarantined."""
    status: Status = "active"
    """active or deprecated."""
    max_turns: int | None = None
    """The case's turn budget (None: none, or a run made before runs recorded it)."""
    bait: Bait | None = None
    """The misbehaviour the case reproduces, which compare checks the baseline still shows."""
    trajectory: Trajectory | None = None
    """The tool calls the case requires and forbids."""
    risk_flags: tuple[str, ...] = ()
    """The case's risk labels (auth, payments, ...); () in runs made before runs recorded them."""
    holdout: bool = False
    """Kept out of the views meant for tuning (report, compare, the pages) unless asked for; False in runs made
    before runs recorded it."""
    wordings: tuple[str, ...] = ()
    """The ids of the case's wordings its trials were drawn from; () for a case with one wording."""

    @staticmethod
    def from_json(data: dict[str, Any]) -> CaseMeta:
        """A CaseMeta from run.json (the behaviour fields optional: older runs did not record them)."""
        data = dict(data)
        bait, trajectory = data.pop("bait", None), data.pop("trajectory", None)
        if trajectory is not None:
            steps = tuple(Step(**step) for step in trajectory.get("steps") or ())
            trajectory = Trajectory(steps, trajectory.get("mode", "superset"),
                                    tuple(trajectory.get("forbidden_tools") or ()),
                                    dict(trajectory.get("max_calls") or {}))
        data["risk_flags"] = tuple(data.get("risk_flags") or ())
        data["holdout"] = data.get("holdout") is True
        data["wordings"] = tuple(data.get("wordings") or ())
        return CaseMeta(**data, bait=Bait(**bait) if bait is not None else None, trajectory=trajectory)


@dataclass(frozen=True)
class Origin:
    """Where a run came from: the corpus and repository it ran on, as absolute paths."""

    corpus: str
    """The corpus directory."""
    repo: str
    """The source repository the workspaces were made from."""


@dataclass(frozen=True)
class RunManifest:
    """run.json: identity, fingerprints and configuration of a run."""

    run_id: str
    """UTC timestamp plus a short random suffix."""
    created: str
    """ISO 8601 creation time."""
    dataset_fingerprint: str
    """Fingerprint of the corpus's active cases when the run was created."""
    runtime: dict[str, Any]
    """Hindcast version and commit, Python, OS, git, agent commands, mode, trials, and their fingerprint."""
    config: RunConfig
    """What is measured."""
    resumed: tuple[dict[str, Any], ...] = ()
    """One entry per resume: when, and the runtime it resumed with."""
    digests: dict[str, str] = field(default_factory=dict)
    """sha256 hex of each recorded trial's result.json, by variant/case/trial (``runner.runs.digests``)."""
    name: str | None = None
    """The label given with ``runner run --name`` (not unique: the newest run of a name is the one it names)."""
    origin: Origin | None = None
    """The corpus and repository of the run; None in runs made before runs recorded it."""
    cases_meta: dict[str, CaseMeta] = field(default_factory=dict)
    """Title, owner, policy and criticality of every case as the corpus said when the run started."""
    triage: dict[str, Any] | None = None
    """A triage run: the baseline and candidate run ids and paths it reruns the regressions of."""
    directions: dict[str, str] | None = None
    """corpus.yaml's behaviour.directions when the run started (metric -> lower, higher or neutral); None in runs
    made before runs recorded them."""
    merged_from: tuple[dict[str, Any], ...] = ()
    """A merged run (``runner merge``): its shards (run id, shard, created, resumes), in shard order."""
    settings: RecordedSettings | None = None
    """The settings the run was started with (sandbox, binds, environment cache, executor, jobs...), which a
    resume restores; for a run made before runs recorded them, inferred from its runtime; None for a run made
    elsewhere."""

    def resume_overrides(self) -> list[str]:
        """One line per resume that overrode a recorded setting: when, and each flag's old and new value (a run
        resumed before runs recorded the values names only the flags)."""
        lines = []
        for resumed in self.resumed:
            changes = resumed.get("changes") or [f"{flag} (overridden)" for flag in resumed.get("overridden") or ()]
            if changes:
                lines.append(f"resumed {resumed.get('at', '?')} with {', '.join(str(c) for c in changes)}")
        return lines

    def current_settings(self) -> RecordedSettings | None:
        """The settings the run last ran with: its latest resume's (with what it was given), else its own."""
        for resumed in reversed(self.resumed):
            if isinstance(resumed, dict) and resumed.get("settings") is not None:
                return RecordedSettings.from_json(resumed["settings"], {}, self.config.jobs)
        return self.settings


def load_object(text: str, path: Path | str) -> dict[str, Any]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a JSON object")
    return data


def manifest_to_json(manifest: RunManifest) -> str:
    """The run.json text."""
    data = asdict(manifest)
    del data["settings"]
    if manifest.settings is not None and not manifest.settings.inferred:
        data["settings"] = manifest.settings.to_json()
    return json.dumps({"format": FORMAT, **data}, indent=2, sort_keys=True) + "\n"


def read_manifest(run_dir: Path) -> RunManifest:
    """Read run.json of a run directory; UsageError when it is not a run."""
    path = run_dir / RUN_FILE
    if not path.is_file():
        raise UsageError(f"{run_dir}: not a run directory (no {RUN_FILE})")
    data = load_object(path.read_text(encoding="utf-8"), path)
    if data.get("format") == 1:
        raise UsageError(f"{path}: format 1, made before run.json recorded its trials' digests, so its outcomes "
                         f"cannot be checked; make a new run")
    if data.get("format") != FORMAT:
        raise UsageError(f"{path}: unsupported format {data.get('format')!r} (expected {FORMAT})")
    try:
        raw = dict(data["config"])
        raw["variants"] = tuple(Variant(**{**v, "hosts": tuple(v.get("hosts") or ())}) for v in raw["variants"])
        raw["cases"] = tuple(raw["cases"])
        config = RunConfig(**raw)
        digests = dict(data["digests"])
        bad = next((k for k, v in digests.items() if not isinstance(v, str) or not DIGEST.match(v)), None)
        if bad is not None:
            raise ValueError(f"digests: {bad!r} is not a sha256 hex digest")
        origin = Origin(**data["origin"]) if data.get("origin") else None
        meta = {case: CaseMeta.from_json(m) for case, m in (data.get("cases_meta") or {}).items()}
        name = data.get("name")
        if name is not None and not isinstance(name, str):
            raise ValueError(f"name: {name!r} is not a string")
        triage = data.get("triage")
        if triage is not None and not isinstance(triage, dict):
            raise ValueError(f"triage: {triage!r} is not an object")
        directions = data.get("directions")
        if directions is not None and not (isinstance(directions, dict) and all(
                isinstance(k, str) and isinstance(v, str) for k, v in directions.items())):
            raise ValueError(f"directions: {directions!r} is not an object of metric names and directions")
        runtime = dict(data["runtime"])
        resumed = tuple(data.get("resumed") or ())
        for entry in resumed:  # each resume's settings (what current_settings reads), checked here
            if isinstance(entry, dict) and entry.get("settings") is not None:
                RecordedSettings.from_json(entry["settings"], {}, config.jobs)
        return RunManifest(run_id=data["run_id"], created=data["created"],
                           dataset_fingerprint=data["dataset_fingerprint"], runtime=runtime,
                           config=config, resumed=resumed, digests=digests,
                           name=name, origin=origin, cases_meta=meta, triage=triage,
                           directions=directions, merged_from=tuple(data.get("merged_from") or ()),
                           settings=RecordedSettings.from_json(data.get("settings"), runtime, config.jobs))
    except (KeyError, TypeError, ValueError) as exc:
        raise UsageError(f"{path}: not a run manifest ({exc.__class__.__name__}: {exc})") from None


def write_manifest(run_dir: Path, manifest: RunManifest) -> None:
    """Write run.json atomically."""
    atomic_write_text(run_dir / RUN_FILE, manifest_to_json(manifest))
