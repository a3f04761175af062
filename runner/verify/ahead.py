"""Environments built ahead of their attempts: once verify's jobs have taken their first attempts, one build at a
time makes the entries of the cases none of whose attempts has started yet, in case order, so an attempt that
starts later finds its environment in the cache instead of building it in its slot."""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from corpus import StoredCase
from corpus.errors import HindcastError
from runner.children import kill_running
from runner.executors.jobs import Node
from runner.verify.measure import measuring_case
from runner.verify.schedule import BuildersFirst
from runner.workspace.prepare import prepare


class BuildAhead:
    """One thread that builds the cases' environment entries ahead of their attempts (only with an environment
    cache on this machine: the entries are what stays). A case whose attempt started builds its own; a build that
    fails here is left for the case's attempt, which builds it again and reports what failed."""

    def __init__(self, cases: Sequence[StoredCase], node: Node, order: BuildersFirst[Any], jobs: int) -> None:
        self.cases, self.node, self.order, self.jobs = cases, node, order, jobs
        self.stopping = threading.Event()
        self._thread = threading.Thread(target=self._run, name="hindcast-build-ahead", daemon=True)

    def start(self) -> None:
        """Begin building."""
        self._thread.start()

    def stop(self) -> None:
        """Build nothing more, and wait for the build in progress; once the command is cancelled (Ctrl-C) that
        build's processes are killed until it ends, as the jobs' are."""
        self.stopping.set()
        while self._thread.is_alive():
            if self.node.cancel.is_set():
                kill_running()
            self._thread.join(0.1)

    def _run(self) -> None:
        node = self.node
        self.order.wait_handed(self.jobs, self.stopping)  # the first builds are the jobs' own
        for stored in self.cases:
            if self.stopping.is_set() or node.cancel.is_set():
                return
            case = stored.case
            if not (case.setup.command or case.setup.python) or not self.order.claim(case.id):
                continue
            scratch = Path(tempfile.mkdtemp(prefix=f"{case.id}-ahead-", dir=node.scratch))
            try:
                # a failure here is the case attempt's to meet again and report
                with contextlib.suppress(Exception):
                    assets = node.assets.get(stored)
                    if not isinstance(assets, HindcastError):
                        prepare(measuring_case(case), node.repo, scratch, pristine=assets.pristine,
                                confinement=node.confinement, env_cache=node.env_cache, cancel=node.cancel)
            finally:
                self.order.release(case.id)
                node.discard(scratch)
