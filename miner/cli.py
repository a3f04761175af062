"""The `miner` command line: a thin click layer over `miner.scan.scan`."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from corpus.cli_support import CONTEXT, entry, version_option
from corpus.errors import UsageError
from corpus.layout import CONFIG
from corpus.store import Corpus
from miner.scan import Progress, ScanOptions, ScanResult, scan
from miner.score import SizeLimits

TOP = 10


@click.group(context_settings=CONTEXT)
@version_option("miner")
def cli() -> None:
    """Propose eval cases from a repository's fix commits."""


@contextmanager
def _progress(enabled: bool) -> Iterator[Progress | None]:
    """A progress bar on stderr when it is a terminal; nothing otherwise."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                   console=Console(stderr=True), transient=True)
    tasks: dict[str, TaskID] = {}

    def report(phase: str, done: int, total: int | None) -> None:
        if phase not in tasks:
            tasks[phase] = bar.add_task(phase, total=total)
        bar.update(tasks[phase], completed=done, total=total)

    with bar:
        yield report


def _repo_from(corpus_dir: Path, repo: Path | None) -> Path:
    if repo is not None:
        return repo
    if (corpus_dir / CONFIG).exists():
        return Corpus.open(corpus_dir).repo_path()
    raise UsageError("no repository: pass --repo PATH (or --corpus DIR of a corpus that names one)")


def summary(result: ScanResult) -> str:
    """The human summary printed after a scan."""
    stats = result.stats
    where = f" written to {result.corpus / 'candidates'}" if result.corpus and stats.candidates else ""
    span = f" {stats.span.describe()}" if stats.span else ""
    lines = [f"scanned {stats.commits_scanned} commits{span} in {stats.seconds:.2f} s",
             f"  prefiltered: {stats.prefiltered}",
             f"  candidates:  {stats.candidates}{where}"]
    if stats.skipped:
        lines.append("  skipped:")
        width = max(len(reason) for reason in stats.skipped)
        lines += [f"    {reason:<{width}}  {count}" for reason, count in sorted(stats.skipped.items(),
                                                                              key=lambda kv: (-kv[1], kv[0]))]
    if not stats.commits_scanned:
        lines.append("nothing new: no commit in the range given" if stats.tip is None else
                     f"nothing new: every commit up to {stats.tip[:7]} was covered by an earlier scan (--full "
                     f"rescans the whole history)")
    elif not stats.candidates:
        lines.append(f"no new candidate: none of the {stats.commits_scanned} commits is a fix that changes tests "
                     f"and source and was not proposed before")
    if result.candidates:
        lines.append(f"top {min(TOP, len(result.candidates))}:")
        for candidate in result.candidates[:TOP]:
            mined = candidate.case.mined
            score = mined.score if mined else 0.0
            lines.append(f"  {score:5.2f}  {candidate.case.id}")
    return "\n".join(lines)


@cli.command("scan")
@click.option("--repo", type=click.Path(path_type=Path), help="Repository to scan (default: the corpus's repo).")
@click.option("--corpus", "corpus_dir", type=click.Path(path_type=Path), default=Path("evals"), show_default=True,
              help="Corpus directory; created when missing.")
@click.option("--rev", help="Revision range to scan, e.g. v1.0..main (default: HEAD).")
@click.option("--since", help="Only commits after this date.")
@click.option("--until", help="Only commits before this date.")
@click.option("--max-candidates", type=click.IntRange(min=0), help="Keep only the N best candidates of this scan.")
@click.option("--min-score", type=float, help="Drop candidates scoring below this (fix words, issue references, "
              "size and tests added make the score; see DESIGN.md).")
@click.option("--full", is_flag=True, help="Rescan all history, not only commits since the last scan.")
@click.option("--merges/--no-merges", default=True, show_default=True,
              help="Consider merge commits by their first-parent diff.")
@click.option("--max-files", type=click.IntRange(min=1), default=SizeLimits.max_files, show_default=True,
              help="Skip commits changing more paths than this.")
@click.option("--max-lines", type=click.IntRange(min=1), default=SizeLimits.max_lines, show_default=True,
              help="Skip commits changing more source and test lines than this.")
@click.option("--szz", is_flag=True, help="Find the commits that introduced each candidate's bug (slower).")
@click.option("--dry-run", is_flag=True, help="Report candidates without writing anything.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON document instead of the summary.")
def scan_command(repo: Path | None, corpus_dir: Path, rev: str | None, since: str | None, until: str | None,
                 max_candidates: int | None, min_score: float | None, full: bool, merges: bool, max_files: int, max_lines: int, szz: bool,
                 dry_run: bool, as_json: bool) -> None:
    """Walk the repository's history and write candidate cases into the corpus's candidates/."""
    options = ScanOptions(repo=_repo_from(corpus_dir, repo), corpus=corpus_dir, rev=rev, since=since, until=until,
                          max_candidates=max_candidates, min_score=min_score, full=full, merges=merges,
                          limits=SizeLimits(max_files=max_files, max_lines=max_lines), szz=szz, write=not dry_run)
    with _progress(sys.stderr.isatty()) as progress:
        result = scan(options, progress)
    for warning in result.warnings:
        click.echo(f"miner: warning: {warning}", err=True)
    if as_json:
        import json  # only here: every scan would pay for loading it

        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(summary(result))


main = entry(cli, "miner")
