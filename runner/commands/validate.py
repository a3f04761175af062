"""`runner validate`: check every corpus file (over runner.verify.validate)."""

from __future__ import annotations

from pathlib import Path

import click

from corpus import Corpus
from corpus.cli_support import corpus_option, repo_option
from corpus.errors import UsageError
from corpus.fingerprint import shown_fingerprint
from runner.verify.validate import validate


@click.command("validate")
@corpus_option()
@repo_option()
def validate_command(corpus_dir: Path, repo: Path | None) -> None:
    """Check every corpus file and print the number of cases and the dataset fingerprint.

    Every problem is reported in one pass, one line each on stderr, followed by their count (exit 3)."""
    report = validate(Corpus.open(corpus_dir), repo)
    if report.errors:
        for error in report.errors:
            click.echo(f"runner: error: {error}", err=True)
        count = len(report.errors)
        raise UsageError(f"{corpus_dir}: {count} {'problem' if count == 1 else 'problems'} found")
    click.echo(f"corpus {corpus_dir}: {report.cases} cases ({report.active} active), "
               f"{report.candidates} candidates, {report.rejected} rejected")
    click.echo(f"dataset fingerprint: {shown_fingerprint(report.dataset_fingerprint)}")
