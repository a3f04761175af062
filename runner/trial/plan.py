"""What a run will do: its options, its checked configuration in each mode (new or resumed), the trials to run."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from corpus import StoredCase
from corpus.errors import UsageError
from corpus.wordings import draw_for, rotated_ids
from runner.behaviour.parse import FORMATS
from runner.behaviour.sources import trajectory_path_problem
from runner.runs.digests import TrialId, audit_run
from runner.runs.load import load_run
from runner.runs.manifest import MODES, VARIANT_NAME, CaseMeta, RunConfig, RunManifest, Variant, read_manifest
from runner.runs.result import RESULT_FILE, parse_trial, trial_path
from runner.settings import Change, Settings
from runner.trial.agent import command_problem
from runner.trial.presets import PRESETS, preset_command, preset_name, provider_hosts
from runner.trial.spec import DEFAULT_TRANSCRIPT_LIMIT, SavedAttempt, TrialSpec

DEFAULT_AGENT_TIMEOUT = 1800.0
REGRADE_TAKES = ("sandbox", "agent_binds")
"""What a regrade takes of its source run's settings unless given: the sandbox and binds its grader ran with."""


@dataclass(frozen=True)
class RunOptions:
    """Everything `runner run` takes; None means "the default" (or, with resume, "as recorded")."""

    case_ids: tuple[str, ...] = ()
    """Cases to run (--case); exclusive with all_cases."""
    all_cases: bool = False
    """Run every active case (--all)."""
    trials: int | None = None
    """Trials per variant and case (default 1)."""
    mode: str | None = None
    """agent (default), baseline, oracle or regrade."""
    variants: tuple[Variant, ...] = ()
    """Agent variants (--agent-command is the variant "default")."""
    settings: Settings = field(default_factory=Settings)
    """How the trials run: sandbox, binds, environment cache, executor, jobs (a resume restores the recorded ones
    but those named in given)."""
    given: frozenset[str] = frozenset()
    """The settings named on the command line: at a resume they override the recorded ones."""
    results_dir: Path | None = None
    """Where run directories are made (default: CORPUS/results)."""
    resume: Path | None = None
    """A run directory to complete: its missing and errored trials run again."""
    patch_from: Path | None = None
    """regrade: the run whose candidate patches are graded again."""
    agent_timeout: float | None = None
    """Seconds before an agent's process group is killed (default 1800)."""
    repo: Path | None = None
    """Source repository overriding corpus.yaml's."""
    scratch_root: Path | None = None
    """Where scratch directories are made (default: corpus.fsutil.hindcast_temp, the one the sandbox hides)."""
    transcript_limit: int = DEFAULT_TRANSCRIPT_LIMIT
    """Bytes of agent output kept per trial."""
    name: str | None = None
    """A label for a new run (--name); a resumed run keeps its own."""
    triage: dict[str, Any] | None = None
    """A triage run: what it reruns (recorded in run.json)."""
    shard: str | None = None
    """`I/N`: run only the I-th of N deterministic parts of the trials (--shard)."""
    seed: int | None = None
    """What each trial's wording is drawn from (--seed; default 0, so runs pair trial by trial)."""


def run_settings(options: RunOptions, resumed: RunManifest | None,
                 source: RunManifest | None = None) -> tuple[Settings, tuple[Change, ...]]:
    """The settings a run runs with (paths absolute), and at a resume the settings that differ from the recorded
    ones. A resume restores every setting the run was started with but those options.given names; a new regrade
    grades in its source run's sandbox and binds unless given; a new run has options.settings."""
    chosen = options.settings.absolute()
    if resumed is not None:
        recorded = resumed.settings.settings if resumed.settings is not None else chosen
        restored = recorded.over(chosen, options.given)
        return restored, recorded.changes(restored)
    if source is not None and source.settings is not None:
        return chosen.over(source.settings.settings, [f for f in REGRADE_TAKES if f not in options.given]), ()
    return chosen, ()


def parse_agent(spec: str, arguments: Mapping[str, str] | None = None) -> Variant:
    """NAME=CMD from --agent, or a preset (``codex``, ``NAME=preset:codex``: its command, with the --agent-arg
    arguments applied, and its transcript format)."""
    preset = preset_name(spec)
    if preset is not None:
        name, which = preset
        chosen = PRESETS[which]
        arguments = arguments or {}
        return check_variant(Variant(name, preset_command(chosen, arguments), chosen.transcript_format,
                                     hosts=provider_hosts(chosen, os.environ), preset=which,
                                     model=arguments.get("model")))
    if arguments:
        raise UsageError(f"--agent-arg: {spec!r} is not a preset (--agent NAME=preset:{'|'.join(PRESETS)})")
    name, sep, command = spec.partition("=")
    if not sep or not command.strip():
        raise UsageError(f"--agent {spec!r}: expected NAME=COMMAND or a preset ({', '.join(PRESETS)})")
    return check_variant(Variant(name.strip(), command))


def parse_agents(specs: tuple[str, ...], argument_specs: tuple[str, ...] = ()) -> tuple[Variant, ...]:
    """The variants of --agent, with --agent-arg ``KEY=VALUE`` (every preset) or ``NAME:KEY=VALUE`` (one
    variant, which must be a preset) applied."""
    presets = {p[0] for spec in specs if (p := preset_name(spec)) is not None}
    everyone: dict[str, str] = {}
    named: dict[str, dict[str, str]] = {}
    for spec in argument_specs:
        target, key_value = (spec.split(":", 1) if ":" in spec.partition("=")[0] else (None, spec))
        key, sep, value = key_value.partition("=")
        if not sep or not key.strip():
            raise UsageError(f"--agent-arg {spec!r}: expected [NAME:]KEY=VALUE")
        if target is None:
            if not presets:
                raise UsageError(f"--agent-arg {spec!r}: no preset agent (--agent {'|'.join(PRESETS)})")
            everyone[key.strip()] = value
        elif target not in presets:
            raise UsageError(f"--agent-arg {spec!r}: no preset variant {target!r}")
        else:
            named.setdefault(target, {})[key.strip()] = value
    variants = []
    for spec in specs:
        preset = preset_name(spec)
        arguments = {**everyone, **named.get(preset[0], {})} if preset is not None else None
        variants.append(parse_agent(spec, arguments))
    return tuple(variants)


def with_transcript_formats(variants: tuple[Variant, ...], specs: tuple[str, ...]) -> tuple[Variant, ...]:
    """The variants with --transcript-format applied: ``FORMAT`` for every variant, ``NAME=FORMAT`` for one."""
    everyone: str | None = None
    named: dict[str, str] = {}
    for spec in specs:
        name, sep, fmt = spec.rpartition("=")
        if fmt not in FORMATS:
            raise UsageError(f"--transcript-format {spec!r}: {fmt!r} is not one of {', '.join(FORMATS)}")
        if sep:
            if name not in {v.name for v in variants}:
                raise UsageError(f"--transcript-format {spec!r}: no variant {name!r}")
            named[name] = fmt
        else:
            everyone = fmt
    if (everyone or named) and not variants:
        raise UsageError("--transcript-format needs an agent (--agent-command or --agent NAME=CMD)")
    return tuple(replace(v, transcript_format=named.get(v.name, everyone or v.transcript_format)) for v in variants)


def with_trajectory_files(variants: tuple[Variant, ...], specs: tuple[str, ...]) -> tuple[Variant, ...]:
    """The variants with --trajectory-file applied: ``PATH`` (relative to the workspace) for every variant,
    ``NAME=PATH`` for one."""
    everyone: str | None = None
    named: dict[str, str] = {}
    names = {v.name for v in variants}
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or name not in names:
            name, path = "", spec  # a path that holds '=' but names no variant is a path
        problem = trajectory_path_problem(path)
        if problem:
            raise UsageError(f"--trajectory-file {spec!r}: {problem}")
        if name:
            named[name] = path
        else:
            everyone = path
    if (everyone or named) and not variants:
        raise UsageError("--trajectory-file needs an agent (--agent-command or --agent NAME=CMD)")
    return tuple(replace(v, trajectory_file=named.get(v.name, everyone or v.trajectory_file)) for v in variants)


def check_run_name(name: str) -> str:
    """A run name: the characters of a variant name, and not a word that names runs otherwise (latest)."""
    if not VARIANT_NAME.match(name) or name == "latest":
        raise UsageError(f"--name {name!r}: use up to 64 letters, digits, '.', '_' or '-' (and not 'latest')")
    return name


def case_meta(stored: dict[str, StoredCase], cases: tuple[str, ...], default_owner: str | None) -> dict[str, CaseMeta]:
    """What run.json keeps of each selected case: title, owner, policy, criticality, status, behaviour checks,
    risk flags and whether it is a holdout case."""
    meta = {}
    for case_id in cases:
        case = stored[case_id].case
        meta[case_id] = CaseMeta(case.title, case.owner or default_owner, case.policy, case.critical, case.status,
                                 case.max_turns, case.bait, case.trajectory, case.risk_flags, case.holdout,
                                 rotated_ids(case))
    return meta


def check_variant(variant: Variant) -> Variant:
    """Variant names become folder names: letters, digits, '.', '_' and '-' only."""
    if not VARIANT_NAME.match(variant.name) or variant.name in MODES:
        raise UsageError(f"variant name {variant.name!r}: use letters, digits, '.', '_' or '-' "
                         f"(and not a mode name)")
    return variant


def check_commands(variants: tuple[Variant, ...]) -> None:
    """Refuse (UsageError) the first agent command that could not run, before any trial starts."""
    for variant in variants:
        problem = command_problem(variant.command) if variant.command is not None else None
        if problem:
            raise UsageError(f"agent {variant.name!r}: {problem}")


def new_config(options: RunOptions, stored: dict[str, StoredCase]) -> RunConfig:
    """The configuration of a new run, checked."""
    mode = options.mode or "agent"
    if mode not in MODES:
        raise UsageError(f"--mode {mode!r}: expected one of {', '.join(MODES)}")
    if options.case_ids and options.all_cases:
        raise UsageError("--case and --all exclude each other")
    if not options.case_ids and not options.all_cases:
        raise UsageError("choose the cases: --case ID (repeatable) or --all")
    unknown = [c for c in options.case_ids if c not in stored]
    if unknown:
        raise UsageError(f"--case {unknown[0]}: no such case in the corpus")
    cases = tuple(dict.fromkeys(options.case_ids)) or tuple(i for i, s in stored.items() if s.case.status == "active")
    if not cases:
        raise UsageError("the corpus has no active case to run")
    if mode != "regrade" and options.patch_from is not None:
        raise UsageError("--patch-from is only for --mode regrade")
    if mode != "agent" and options.variants:
        raise UsageError(f"--mode {mode} runs no agent; drop --agent-command/--agent")
    if mode != "agent" and options.seed is not None:
        raise UsageError(f"--seed draws the wording an agent is given; --mode {mode} draws none"
                         + (" (a regrade keeps its source trials' wordings)" if mode == "regrade" else ""))
    trials = options.trials or 1
    timeout = options.agent_timeout or DEFAULT_AGENT_TIMEOUT
    shard = check_shard(options.shard) if options.shard is not None else None
    if mode == "agent":
        if not options.variants:
            raise UsageError("--mode agent needs --agent-command CMD or --agent NAME=CMD")
        names = [check_variant(v).name for v in options.variants]
        if len(set(names)) != len(names):
            raise UsageError(f"variant {next(n for n in names if names.count(n) > 1)!r} is given twice")
        check_commands(options.variants)
        return RunConfig(mode, trials, options.variants, cases, timeout, options.settings.jobs, shard=shard,
                         seed=options.seed or 0)
    if mode in ("baseline", "oracle"):
        return RunConfig(mode, trials, (Variant(mode, None),), cases, timeout, options.settings.jobs, shard=shard)
    if options.patch_from is None:
        raise UsageError("--mode regrade needs --patch-from RUN_DIR")
    source = read_manifest(options.patch_from).config
    if options.trials is not None and options.trials != source.trials:
        raise UsageError(f"--trials {options.trials}: regrade replays the {source.trials} trials of "
                         f"{options.patch_from}")
    outside = [c for c in options.case_ids if c not in source.cases]
    if outside:
        raise UsageError(f"--case {outside[0]}: not in the run {options.patch_from}")
    cases = tuple(c for c in (options.case_ids or source.cases) if c in stored)
    if not cases:
        raise UsageError(f"{options.patch_from}: none of its cases is in the corpus")
    return RunConfig(mode, source.trials, source.variants, tuple(dict.fromkeys(cases)), source.agent_timeout,
                     options.settings.jobs, str(options.patch_from.resolve()), shard, source.seed)


def resume_config(recorded: RunConfig, options: RunOptions, stored: dict[str, StoredCase],
                  run_dir: Path) -> RunConfig:
    """The recorded configuration, after checking that every option given on the command line agrees."""
    given: dict[str, Any] = {}
    if options.mode is not None:
        given["mode"] = options.mode
    if options.trials is not None:
        given["trials"] = options.trials
    if options.variants:
        given["variants"] = tuple(options.variants)
    if options.case_ids:
        given["cases"] = tuple(dict.fromkeys(options.case_ids))
    elif options.all_cases:
        given["cases"] = tuple(i for i, s in stored.items() if s.case.status == "active")
    if options.agent_timeout is not None:
        given["agent_timeout"] = options.agent_timeout
    if options.patch_from is not None:
        given["patch_from"] = str(options.patch_from.resolve())
    if options.shard is not None:
        given["shard"] = check_shard(options.shard)
    if options.seed is not None:
        given["seed"] = options.seed
    for key, value in given.items():
        if getattr(recorded, key) != value:
            raise UsageError(f"--resume {run_dir}: the run was made with a different {key.replace('_', ' ')} "
                             f"({_show(getattr(recorded, key))} vs {_show(value)}); start a new run")
    if recorded.mode == "agent":
        check_commands(recorded.variants)
    return recorded


def _show(value: Any) -> str:
    if isinstance(value, tuple):
        return ", ".join(v.name if isinstance(v, Variant) else str(v) for v in value)
    return str(value)


def source_trials(config: RunConfig) -> dict[TrialId, SavedAttempt]:
    """regrade: every recorded trial of the source run, by (variant, case, trial); a source that does not match
    its run.json is refused like any run that is judged."""
    assert config.patch_from is not None
    source = load_run(Path(config.patch_from))
    return {(r.variant, r.case_id, r.trial): SavedAttempt(source.manifest.run_id,
                                                          trial_path(source.directory, r.variant, r.case_id, r.trial), r)
            for r in source.trials if r.case_id in config.cases}


def plan_trials(config: RunConfig, stored: dict[str, StoredCase], saved: dict[TrialId, SavedAttempt],
          resume_dir: Path | None) -> list[TrialSpec]:
    """The trials to run: all of them (of the run's shard), or (resuming) those without a recorded pass or fail."""
    scored = _scored(resume_dir) if resume_dir is not None else set()
    variants = {v.name: v for v in config.variants}
    plan = []
    for variant_name, case_id, t in config.planned():
        variant = variants[variant_name]
        if (variant.name, case_id, t) in scored:
            continue
        if config.mode == "regrade" and (variant.name, case_id, t) not in saved:
            continue
        source = saved.get((variant.name, case_id, t))
        wording = (draw_for(stored[case_id].case, config.seed, t) if config.mode == "agent" else
                   source.result.wording if source is not None else None)
        plan.append(TrialSpec(stored[case_id], variant.name, t, config.mode, variant.command, source,
                              variant.transcript_format, variant.trajectory_file, variant.hosts, variant.preset,
                              variant.model, wording))
    return plan


def check_shard(text: str) -> str:
    """`I/N` with 1 <= I <= N, normalized (UsageError naming --shard otherwise)."""
    index, count = shard_numbers(text)
    return f"{index}/{count}"


def shard_numbers(text: str) -> tuple[int, int]:
    """(I, N) of `I/N`; UsageError naming --shard when it is not one."""
    head, sep, tail = text.strip().partition("/")
    if not (sep and head.isdigit() and tail.isdigit()) or not 1 <= int(head) <= int(tail):
        raise UsageError(f"--shard {text!r}: expected I/N with 1 <= I <= N (e.g. 2/3)")
    return int(head), int(tail)


def _scored(run_dir: Path) -> set[TrialId]:
    """The trials a resume keeps: recorded in run.json with a readable pass or fail result.

    Errors, unreadable results and folders run.json never recorded run again; a recorded trial that changed or
    disappeared refuses the resume (UsageError).
    """
    audit = audit_run(run_dir, read_manifest(run_dir))
    audit.check(resuming=True)
    kept = set()
    for trial in audit.recorded():
        assert trial.data is not None
        path = trial_path(run_dir, trial.variant, trial.case_id, trial.trial) / RESULT_FILE
        try:
            result = parse_trial(trial.data, path, trial.variant, trial.case_id, trial.trial)
        except UsageError:
            continue
        if result.outcome != "error":
            kept.add((trial.variant, trial.case_id, trial.trial))
    return kept
