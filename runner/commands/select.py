"""`runner select`: the cases whose trigger paths match a change (over runner.gate.select)."""

from __future__ import annotations

from pathlib import Path

import click

from corpus.cli_support import corpus_option, repo_option
from corpus.errors import UsageError
from corpus.store import Corpus
from runner.commands.options import GATE_CORPUS_HELP
from runner.gate.select import changed_since, select_cases


@click.command("select")
@corpus_option(GATE_CORPUS_HELP)
@repo_option("Source repository for --since (overrides corpus.yaml).")
@click.option("--changed", is_flag=True, help="The PATHS given are the changed files (the default when PATHS "
              "are given; kept for scripts).")
@click.option("--since", metavar="REV", default=None, help="Select by the files changed since REV.")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
def select_command(corpus_dir: Path, repo: Path | None, changed: bool, since: str | None,
                   paths: tuple[str, ...]) -> None:
    """Print the ids of the cases whose trigger paths match the changed files, one per line: the PATHs given
    (repository-relative), or the files changed since --since REV."""
    if since is not None and (paths or changed):
        raise UsageError("give either the changed PATH... or --since REV, not both")
    if since is None and not paths:
        raise UsageError("--changed needs at least one path" if changed else
                         "give the changed files (runner select PATH...) or --since REV")
    corpus = Corpus.open(corpus_dir)
    files = list(paths) if since is None else changed_since(corpus.repo_path(repo), since)
    for case_id in select_cases(corpus, files):
        click.echo(case_id)
