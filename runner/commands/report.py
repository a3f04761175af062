"""`runner report`: show a run as a table, JSON or an HTML page, or one trial's block (over runner.report.report)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from runner.commands.options import run_dir
from runner.report.report import print_report, report_json, trial_json, trial_report, write_html
from runner.runs.load import load_run


@click.command("report")
@click.argument("run", type=click.Path(path_type=Path), metavar="RUN")
@click.option("--corpus", "corpus_dir", type=click.Path(path_type=Path), default=None,
              help="Where a bare `latest` or run name is looked up [default: ./evals].")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of the table.")
@click.option("--html", "html_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, metavar="FILE",
              help="Also write a self-contained HTML page embedding and linking every trial's artifacts.")
@click.option("--trial", "trial_spec", default=None, metavar="VARIANT/CASE/N",
              help="Show only this trial: the agent's plan, each verification lane, the failure excerpt and the "
                   "JUnit report's per-test lists, the score line, the hint and the paths of its files (with --json, "
                   "that trial's entry).")
def report_command(run: Path, corpus_dir: Path | None, as_json: bool, html_file: Path | None,
                   trial_spec: str | None) -> None:
    """Show a run: pass rate, pass@k, pass^k and errors per case and variant, recomputed from the trials, then
    the scorecard per variant, behaviour (medians per case, totals) and, for cases with a trajectory or max_turns,
    each trial's verdicts.

    RUN is a run directory, `latest` (the newest run) or a run's --name, bare or after a results directory."""
    loaded = load_run(run_dir(run, corpus_dir))
    if trial_spec is not None:
        if as_json:
            click.echo(json.dumps(trial_json(loaded, trial_spec), indent=2, sort_keys=True))
        else:
            click.echo("\n".join(trial_report(loaded, trial_spec)))
        if html_file is not None:
            write_html(loaded, html_file)
        return
    if html_file is not None:
        write_html(loaded, html_file)
    if as_json:
        click.echo(report_json(loaded), nl=False)
    else:
        print_report(loaded)
        if html_file is not None:
            click.echo(f"html report: {html_file}")
