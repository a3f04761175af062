"""The CLI edge: options every tool shares, and HindcastError as one line on stderr and an ExitCode."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from corpus.errors import ExitCode, HindcastError
from corpus.layout import default_corpus

CONTEXT = {"help_option_names": ["-h", "--help"]}
"""click context settings of every command group: `-h` is `--help` (subcommands inherit it)."""


def version_option(prog: str) -> Callable[[Any], Any]:
    """`--version` printing `<prog> <hindcast version>` and exiting 0."""
    from corpus import __version__

    return click.version_option(__version__, "--version", prog_name=prog, message="%(prog)s %(version)s",
                                help="Show the version and exit.")


def corpus_option(help: str = "Corpus directory.") -> Callable[[Any], Any]:
    """`--corpus DIR` (default `./evals`, or `.` inside a corpus), passed to the command as `corpus_dir`."""
    return click.option("--corpus", "corpus_dir", type=click.Path(path_type=Path), default=default_corpus,
                        show_default="./evals, or . inside a corpus", help=help)


def repo_option(help: str = "Source repository (overrides corpus.yaml).") -> Callable[[Any], Any]:
    """`--repo PATH`, passed to the command as `repo` (None: the corpus's own)."""
    return click.option("--repo", type=click.Path(path_type=Path), default=None, help=help)


def run_cli(group: click.Group, prog: str, argv: list[str] | None = None) -> int:
    """Run a click group, mapping every error to its ExitCode: a command's own int result is its code."""
    try:
        result = group.main(args=argv, prog_name=prog, standalone_mode=False)
    except HindcastError as exc:
        click.echo(f"{prog}: error: {exc.message}", err=True)
        return exc.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt):
        click.echo(f"{prog}: interrupted", err=True)
        return ExitCode.INTERRUPTED
    except click.ClickException as exc:  # usage errors included: click's own code for them is 2, ours is 3
        click.echo(f"{prog}: error: {exc.format_message()}", err=True)
        return ExitCode.BAD_INPUT if isinstance(exc, click.UsageError) else exc.exit_code or ExitCode.BAD_INPUT
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except BrokenPipeError:
        return ExitCode.FAILED
    except OSError as exc:  # what no command mapped (a full disk met outside a write Hindcast wraps): one line
        where = f"{exc.filename}: " if exc.filename else ""
        click.echo(f"{prog}: error: {where}{exc.strerror or exc}", err=True)
        return ExitCode.FAILED
    return int(result) if isinstance(result, int) else ExitCode.OK


def entry(group: click.Group, prog: str) -> Callable[[], None]:
    """A console-script entry point for group."""

    def main() -> None:
        sys.exit(run_cli(group, prog))

    return main
