"""`runner verify`: prove each case, base fails and oracle passes (over runner.verify.verify)."""

from __future__ import annotations

from pathlib import Path

import click

from corpus import Corpus
from corpus.cli_support import corpus_option, repo_option
from corpus.errors import ExitCode
from runner.commands.options import env_cache_dir, env_cache_options, json_option, sandbox_option
from runner.verify.verify import VerifyOptions, render_verdicts, report_json, verify


@click.command("verify")
@corpus_option()
@repo_option()
@click.option("--case", "case_ids", multiple=True, help="Verify only this case (repeatable).")
@click.option("--repeats", type=click.IntRange(min=1), default=1, show_default=True,
              help="Runs of each side; all must agree.")
@click.option("--jobs", type=click.IntRange(min=1), default=1, show_default=True, help="Attempts at once.")
@click.option("--candidates", is_flag=True, help="Verify the miner's candidates instead of approved cases.")
@sandbox_option
@env_cache_options
@json_option
def verify_command(corpus_dir: Path, repo: Path | None, case_ids: tuple[str, ...], repeats: int, jobs: int,
                   candidates: bool, sandbox: str, env_cache: Path | None, no_env_cache: bool,
                   as_json: bool) -> int:
    """Prove each case: the broken base fails its hidden grader and the oracle passes it."""
    corpus = Corpus.open(corpus_dir)
    options = VerifyOptions(case_ids=case_ids, repeats=repeats, jobs=jobs, repo=repo,
                            kind="candidates" if candidates else "cases", sandbox=sandbox,
                            env_cache=env_cache_dir(env_cache, no_env_cache))
    report = verify(corpus, options)
    click.echo(report_json(report) if as_json else "\n".join(render_verdicts(report)))
    return ExitCode.OK if report.all_valid else ExitCode.FAILED
