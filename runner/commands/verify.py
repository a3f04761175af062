"""CLI commands `runner validate` and `runner verify`."""

from __future__ import annotations

from pathlib import Path

import click

from corpus import Corpus
from corpus.cli_support import corpus_option, repo_option
from corpus.errors import ExitCode
from runner.verify.validate import validate
from runner.verify.verify import VerifyOptions, report_json, verify


@click.command("validate")
@corpus_option()
@repo_option()
def validate_command(corpus_dir: Path, repo: Path | None) -> None:
    """Check every corpus file and print the number of cases and the dataset fingerprint."""
    report = validate(Corpus.open(corpus_dir), repo)
    click.echo(f"corpus {corpus_dir}: {report.cases} cases ({report.active} active), "
               f"{report.candidates} candidates, {report.rejected} rejected")
    click.echo(f"dataset fingerprint: {report.dataset_fingerprint}")


@click.command("verify")
@corpus_option()
@repo_option()
@click.option("--case", "case_ids", multiple=True, help="Verify only this case (repeatable).")
@click.option("--repeats", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs of each side; all must agree.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Attempts at once.")
@click.option("--candidates", is_flag=True, help="Verify the miner's candidates instead of approved cases.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document.")
def verify_command(corpus_dir: Path, repo: Path | None, case_ids: tuple[str, ...], repeats: int, jobs: int,
                   candidates: bool, as_json: bool) -> int:
    """Prove each case: the broken base fails its hidden grader and the oracle passes it."""
    corpus = Corpus.open(corpus_dir)
    options = VerifyOptions(case_ids=case_ids, repeats=repeats, jobs=jobs, repo=repo,
                            kind="candidates" if candidates else "cases")
    report = verify(corpus, options)
    if as_json:
        click.echo(report_json(report))
    else:
        width = max([len(v.case_id) for v in report.verdicts] + [4])
        click.echo(f"{'CASE':<{width}}  VERDICT  REASON")
        for v in report.verdicts:
            click.echo(f"{v.case_id:<{width}}  {v.verdict:<7}  {v.reason}".rstrip())
        counts = {k: sum(1 for v in report.verdicts if v.verdict == k) for k in ("VALID", "INVALID", "ERROR")}
        click.echo(f"{len(report.verdicts)} cases: {counts['VALID']} valid, {counts['INVALID']} invalid, "
                   f"{counts['ERROR']} errors")
        click.echo(f"dataset fingerprint: {report.dataset_fingerprint}")
    return ExitCode.OK if report.all_valid else ExitCode.FAILED


COMMANDS = [validate_command, verify_command]
