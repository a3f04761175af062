"""`runner report RUN --html FILE --watch SECONDS`: the page of a run still going, rewritten as its trials are
recorded, reloading itself in the browser until the run is complete."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from runner.report.report import write_html
from runner.runs.load import LoadedRun, load_run


def watch_html(run_dir: Path, html_path: Path, interval: float, said: Callable[[LoadedRun], None] = lambda _: None,
               sleep: Callable[[float], None] = time.sleep,
               shown: Callable[[LoadedRun], LoadedRun] = lambda run: run) -> LoadedRun:
    """Write the page of the run as it stands (its recorded trials only: a trial folder run.json does not record
    yet is left out, a changed or deleted result still refused) every interval seconds until no planned trial is
    missing, and return the complete run. While trials are missing the page (and its trial pages) reload
    themselves every interval seconds; said is told of every page written; shown is the part of the run a page
    shows (``runner.runs.holdout.tuning_view`` leaves the holdout cases out)."""
    while True:
        run = shown(load_run(run_dir, live=True))
        write_html(run, html_path, refresh=max(1, round(interval)))
        said(run)
        if not run.missing:
            return run
        sleep(interval)
