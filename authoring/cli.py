"""`authoring`: review the miner's candidates in a TUI, or approve, reject, list and lint from scripts."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

import click

from authoring.bulk import Changes, select_ids, set_fields
from authoring.decisions import LeakRefused, approve, reject, standing_verdict
from authoring.draft import draft_from, split_list
from authoring.gitinfo import base_probe, fix_message, patch_id, source_repo
from authoring.holdout import HoldoutOptions, draw_holdout
from authoring.lint import lint_corpus
from authoring.queue import SORTS, arrange, read_queue
from authoring.scorecardfields import (
    check_allowed_paths,
    check_invariant_policy,
    check_risk_flags,
    format_invariants,
    parse_invariant,
    parse_invariants_text,
    unique_invariants,
)
from authoring.wordingtext import WordingRefused, add_wording
from corpus import Corpus, HindcastError
from corpus.cli_support import CONTEXT, corpus_option, entry, version_option
from corpus.layout import Kind
from corpus.verdicts import candidate_verdict


@click.group(context_settings=CONTEXT)
@version_option("authoring")
def cli() -> None:
    """Turn the miner's candidates into cases: review them, approve or reject them, lint the prompts."""


def scorecard_options(lists: str) -> Callable[[Any], Any]:
    """The options of the scorecard fields, shared by approve and set (lists: what a list option does)."""
    options = [
        click.option("--allowed-path", "allowed_paths", multiple=True, metavar="GLOB",
                     help=f"A gitignore-style glob the fix may touch (repeatable; {lists} allowed_paths)."),
        click.option("--clear-allowed-paths", is_flag=True, help="Empty allowed_paths (anything outside the tests)."),
        click.option("--risk-flag", "risk_flags", multiple=True, metavar="LABEL",
                     help=f"A lowercase risk label such as payments (repeatable; {lists} risk_flags)."),
        click.option("--clear-risk-flags", is_flag=True, help="Empty risk_flags."),
        click.option("--invariant", "invariants", multiple=True, metavar="NAME[@SECONDS]=COMMAND",
                     help=f"A command run after the grader that must exit 0, e.g. 'imports=python -c \"import "
                          f"shop\"' (repeatable; {lists} invariants; 120 s unless @SECONDS)."),
        click.option("--clear-invariants", is_flag=True, help="Empty invariants."),
        click.option("--invariant-policy", type=click.Choice(["advisory", "blocking"]),
                     help="blocking (with policy blocking): a failed invariant fails a trial the grader passed."),
    ]

    def decorate(command: Any) -> Any:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


@cli.command("review")
@corpus_option()
@click.option("--cases", "edit_cases", is_flag=True, help="Review approved cases instead of candidates.")
@click.option("--sample", "sample_run", type=click.Path(file_okay=False, path_type=Path), default=None,
              metavar="RUN", help="Review the passes `runner sample` drew from the run directory RUN instead: each "
                                  "patch beside the reference patch; 1, 2, 3 set the verdict, 0 clears it.")
def review_command(corpus_dir: Path, edit_cases: bool, sample_run: Path | None) -> None:
    """Open the review screen (keyboard-first; press ? inside for the keys)."""
    if sample_run is not None:
        from authoring.app import make_sample_app

        make_sample_app(sample_run).run()
        return
    from authoring.app import make_app

    app = make_app(Corpus.open(corpus_dir), kind="cases" if edit_cases else "candidates")
    app.run()


@cli.command("list")
@corpus_option()
@click.option("--sort", type=click.Choice(SORTS), default="score", show_default=True, help="Order of the rows.")
@click.option("--filter", "needle", default="", help="Only rows whose id, subject or paths contain these words.")
@click.option("--cases", "list_cases", is_flag=True, help="List approved cases instead of candidates.")
def list_command(corpus_dir: Path, sort: str, needle: str, list_cases: bool) -> None:
    """Print the review queue: score, id, changed source/test files, fix date and subject."""
    rows = arrange(read_queue(Corpus.open(corpus_dir), "cases" if list_cases else "candidates"), sort, needle)
    width = max([len(row.id) for row in rows] + [2])
    click.echo(f"{'SCORE':>5}  {'ID':<{width}}  {'SRC':>3} {'TEST':>4}  {'DATE':<10}  SUBJECT")
    for row in rows:
        when = row.authored.isoformat() if row.authored else "-"
        click.echo(f"{row.score:5.2f}  {row.id:<{width}}  {len(row.source_files):>3} {len(row.test_files):>4}  "
                   f"{when:<10}  {row.subject}")


@cli.command("approve")
@corpus_option()
@click.argument("candidate")
@click.option("--prompt-file", type=click.File("r", encoding="utf-8"), required=True,
              help="File holding the sanitized task prompt ('-' for stdin).")
@click.option("--id", "case_id", help="Case id (default: the candidate id).")
@click.option("--title", help="One-line title (default: the candidate's).")
@click.option("--owner", help="Owner (default: the candidate's, else the corpus default).")
@click.option("--policy", type=click.Choice(["advisory", "blocking"]), help="Gate policy.")
@click.option("--critical/--not-critical", default=None, help="A critical case blocks on any regression.")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable; replaces the candidate's tags).")
@click.option("--trigger-path", "trigger_paths", multiple=True,
              help="A trigger path glob (repeatable; replaces the prefilled ones).")
@click.option("--setup-command", help="Workspace setup command ('' for none).")
@click.option("--setup-python", metavar="VERSION",
              help="Interpreter version (e.g. 3.8) for setup, agent and grader ('' for the harness's own).")
@click.option("--grader-command", help="Grader command.")
@click.option("--grader-timeout", type=click.IntRange(min=1), metavar="SECONDS", help="Grader timeout in seconds.")
@scorecard_options("replaces the candidate's")
@click.option("--override", help="Written justification to approve despite leakage findings (stored in the case).")
def approve_command(corpus_dir: Path, candidate: str, prompt_file: TextIO, case_id: str | None, title: str | None,
                    owner: str | None, policy: str | None, critical: bool | None, tags: tuple[str, ...],
                    trigger_paths: tuple[str, ...], setup_command: str | None, setup_python: str | None,
                    grader_command: str | None, grader_timeout: int | None, allowed_paths: tuple[str, ...],
                    clear_allowed_paths: bool, risk_flags: tuple[str, ...], clear_risk_flags: bool,
                    invariants: tuple[str, ...], clear_invariants: bool, invariant_policy: str | None,
                    override: str | None) -> None:
    """Approve CANDIDATE as a case with the prompt in --prompt-file; leakage findings refuse it.

    --allowed-path, --risk-flag and --invariant replace the candidate's lists; --clear-... empties one.
    """
    scorecard: dict[str, Any] = {"invariant_policy": invariant_policy}
    if allowed_paths or clear_allowed_paths:
        scorecard["allowed_paths"] = check_allowed_paths(allowed_paths, "--allowed-path")
    if risk_flags or clear_risk_flags:
        scorecard["risk_flags"] = check_risk_flags(risk_flags, "--risk-flag")
    if invariants or clear_invariants:
        scorecard["invariants"] = format_invariants(unique_invariants(
            (parse_invariant(text, f"--invariant {text!r}") for text in invariants), "--invariant"))
    corpus = Corpus.open(corpus_dir)
    stored = corpus.load(candidate, "candidates")
    draft = draft_from(stored.case, corpus.config.defaults)
    changes: dict[str, Any] = {
        "prompt": prompt_file.read(), "id": case_id, "title": title, "owner": owner, "policy": policy,
        "critical": critical, "tags": split_list(" ".join(tags)) if tags else None,
        "trigger_paths": split_list(" ".join(trigger_paths)) if trigger_paths else None,
        "setup_command": setup_command, "setup_python": setup_python, "grader_command": grader_command,
        "grader_timeout": grader_timeout, **scorecard,
    }
    draft = replace(draft, **{key: value for key, value in changes.items() if value is not None})
    check_invariant_policy(draft.invariant_policy, draft.policy, parse_invariants_text(draft.invariants),
                           "--invariant-policy", "policy (--policy)", "--invariant")
    repo = source_repo(corpus)
    verdict = candidate_verdict(stored.directory)
    try:
        decision = approve(corpus, candidate, draft, override=override, expect_mtime_ns=stored.mtime_ns,
                           in_base=base_probe(repo, stored.case.base_commit),
                           fix_message=fix_message(repo, stored.case))
    except LeakRefused as refused:
        for finding in refused.findings:
            click.echo(f"{prompt_file.name}:{finding.describe()}", err=True)
        raise
    click.echo(decision.describe())
    standing = standing_verdict(verdict, stored, corpus.load(str(decision.case_id), "cases"))
    if standing is not None and standing.verdict != "VALID":
        click.echo(f"authoring: warning: runner verify found {candidate} {standing.verdict} ({standing.reason}): "
                   f"a run scores it unproved; fix it (authoring set --cases {decision.case_id}) and "
                   f"runner verify --case {decision.case_id}", err=True)


@cli.command("add-prompt")
@corpus_option()
@click.argument("case_id", metavar="CASE")
@click.option("--file", "text_file", type=click.File("r", encoding="utf-8"), required=True,
              help="File holding the new wording of the task ('-' for stdin).")
@click.option("--id", "wording_id", metavar="ID", help="The wording's id, a slug [default: w2, w3, ...].")
@click.option("--candidate", "to_candidate", is_flag=True,
              help="Add it to a candidate instead of a case (linted with its prompt when it is approved).")
@click.option("--override", help="Written justification to add it despite leakage findings (stored in the case).")
def add_prompt_command(corpus_dir: Path, case_id: str, text_file: TextIO, wording_id: str | None,
                       to_candidate: bool, override: str | None) -> None:
    """Add a wording of CASE's task (prompts:); each trial of a run is given one of the case's wordings, drawn from
    the run's --seed. Linted like the prompt: leakage findings refuse it. The case's fingerprint changes."""
    corpus = Corpus.open(corpus_dir)
    kind: Kind = "candidates" if to_candidate else "cases"
    stored = corpus.load(case_id, kind)
    repo = source_repo(corpus)
    try:
        wording = add_wording(corpus, case_id, text_file.read(), wording_id=wording_id, kind=kind,
                              override=override, in_base=base_probe(repo, stored.case.base_commit),
                              fix_message=fix_message(repo, stored.case))
    except WordingRefused as refused:
        for finding in refused.findings:
            click.echo(f"{text_file.name}:{finding.describe()}", err=True)
        raise
    count = len(corpus.load(case_id, kind).case.prompts) + 1
    click.echo(f"added wording {wording.id} to {kind}/{case_id}: {count} wordings; runs made before it compare "
               f"with later ones only with --allow-dataset-change")


@cli.command("reject")
@corpus_option()
@click.argument("candidate")
@click.option("--reason", required=True, help="Why (kept in rejected.yaml; the miner never proposes it again).")
def reject_command(corpus_dir: Path, candidate: str, reason: str) -> None:
    """Reject CANDIDATE: record its fix commit in rejected.yaml and remove the candidate."""
    corpus = Corpus.open(corpus_dir)
    stored = corpus.load(candidate, "candidates")
    pid = patch_id(source_repo(corpus), stored.case.base_commit, stored.case.fix_commit)
    decision = reject(corpus, candidate, reason, patch_id=pid)
    click.echo(f"{decision.describe()} (fix {stored.case.fix_commit[:12]}); it will not be proposed again")


@cli.command("set")
@corpus_option()
@click.argument("ids", nargs=-1, metavar="[ID]...")
@click.option("--all", "every", is_flag=True, help="Every candidate (or, with --cases, every case).")
@click.option("--cases", "edit_cases", is_flag=True, help="Edit approved cases instead of candidates.")
@click.option("--setup-command", help="Workspace setup command ('' removes it).")
@click.option("--setup-python", metavar="VERSION", help="Interpreter version such as 3.11 ('' removes it).")
@click.option("--setup-timeout", type=click.IntRange(min=1), metavar="SECONDS", help="Setup timeout in seconds.")
@click.option("--grader-timeout", type=click.IntRange(min=1), metavar="SECONDS", help="Grader timeout in seconds.")
@click.option("--owner", help="Owner ('' for the corpus default).")
@click.option("--policy", type=click.Choice(["advisory", "blocking"]), help="Gate policy.")
@click.option("--critical/--not-critical", default=None,
              help="Mark the cases as critical (any regression blocks the gate) or unmark them.")
@click.option("--tag", "tags", multiple=True, help="A tag to add (repeatable; the cases' own tags stay).")
@scorecard_options("adds to each case's")
@click.option("--holdout/--no-holdout", default=None,
              help="Mark the cases as holdout (kept out of report and compare unless --holdout) or unmark them.")
@click.option("--dry-run", is_flag=True, help="Show what would change; write nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print the changes as JSON.")
def set_command(corpus_dir: Path, ids: tuple[str, ...], every: bool, edit_cases: bool, setup_command: str | None,
                setup_python: str | None, setup_timeout: int | None, grader_timeout: int | None, owner: str | None,
                policy: str | None, critical: bool | None, tags: tuple[str, ...], allowed_paths: tuple[str, ...],
                clear_allowed_paths: bool,
                risk_flags: tuple[str, ...], clear_risk_flags: bool, invariants: tuple[str, ...],
                clear_invariants: bool, invariant_policy: str | None, holdout: bool | None, dry_run: bool,
                as_json: bool) -> None:
    """Set fields on many candidates (or cases) at once: the IDs given, or --all.

    --tag, --allowed-path and --risk-flag add to each case's lists, --invariant adds one or replaces the case's
    invariant of that name; --clear-... empties a list first (so --clear-invariants --invariant ... replaces it).
    """
    changes = Changes(setup_command=setup_command, setup_python=setup_python, setup_timeout=setup_timeout,
                      grader_timeout=grader_timeout, owner=owner, policy=policy, critical=critical, add_tags=tags,
                      add_allowed_paths=allowed_paths, clear_allowed_paths=clear_allowed_paths,
                      add_risk_flags=risk_flags, clear_risk_flags=clear_risk_flags, add_invariants=invariants,
                      clear_invariants=clear_invariants, invariant_policy=invariant_policy, holdout=holdout)
    changes.check()
    corpus = Corpus.open(corpus_dir)
    kind: Kind = "cases" if edit_cases else "candidates"
    selected = select_ids(corpus, kind, ids, every)
    done = set_fields(corpus, selected, kind, changes, dry_run=dry_run)
    if as_json:
        click.echo(json.dumps({"kind": kind, "dry_run": dry_run, "selected": len(selected), "changed": len(done),
                               "changes": [{"id": change.id, "path": str(change.path),
                                            "fields": {name: {"before": _plain(old), "after": _plain(new)}
                                                       for name, old, new in change.fields}}
                                           for change in done]}, indent=2))
        return
    for change in done:
        fields = "; ".join(f"{name} {_shown(old)} -> {_shown(new)}" for name, old, new in change.fields)
        click.echo(f"{kind}/{change.id}: {fields}")
    verb = "would change" if dry_run else "changed"
    click.echo(f"{verb} {len(done)} of {len(selected)} {kind[:-1] if len(selected) == 1 else kind}")


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return dataclasses.asdict(value) if dataclasses.is_dataclass(value) and not isinstance(value, type) else value


def _shown(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, tuple):
        return ", ".join(repr(format_invariants([item])) if not isinstance(item, str) else item
                         for item in value) or "(none)"
    return repr(value) if isinstance(value, str) else str(value)


@cli.command("lint")
@corpus_option()
def lint_command(corpus_dir: Path) -> None:
    """Check every active case's prompt for leaks and secrets; one line per finding, exit 1 if any."""
    report = lint_corpus(Corpus.open(corpus_dir))
    for item in report.reported:
        click.echo(item.line())
    if report.reported:
        affected = len({item.case_id for item in report.reported})
        raise HindcastError(f"{len(report.reported)} finding(s) in {affected} of {report.cases} active case(s)")
    overridden = len(report.findings) - len(report.reported)
    note = f" ({overridden} leakage finding(s) justified by leak_override)" if overridden else ""
    click.echo(f"{report.cases} active case(s), no findings{note}")


main = entry(cli, "authoring")


@cli.command("holdout")
@corpus_option()
@click.option("--fraction", type=click.FloatRange(min=0.0, max=1.0, min_open=True, max_open=True), required=True,
              help="The share of the active cases to hold out, e.g. 0.2.")
@click.option("--seed", type=int, default=0, show_default=True, help="The draw's seed: one seed, one set.")
@click.option("--dry-run", is_flag=True, help="Show what would be marked; write nothing.")
def holdout_command(corpus_dir: Path, fraction: float, seed: int, dry_run: bool) -> None:
    """Mark a random share of the active cases as holdout, stratified by critical, blocking and advisory: report
    and compare leave them out unless given --holdout. Cases already holdout stay so and count toward the share."""
    draw = draw_holdout(Corpus.open(corpus_dir), HoldoutOptions(fraction, seed, dry_run))
    for stratum in draw.strata:
        chosen = f": {', '.join(stratum.chosen)}" if stratum.chosen else ""
        click.echo(f"{stratum.name}: {stratum.holdout} of {stratum.cases} holdout ({len(stratum.already)} already, "
                   f"{len(stratum.chosen)} {'to mark' if dry_run else 'marked'}){chosen}")
    verb = "would mark" if dry_run else "marked"
    click.echo(f"{verb} {len(draw.changes)} case{'' if len(draw.changes) == 1 else 's'} as holdout; a holdout "
               f"case's prompt must not retell its fix commit's message (authoring lint)")
