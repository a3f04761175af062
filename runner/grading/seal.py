"""The grader sealed: its files read-only and hashed, its Python watched from the start, its outcome cross-checked.

The code under test runs inside the grader's pytest process, so nothing that process says is taken on trust
alone. Before the grader runs, the grader files and the test configuration are hashed and shown read-only
inside the sandbox (their directories bound onto themselves, so they cannot be renamed away either), and a seal
directory of the harness's (`sealed/`: sitecustomize, the audit hook, the pytest plugin) is shown read-only on
PYTHONPATH, with a pipe's write end handed down. Every Python the grader starts installs the audit hook before
any project code and pytest loads the plugin first; both write JSON lines the harness reads as they come.
Afterwards: tampering events attributed to the candidate's code, grader files that changed, and whether the
report, pytest's own account over the pipe and the exit status agree.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import threading
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from runner.grading.grader import TestOutcome, normalize_test_id
from runner.process import ProcessResult
from runner.sandbox.bwrap import WORKSPACE, Bind
from runner.workspace.inside import read_inside

SEAL_INSIDE = "/hindcast/seal"
"""Where the seal's directory is inside the grader's sandbox (read-only)."""
SEAL_DIR = "seal"
"""The seal's directory under the trial's scratch."""
SEALED = Path(__file__).with_name("sealed")
SEALED_FILES = ("sitecustomize.py", "hindcast_seal.py", "hindcast_seal_plugin.py")
CHANNEL_LIMIT = 4 * 1024 * 1024
"""Bytes of the channel kept (the candidate's code can write to it too; the rest is drained)."""
MAX_EVENTS = 200
"""Events kept in the report."""
HINT_FLAGS = {"dynamic_code": "dynamic_code", "frame_access": "frame_access", "object_search": "frame_access",
              "always_equal": "always_equal", "native_code": "native_code"}
"""Events that are evidence but not tampering, and the result flag each sets."""


@dataclass(frozen=True)
class SealEvent:
    """One thing the candidate's code was seen doing while the grader ran."""

    kind: str
    """write_grader, write_tests, read_tests, reexec_grader, import_hook, trace_hook, replaced_code,
    replaced_test, patched_framework, registered_plugin, seal_access, grader_files_changed (tampering);
    dynamic_code, frame_access, object_search, always_equal, native_code, process, audit_hook (evidence)."""
    detail: str
    """What exactly."""
    where: str = ""
    """The candidate's code that did it: path:line, when known."""
    tamper: bool = False
    """Tampering with the grader (the trial fails unless the corpus only flags it)."""


@dataclass(frozen=True)
class SealReport:
    """What the seal saw of one grader run."""

    sealed: bool
    """A pytest session was seen through the plugin (False: not a pytest grader, or its Python was not watched)."""
    events: tuple[SealEvent, ...] = ()
    """Events of the candidate's code, tampering first (at most MAX_EVENTS)."""
    disagreement: str | None = None
    """Why the report, pytest's account and the exit status disagree (checked when the grader said pass)."""
    expected: bool = False
    """A candidate's pytest grader: one the seal should have seen (`unsealed` when it did not)."""

    @property
    def tampering(self) -> tuple[SealEvent, ...]:
        """The events that are tampering with the grader."""
        return tuple(e for e in self.events if e.tamper)

    @property
    def flags(self) -> tuple[str, ...]:
        """The result flags this report sets."""
        flags = ["grader_tampering"] if self.tampering else []
        if self.expected and not self.sealed:
            flags.append("unsealed")
        if self.disagreement:
            flags.append("grader_disagreement")
        flags += sorted({HINT_FLAGS[e.kind] for e in self.events if not e.tamper and e.kind in HINT_FLAGS})
        return tuple(flags)

    def to_dict(self) -> dict[str, Any]:
        """result.json's `seal`."""
        return {"sealed": self.sealed, "disagreement": self.disagreement,
                "events": [asdict(e) for e in self.events]}


def grader_binds(workspace: Path, paths: Iterable[str]) -> tuple[Bind, ...]:
    """Each path that is a regular file in the workspace shown read-only over itself, after every directory on
    the way bound onto itself (a mount point cannot be renamed or removed)."""
    files = sorted(p for p in set(paths) if _regular(workspace, p))
    dirs = sorted({str(parent) for p in files for parent in PurePosixPath(p).parents if str(parent) != "."},
                  key=lambda d: (d.count("/"), d))
    binds = [Bind(workspace / d, f"{WORKSPACE}/{d}", writable=True) for d in dirs]
    return (*binds, *(Bind(workspace / p, f"{WORKSPACE}/{p}") for p in files))


def _regular(workspace: Path, path: str) -> bool:
    current = workspace
    for part in PurePosixPath(path).parts:
        current = current / part
        if os.path.islink(current):
            return False
    return current.is_file()


def digests(workspace: Path, paths: Iterable[str]) -> dict[str, str | None]:
    """sha256 of each path's file in the workspace (links never followed; None when there is none)."""
    out: dict[str, str | None] = {}
    for path in sorted(set(paths)):
        data = read_inside(workspace, path)
        out[path] = hashlib.sha256(data).hexdigest() if data is not None else None
    return out


class Seal:
    """One grader run's seal: the directory, the channel, the digests before; `report` after the run."""

    def __init__(self, scratch: Path, workspace: Path, *, sandboxed: bool, candidate: Iterable[str],
                 hidden: Iterable[str], protected: Iterable[str], junit: str | None) -> None:
        self.workspace, self.sandboxed, self.junit = workspace, sandboxed, junit
        self.hidden, self.protected = tuple(sorted(set(hidden))), tuple(sorted(set(protected) | set(hidden)))
        self.directory = scratch / SEAL_DIR
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory.mkdir(parents=True)
        for name in SEALED_FILES:
            shutil.copyfile(SEALED / name, self.directory / name)
        root = WORKSPACE if sandboxed else str(workspace)
        config = {"root": root, "candidate": sorted(set(candidate) - set(self.protected)),
                  "hidden": list(self.hidden), "protected": [*self.protected, *([junit] if junit else [])]}
        (self.directory / "seal.json").write_text(json.dumps(config), encoding="utf-8")
        self.before = digests(workspace, self.protected)
        self.read_fd, self.write_fd = os.pipe()
        self.lines: list[bytes] = []
        self.reader = threading.Thread(target=self._read, name="hindcast-seal-channel", daemon=True)
        self.reader.start()

    @property
    def inside(self) -> str:
        """The seal's directory as the grader sees it."""
        return SEAL_INSIDE if self.sandboxed else str(self.directory)

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        """The grader's environment with the seal: its directory on PYTHONPATH (its sitecustomize has pytest load
        the plugin first), the descriptor, no bytecode written or read."""
        return {**env, "PYTHONPATH": self.inside, "HINDCAST_SEAL": f"{self.inside}/seal.json",
                "HINDCAST_SEAL_FD": str(self.write_fd), "PYTHONDONTWRITEBYTECODE": "1"}

    def binds(self) -> tuple[Bind, ...]:
        """The seal's directory and the grader's files, read-only."""
        return (Bind(self.directory, SEAL_INSIDE), *grader_binds(self.workspace, self.protected))

    def _read(self) -> None:
        kept = 0
        with os.fdopen(self.read_fd, "rb") as channel:
            for line in channel:
                if kept < CHANNEL_LIMIT:
                    self.lines.append(line)
                    kept += len(line)

    def close(self) -> None:
        """Close the harness's copy of the write end (the grader has ended) and wait for the last lines."""
        if self.write_fd >= 0:
            os.close(self.write_fd)
            self.write_fd = -1
        self.reader.join(timeout=10)

    def report(self, ran: ProcessResult, tests: tuple[TestOutcome, ...], passed: bool,
               expected: bool = False) -> SealReport:
        """What the run showed: the events, the grader files that changed, and (when the grader said pass)
        whether the report, pytest's account and the exit status agree."""
        self.close()
        records = [r for r in (_parse(line) for line in self.lines) if r is not None]
        events = [SealEvent(str(r.get("kind")), str(r.get("detail", "")), str(r.get("where", "")),
                            bool(r.get("tamper"))) for r in records if r.get("t") == "event"]
        after = digests(self.workspace, self.protected)
        events += [SealEvent("grader_files_changed", f"{path} changed while the grader ran", "", True)
                   for path in self.protected if after.get(path) != self.before.get(path)]
        events = list(dict.fromkeys(events))
        events.sort(key=lambda e: not e.tamper)
        sessions = [r for r in records if r.get("t") == "session"]
        disagreement = self._disagreement(records, ran, tests) if passed and sessions else None
        return SealReport(bool(sessions), tuple(events[:MAX_EVENTS]), disagreement, expected and not ran.start_error)

    def _disagreement(self, records: list[dict[str, Any]], ran: ProcessResult,
                      tests: tuple[TestOutcome, ...]) -> str | None:
        sessions = [r for r in records if r.get("t") == "session"]
        finishes = [r for r in records if r.get("t") == "finish"]
        if len(finishes) != len(sessions):
            return f"{len(sessions)} pytest session(s) started and {len(finishes)} finished"
        if len(sessions) == 1 and finishes[0].get("exitstatus") != ran.exit_code:
            return f"pytest ended with status {finishes[0].get('exitstatus')}, the grader with {ran.exit_code}"
        for finish in finishes:
            if finish.get("exitstatus") == 0 and finish.get("failed"):
                return f"pytest exited 0 with failed tests: {', '.join(finish['failed'][:3])}"
        said: dict[str, str] = {}
        for record in records:  # a test pytest once said failed stays failed, whatever else the channel says
            if record.get("t") == "test":
                key = normalize_test_id(str(record.get("id")))
                if said.get(key) != "failed":
                    said[key] = str(record.get("outcome"))
        for test in tests:
            if test.outcome == "passed" and said.get(normalize_test_id(test.test_id)) != "passed":
                return (f"the report says {test.test_id} passed, pytest said "
                        f"{said.get(normalize_test_id(test.test_id), 'nothing of it')}")
        if self.junit:
            written = [digest for finish in finishes for path, digest in (finish.get("junit") or {}).items()
                       if isinstance(path, str) and _same_report(path, self.junit)]
            data = read_inside(self.workspace, self.junit)
            now = hashlib.sha256(data).hexdigest() if data is not None else None
            if written and written[-1] != now:
                return f"the JUnit report {self.junit} changed after pytest wrote it"
        return None


def _same_report(path: str, junit: str) -> bool:
    """Whether pytest's absolute report path (inside) is the grader's workspace-relative one."""
    wanted = os.path.normpath(junit)
    return path == wanted or path.endswith("/" + wanted)


def _parse(line: bytes) -> dict[str, Any] | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) else None
