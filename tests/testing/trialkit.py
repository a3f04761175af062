"""Helpers for runner tests: scripted agent command lines and a corpus bench in a temp dir."""

from __future__ import annotations

import secrets
import shlex
import sys
from dataclasses import fields, replace
from pathlib import Path

from corpus import Corpus, Grader
from runner.runs.load import LoadedRun
from runner.runs.manifest import RunConfig, RunManifest, Variant, write_manifest
from runner.runs.result import TrialResult, trial_path
from runner.settings import Settings
from runner.trial.plan import RunOptions
from runner.trial.run import run
from tests.testing.casefactory import build_corpus
from tests.testing.runbuilder import record_digests

AGENTS = Path(__file__).parent / "agents"
SANDBOX_BINDS = (AGENTS, Path(sys.prefix))
"""What a sandboxed scripted agent needs of the host: its script and the interpreter running the tests."""
SANDBOX_ARGS = tuple(arg for path in SANDBOX_BINDS for arg in ("--agent-bind", str(path)))
"""SANDBOX_BINDS as `runner run` arguments."""
PY = shlex.quote(sys.executable)
RUNNER_FOR_CTRL_C = (sys.executable, "-c", ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                                            "from runner.cli import main; main()"))
"""`runner` as a terminal starts it, whatever started the suite: a shell without job control starts background
commands with SIGINT ignored, and an ignored signal stays ignored in every program they start."""
# A grader without pytest, for tests that are about the runner rather than the cheats pytest enables.
FAST_GRADER = f"{PY} -c 'import sys; from calc import add; sys.exit(0 if add(2, 3) == 5 else 1)'"


def agent(name: str, *args: str) -> str:
    """The command line of a scripted agent under tests/testing/agents."""
    return " ".join([PY, shlex.quote(str(AGENTS / f"{name}.py")), *args])


def variants(**commands: str) -> tuple[Variant, ...]:
    """Variants from name=command keywords."""
    return tuple(Variant(name, command) for name, command in commands.items())


class Bench:
    """A corpus over a repository in a temp dir, and a runner that keeps results and scratch inside it."""

    def __init__(self, tmp_path: Path, corpus: Corpus) -> None:
        self.tmp_path = tmp_path
        self.corpus = corpus
        self.results = tmp_path / "results"
        self.scratch = tmp_path / "scratch"

    def options(self, **changes: object) -> RunOptions:
        """The bench's run options with changes, of RunOptions or of its settings (sandbox=..., jobs=...)."""
        names = {f.name for f in fields(Settings)}
        settings = replace(Settings(agent_binds=SANDBOX_BINDS),
                           **{k: v for k, v in changes.items() if k in names})  # type: ignore[arg-type]
        base = RunOptions(all_cases=True, results_dir=self.results, scratch_root=self.scratch, agent_timeout=60,
                          settings=settings)
        return replace(base, **{k: v for k, v in changes.items() if k not in names})  # type: ignore[arg-type]

    def run(self, **changes: object) -> LoadedRun:
        return run(self.corpus, self.options(**changes))


def graded_by_pytest(tmp_path: Path) -> Bench:
    """The calc case graded by pytest (what the cheating agents try to fool)."""
    corpus, _, _ = build_corpus(tmp_path)
    return Bench(tmp_path, corpus)


def graded_quickly(tmp_path: Path, **changes: object) -> Bench:
    """The calc case graded by a one-line Python check (fields overridable)."""
    corpus, _, _ = build_corpus(tmp_path, **{"grader": Grader(command=FAST_GRADER, timeout=60), **changes})
    return Bench(tmp_path, corpus)


def two_cases(tmp_path: Path, **changes: object) -> Bench:
    """graded_quickly (fields overridable) with a second case, a copy of the first under another id (cases spread
    over workers)."""
    bench = graded_quickly(tmp_path, **changes)
    stored = bench.corpus.load("calc-add")
    bench.corpus.write(replace(stored.case, id="calc-add-again"), stored.files)
    return bench


def fixer_and_idle() -> dict[str, str]:
    """Two variants' agent commands: one that fixes the code on every trial but the second, one that does nothing."""
    return {"fixer": f"test {{trial}} -eq 2 || {agent('fix')}", "idle": agent("noop")}


def make_run(root: Path, outcomes: dict[tuple[str, str], list[str]], trials: int = 5) -> Path:
    """A run written by hand: outcomes per (variant, case), in trial order, each trial recorded in run.json."""
    variant_names = list(dict.fromkeys(v for v, _ in outcomes))
    cases = list(dict.fromkeys(c for _, c in outcomes))
    config = RunConfig("agent", trials, tuple(Variant(v, "true") for v in variant_names), tuple(cases), 60.0)
    write_manifest(root, RunManifest("20260101T000000Z-abcd", "2026-01-01T00:00:00+00:00", "d" * 64,
                                     {"fingerprint": "r" * 64}, config))
    for (variant, case_id), results in outcomes.items():
        for number, outcome in enumerate(results, start=1):
            folder = trial_path(root, variant, case_id, number)
            folder.mkdir(parents=True)
            result = TrialResult(case_id, variant, number, outcome, f"because {outcome}", "f" * 64,  # type: ignore[arg-type]
                                 "2026-01-01T00:00:00+00:00")
            (folder / "result.json").write_text(result.to_json())
    return record_digests(root)


def hang_token() -> str:
    """A number of seconds for `sleep` that no other process on the machine has on its command line."""
    return f"3000.{secrets.randbelow(10**9):09d}"


def processes_with(token: str) -> list[int]:
    """Pids of the host's processes whose command line holds token (sandboxed ones included)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if token.encode() in (entry / "cmdline").read_bytes().split(b"\0"):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def descendants(pid: int) -> list[int]:
    """Every process below pid (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def alive(pid: int) -> bool:
    """True while a process exists and is not a zombie waiting to be reaped."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status
