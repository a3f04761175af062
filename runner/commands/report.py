"""`runner report`: show a run as a table, JSON or an HTML page, or one trial's block (over runner.report.report)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from corpus.errors import UsageError
from runner.commands.options import run_dir
from runner.report.report import print_report, report_json, write_html
from runner.report.review import find_review
from runner.report.trialblock import trial_json, trial_report
from runner.report.watch import watch_html
from runner.runs.holdout import tuning_view
from runner.runs.load import held_until_exit, load_run


@click.command("report")
@click.argument("run", type=click.Path(path_type=Path), metavar="RUN")
@click.option("--corpus", "corpus_dir", type=click.Path(path_type=Path), default=None,
              help="Where a bare `latest` or run name is looked up [default: ./evals].")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of the table.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, metavar="FILE",
              help="Also write an HTML page linking every trial's artifacts: each trial's section on the page, or above "
                   "200 trials on trial pages in FILE's _files folder beside it, embedding the first part of each.")
@click.option("--watch", type=click.IntRange(min=1), default=None, metavar="SECONDS",
              help="With --html: rewrite the page every SECONDS while the run is going, showing the trials recorded "
                   "so far (the page reloads itself meanwhile), until every planned trial is recorded; then print "
                   "the report.")
@click.option("--trial", "trial_spec", default=None, metavar="VARIANT/CASE/N",
              help="Show only this trial: the agent's plan, each verification lane, the failure excerpt and the "
                   "JUnit report's per-test lists, the score line, the hint and the paths of its files (with --json, "
                   "that trial's entry).")
@click.option("--holdout", "show_holdout", is_flag=True,
              help="Show the holdout cases too (left out by default, so tuning never sees them), with each "
                   "variant's pass rate on the tuning set and the holdout set side by side.")
@click.option("--review", "review_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              metavar="FILE", help="A checklist filled in after `runner sample` [default: RUN/review/checklist.yaml "
                                   "when there is one]: how many sampled passes a person judged wrong.")
def report_command(run: Path, corpus_dir: Path | None, as_json: bool, html_file: Path | None, watch: int | None,
                   trial_spec: str | None, show_holdout: bool, review_file: Path | None) -> None:
    """Show a run: pass rate, pass@k, pass^k and errors per case and variant, recomputed from the trials, then
    the scorecard per variant, behaviour (medians per case, totals) and, for cases with a trajectory or max_turns,
    each trial's verdicts.

    RUN is a run directory, `latest` (the newest run) or a run's --name, bare or after a results directory."""
    if watch is not None:
        if html_file is None:
            raise click.UsageError("--watch goes with --html FILE")
        if as_json or trial_spec is not None:
            raise click.UsageError("--watch writes the page, then prints the table: leave out --json and --trial")
        final = watch_html(run_dir(run, corpus_dir), html_file, watch, said=lambda now: click.echo(
            f"{html_file}: {len(now.trials)} of {len(now.trials) + now.missing} planned trials recorded"),
            shown=(lambda loaded: loaded) if show_holdout else tuning_view)
        print_report(final)
        click.echo(f"html report: {html_file}")
        return
    with held_until_exit():
        loaded = load_run(run_dir(run, corpus_dir))
    review = find_review(loaded, review_file)
    if not show_holdout:
        loaded = tuning_view(loaded)
        case_id = (trial_spec or "").partition("/")[2].rpartition("/")[0]
        if case_id in loaded.held_out:
            raise UsageError(f"--trial {trial_spec}: {case_id} is a holdout case, left out unless --holdout")
    if trial_spec is not None:
        if as_json:
            click.echo(json.dumps(trial_json(loaded, trial_spec), indent=2, sort_keys=True))
        else:
            click.echo("\n".join(trial_report(loaded, trial_spec)))
        if html_file is not None:
            write_html(loaded, html_file)
        return
    if html_file is not None:
        write_html(loaded, html_file, review)
    if as_json:
        click.echo(report_json(loaded, review), nl=False)
    else:
        print_report(loaded, review)
        if html_file is not None:
            click.echo(f"html report: {html_file}")
