"""`runner import` and `runner export`: runs made elsewhere as JSONL rows (over runner.runs.interop), and cases
exported for other harnesses (over runner.exports)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from corpus import Corpus
from corpus.errors import ExitCode, HindcastError
from corpus.fsutil import atomic_write_text
from corpus.layout import default_corpus
from corpus.model import POLICIES, one_of
from runner.behaviour.export import export_rows
from runner.commands.options import RUN_HELP, run_dir
from runner.runs.frozen import freeze
from runner.runs.interop import import_rows
from runner.runs.load import load_run


@click.command("import")
@click.argument("source", type=click.Path(path_type=Path), metavar="FILE.jsonl|JOB_DIR")
@click.option("--out", type=click.Path(path_type=Path), required=True, metavar="RUN_DIR",
              help="The run directory to make (it must not exist).")
@click.option("--variant", default="imported", show_default=True, metavar="NAME",
              help="The variant of rows that do not name one.")
@click.option("--policy", type=click.Choice(["blocking", "advisory"]), default="blocking", show_default=True,
              help="The policy of the imported cases whose rows give none (a case a row marks critical is blocking and "
                   "critical).")
@click.option("--name", default=None, metavar="LABEL", help="Name the run, as `runner run --name` does.")
def import_command(source: Path, out: Path, variant: str, policy: str, name: str | None) -> None:
    """Make a run directory from per-trial JSONL rows (case_id, trial, passed, critical, cost_usd, trajectory), or
    from a Harbor job directory (one result.json per trial, its reward the outcome), so report, compare and flakes
    read results produced by another harness."""
    made = import_rows(source, out, variant, one_of(policy, POLICIES, "--policy"), name)
    click.echo(f"imported {source} as run {made}")


@click.command("export", help=(
    "Write a run's trials as JSONL rows (--jsonl: case_id, variant, trial, passed, outcome, reason, critical, "
    "cost_usd, tokens and the trajectory read from each transcript), or the whole run as one frozen file (--json: "
    "run.json and every trial's result and behaviour, without transcripts or patches).\n\n"
    "With --format and no RUN, write the corpus's active cases for another harness: swe-bench (one instance per "
    "line of --out FILE.jsonl) or harbor (one task directory per case under --out DIR). What a case sets that the "
    "target cannot carry is a warning on stderr, one line per case and field; the exit is non-zero only when no "
    "case could be exported.\n\nRUN: " + RUN_HELP))
@click.argument("run", type=click.Path(path_type=Path), required=False)
@click.option("--jsonl", "jsonl_file", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Write one row per trial to FILE ('-' for stdout).")
@click.option("--json", "json_file", type=click.Path(dir_okay=False, path_type=Path), default=None, metavar="FILE",
              help="Write the run as one frozen file ('-' for stdout) that report, compare and flakes accept "
                   "wherever they take a run: a gate baseline to commit.")
@click.option("--corpus", "corpus_dir", type=click.Path(path_type=Path), default=None,
              help="Where a bare `latest` or run name is looked up, and the corpus --format exports "
                   "[default: ./evals].")
@click.option("--format", "export_format", type=click.Choice(["swe-bench", "harbor"]), default=None,
              help="Export the corpus's cases (no RUN): swe-bench instances or harbor task directories.")
@click.option("--out", type=click.Path(path_type=Path), default=None, metavar="FILE.jsonl|DIR",
              help="With --format: the JSONL file (swe-bench) or the new or empty directory (harbor) to write.")
@click.option("--repo", type=click.Path(path_type=Path), default=None,
              help="With --format: the source repository (overrides corpus.yaml).")
@click.option("--case", "case_ids", multiple=True, metavar="ID",
              help="With --format: export only this case (repeatable).")
@click.option("--repo-name", default=None, metavar="OWNER/NAME",
              help="With --format swe-bench: the instances' repo [default: origin's GitHub owner/name].")
def export_command(run: Path | None, jsonl_file: Path | None, json_file: Path | None, corpus_dir: Path | None,
                   export_format: str | None, out: Path | None, repo: Path | None, case_ids: tuple[str, ...],
                   repo_name: str | None) -> int:
    if export_format is not None:
        return _export_cases(run, jsonl_file, json_file, corpus_dir, export_format, out, repo, case_ids, repo_name)
    if out is not None or repo is not None or case_ids or repo_name is not None:
        raise click.UsageError("--out, --repo, --case and --repo-name go with --format swe-bench|harbor")
    if run is None:
        raise click.UsageError("missing argument RUN (or give --format swe-bench|harbor to export cases)")
    if (jsonl_file is None) == (json_file is None):
        raise click.UsageError("give either --jsonl FILE or --json FILE")
    directory = run_dir(run, corpus_dir)
    loaded = load_run(directory)
    text, target = (export_rows(loaded), jsonl_file) if jsonl_file is not None else (freeze(loaded), json_file)
    assert target is not None
    if str(target) == "-":
        sys.stdout.write(text)
        return ExitCode.OK
    atomic_write_text(target, text)
    shape = "JSONL rows" if jsonl_file is not None else "one frozen file"
    click.echo(f"exported {len(loaded.trials)} trial(s) of run {directory} as {shape} to {target}")
    return ExitCode.OK


def _export_cases(run: Path | None, jsonl_file: Path | None, json_file: Path | None, corpus_dir: Path | None,
                  export_format: str, out: Path | None, repo: Path | None, case_ids: tuple[str, ...],
                  repo_name: str | None) -> int:
    if run is not None or jsonl_file is not None or json_file is not None:
        raise click.UsageError("--format exports the corpus's cases: give no RUN, --jsonl or --json with it")
    if out is None:
        raise click.UsageError(f"--format {export_format} needs --out "
                               f"{'FILE.jsonl' if export_format == 'swe-bench' else 'DIR'}")
    if repo_name is not None and export_format != "swe-bench":
        raise click.UsageError("--repo-name goes with --format swe-bench")
    corpus = Corpus.open(corpus_dir or default_corpus())
    if export_format == "swe-bench":
        from runner.exports.swebench import export_swebench

        report = export_swebench(corpus, out, repo, case_ids, repo_name)
    else:
        from runner.exports.harbor import export_harbor

        report = export_harbor(corpus, out, repo, case_ids)
    for note in report.notes:
        click.echo(f"warning: {note.line()}", err=True)
    if not report.exported:
        raise HindcastError(f"nothing exported: every case was skipped ({len(report.skipped)}); {out} not written")
    skipped = f", {len(report.skipped)} skipped" if report.skipped else ""
    click.echo(f"exported {len(report.exported)} case(s) to {out}{skipped}")
    return ExitCode.OK
