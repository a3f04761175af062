"""Write candidates in background threads while the second pass still runs; rename them in at the end.

Which candidates a scan keeps (patch-id dedupe) and their final ids (a longer sha on a collision) are only
known once every commit is extracted, but their files are known as soon as each one is. Each is written into
`<area>/<fix sha>/` of one hidden staging area as it arrives; at the end the kept ones are renamed into
`candidates/<id>` (case.yaml rewritten first in the rare case the final id differs) and the area, with any
dropped candidate in it, is removed. A reader never sees half a candidate: only a finished directory is
renamed in, and the staging area is hidden (`Corpus.ids` skips dot-directories).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from corpus.errors import UsageError
from corpus.newcase import rewrite_case_file, write_files
from miner.candidate import Candidate

THREADS = 2
"""Writer threads: file and directory creation is kernel work that overlaps Python and git. More threads only
contend for the two cores the benchmark machine has (measured: 1 ~ 2 < 4 when creating files is cheap; more
threads help only when it is slow)."""


class Stager:
    """A staging area on the corpus's file system and the threads that fill it."""

    def __init__(self, beside: Path, name: str) -> None:
        self.beside = beside
        self.name = name
        self.area: Path | None = None
        self.made_beside = False
        self.unavailable = False
        self.pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="stage")
        self.staged: dict[str, tuple[Candidate, Future[str]]] = {}

    def _write(self, directory: str, candidate: Candidate) -> str:
        os.mkdir(directory)
        write_files(directory, candidate.case, candidate.files)
        return directory

    def stage(self, candidate: Candidate) -> None:
        """Start writing a candidate (keyed by its fix commit) in the background; when no staging area can be
        made there, nothing is staged and every candidate is written at the end instead."""
        if self.unavailable:
            return
        if self.area is None:
            try:
                if not self.beside.is_dir():
                    self.beside.mkdir()
                    self.made_beside = True
                self.area = Path(tempfile.mkdtemp(prefix=f".{self.name}.scan-", suffix=".staging",
                                                  dir=self.beside))
            except OSError:
                self.unavailable = True
                return
        sha = candidate.case.fix_commit
        future = self.pool.submit(self._write, f"{self.area}/{sha}", candidate)
        self.staged[sha] = (candidate, future)

    def candidate(self, sha: str) -> Candidate | None:
        """The candidate staged for a fix commit, as it was built then."""
        found = self.staged.get(sha)
        return found[0] if found else None

    def publish(self, candidate: Candidate, parent: Path) -> Path:
        """Rename a staged candidate into parent/<id>; its case.yaml is rewritten first if it changed."""
        staged, future = self.staged.pop(candidate.case.fix_commit)
        directory = future.result()
        if candidate.case != staged.case:
            rewrite_case_file(directory, candidate.case)
        target = parent / candidate.case.id
        if target.exists():
            raise UsageError(f"{target}: already exists; nothing was written")
        os.rename(directory, target)
        return target

    def close(self) -> None:
        """Wait for the writers and remove the staging area with whatever was not published."""
        self.pool.shutdown(wait=True)
        if self.area is not None:
            shutil.rmtree(self.area, ignore_errors=True)
            self.area = None
        if self.made_beside:
            try:
                self.beside.rmdir()  # only when nothing was published into it
            except OSError:
                pass
