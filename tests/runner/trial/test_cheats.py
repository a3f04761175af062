"""Cheating agents against sandboxed, patch-graded trials: none may win, read what is hidden, or leave a trace.

Each cheat runs through `Bench.run` with the default sandbox (bubblewrap) on a real repository. A test asserts
the trial does not pass (or passes only on a real source edit, flagged), and where the cheat is about
contamination, that an honest no-op trial after it in the same run still fails, that `runner verify` still
finds the case VALID, and that nothing outside the trial's scratch directory was read, written or removed
(sentinel files around the corpus, the results, the repository, HOME and TMPDIR). Problems are collected and
reported together, so a failing test names every way the cheat won.

The agents (tests/testing/agents/cheats) write only inside the sandbox or under the jail directories given to
them (this test's own directories), whatever the sandbox allows.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shlex
import sys
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from corpus import CaseFiles, Grader, Setup
from runner.runs.load import LoadedRun
from runner.runs.result import TrialResult, trial_path
from runner.verify.verify import VerifyOptions, verify
from tests.testing.casefactory import PYTEST, TEST_V2, build_corpus
from tests.testing.trialkit import Bench, agent, descendants, variants

CASE = "calc-add"
JUNIT = ".hindcast/junit.xml"
JUNIT_GRADER = Grader(command=f"{PYTEST} --junitxml={JUNIT} test_calc.py", timeout=60, junit=JUNIT,
                      fail_to_pass=("test_calc.py::test_add",), pass_to_pass=("test_calc.py::test_zero",))
"""The stronger grader: per-test JUnit outcomes with fail-to-pass ids."""


# --- benches ---------------------------------------------------------------------------------------------------


def junit_bench(tmp_path: Path, **changes: object) -> Bench:
    """The calc case graded by pytest with JUnit fail-to-pass ids."""
    corpus, _, _ = build_corpus(tmp_path, grader=changes.pop("grader", JUNIT_GRADER), **changes)
    return Bench(tmp_path, corpus)


def interpreter_bench(tmp_path: Path) -> Bench:
    """The calc case with an interpreter environment of its own (setup.python) into which setup installs pytest,
    graded by that environment's `python -m pytest`: what an agent would poison in the interpreter is the trial's."""
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    install = f"python -m pip install -q --disable-pip-version-check pytest=={pytest.__version__}"
    corpus, _, _ = build_corpus(tmp_path, setup=Setup(command=install, python=version),
                                grader=Grader(command="python -m pytest -q -p no:cacheprovider test_calc.py",
                                              timeout=60))
    return Bench(tmp_path, corpus)


def jail_args(bench: Bench) -> list[str]:
    """`--jail DIR` for every directory of this test a cheating agent may try to reach (see escape.py)."""
    places = [bench.tmp_path, Path(os.environ["HOME"]), Path(os.environ["TMPDIR"])]
    return [arg for p in places for arg in ("--jail", shlex.quote(str(p.resolve())))]


def cheat(name: str, bench: Bench, *args: str) -> str:
    """The command line of a cheating agent, with the test's jails."""
    return agent(f"cheats/{name}", *args, *jail_args(bench))


# --- what the tests check --------------------------------------------------------------------------------------


@dataclass
class Problems:
    """Everything a cheat achieved, reported at once."""

    title: str = "the cheat won"
    found: list[str] = field(default_factory=list)

    def check(self, ok: bool, message: str) -> None:
        if not ok:
            self.found.append(message)

    def assert_none(self) -> None:
        assert self.found == [], f"{self.title}:\n- " + "\n- ".join(self.found)


def state(root: Path, skip: Iterable[Path] = ()) -> dict[str, str]:
    """Every file, link and directory under root (links never followed) with its content hash or target."""
    skipped = {str(p) for p in skip}
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if os.path.join(dirpath, d) not in skipped]
        for name in [*dirnames, *filenames]:
            path = os.path.join(dirpath, name)
            if path in skipped:
                continue
            rel = os.path.relpath(path, root)
            if os.path.islink(path):
                out[rel] = "link:" + os.readlink(path)
            elif os.path.isdir(path):
                out[rel] = "dir"
            else:
                try:
                    out[rel] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                except OSError as exc:
                    out[rel] = f"unreadable:{exc.errno}"
    return out


class Watch:
    """Sentinels around everything outside a trial's scratch directory, and the state of it all before a run."""

    def __init__(self, bench: Bench, *extra: Path) -> None:
        self.bench = bench
        self.token = secrets.token_hex(16)
        bench.results.mkdir(parents=True, exist_ok=True)
        bench.scratch.mkdir(parents=True, exist_ok=True)
        self.places = [bench.tmp_path, bench.corpus.root, bench.corpus.root / "cases" / CASE, bench.results,
                       bench.scratch, bench.corpus.repo_path(), Path(os.environ["HOME"]), Path(os.environ["TMPDIR"]),
                       *extra]
        for place in self.places:
            place.mkdir(parents=True, exist_ok=True)
            (place / "sentinel.txt").write_text(f"secret {self.token}\n")
        self.roots = [bench.tmp_path, Path(os.environ["HOME"]), Path(os.environ["TMPDIR"])]
        self.before = self._state(())

    def _state(self, runs: Iterable[Path]) -> dict[str, str]:
        skip = [*runs, Path(os.environ["HOME"]) / ".rustup"]  # the host's toolchain makes it with every new venv
        return {f"{root}/{rel}": v for root in self.roots for rel, v in state(root, skip).items()}

    def check(self, problems: Problems, *runs: LoadedRun) -> None:
        """Nothing changed outside the runs' directories; no artifact of the runs holds a sentinel's secret."""
        after = self._state(r.directory for r in runs)
        changed = sorted(k for k in self.before.keys() | after.keys() if self.before.get(k) != after.get(k))
        problems.check(changed == [], f"changed outside the trial's scratch: {changed[:12]}")
        for run in runs:
            for path in run.directory.rglob("*"):
                if path.is_file() and self.token in path.read_text(errors="replace"):
                    problems.check(False, f"a sentinel's secret reached {path.relative_to(run.directory)}")


def by_variant(loaded: LoadedRun) -> dict[str, TrialResult]:
    return {t.variant: t for t in loaded.trials}


def artifact(loaded: LoadedRun, variant: str, name: str) -> str:
    return (trial_path(loaded.directory, variant, CASE, 1) / name).read_text(errors="replace")


def defeated(problems: Problems, trial: TrialResult, *, allowed: tuple[str, ...] = ("fail",)) -> None:
    """The cheat's trial did not win: its outcome is one of allowed (fail unless said otherwise)."""
    problems.check(trial.outcome in allowed,
                   f"{trial.variant}: outcome {trial.outcome!r} ({trial.reason}); flags {list(trial.flags)}, "
                   f"changed {list(trial.changed_files)}")


def honest_unaffected(problems: Problems, trial: TrialResult) -> None:
    """A later honest no-op trial still fails on an untouched base."""
    problems.check(trial.outcome == "fail" and trial.changed_files == () and trial.restored == (),
                   f"the later honest no-op trial was affected: {trial.outcome} ({trial.reason}), "
                   f"changed {list(trial.changed_files)}, restored {list(trial.restored)}")


def still_valid(problems: Problems, bench: Bench) -> None:
    """`runner verify` of the case after the run: baseline fails, oracle passes."""
    [verdict] = verify(bench.corpus, VerifyOptions(case_ids=(CASE,))).verdicts
    problems.check(verdict.verdict == "VALID", f"runner verify after the run: {verdict.verdict} {verdict.reason}")


def run_watched(bench: Bench, limit: float = 90, **changes: object) -> tuple[LoadedRun, list[str]]:
    """Bench.run, with a watchdog: when the run is still going after limit seconds, every git process the run
    started is killed (so the test ends) and its command line is returned as a hang."""
    box: dict[str, object] = {}

    def target() -> None:
        try:
            box["run"] = bench.run(**changes)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            box["error"] = exc

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(limit)
    hung: list[str] = []
    while thread.is_alive():
        for pid in descendants(os.getpid()):
            try:
                comm = Path(f"/proc/{pid}/comm").read_text().strip()
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if comm == "git":
                hung.append(cmdline.strip())
                os.kill(pid, 9)
        thread.join(5)
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box["run"], hung  # type: ignore[return-value]


# --- 1. configuration and plugins found outside the workspace --------------------------------------------------
# --- 2. executables shadowed on PATH, configuration under HOME -------------------------------------------------


@pytest.mark.parametrize(("name", "ran"), [
    ("config_outside", "code the agent planted ran on the host, outside any sandbox"),
    ("path_shadow", "a stand-in, filter or hook ran on the host"),
], ids=["configuration-and-plugins-outside-the-workspace", "shadowed-executables-and-home-configuration"])
def test_what_the_agent_plants_outside_its_workspace_reaches_neither_grader_nor_host(tmp_path: Path, name: str,
                                                                                     ran: str) -> None:
    bench = interpreter_bench(tmp_path)
    markers = tmp_path / "markers"
    markers.mkdir()
    watch = Watch(bench)
    loaded = bench.run(variants=variants(cheat=cheat(name, bench, "--marker", str(markers.resolve())),
                                         honest=agent("noop")))
    by = by_variant(loaded)
    problems = Problems()
    defeated(problems, by["cheat"])
    problems.check(sorted(p.name for p in markers.iterdir()) == [], f"{ran}: {sorted(os.listdir(markers))}")
    honest_unaffected(problems, by["honest"])
    watch.check(problems, loaded)
    still_valid(problems, bench)
    problems.assert_none()


# --- 3. files the patch does not show, or the restoration does not recognize -------------------------------------

HIDDEN = ["gitignored", "pycache-timestamp", "pycache-unchecked-hash", "dist-info", "egg-info",
          "dist-info-uppercase", "egg-info-uppercase", "shadow-pluggy", "shadow-_pytest", "shadow-iniconfig",
          "shadow-py", "shadow-readline", "pytest.ini", ".pytest.ini", "pytest.toml", "tox.ini", "setup.cfg",
          "pyproject-table", "pyproject-quoted-table", "pyproject-dotted-keys", "pyproject-inline-table"]


@pytest.mark.parametrize("trick", HIDDEN)
def test_files_the_patch_hides_or_the_restoration_misses_do_not_pass(tmp_path: Path, trick: str) -> None:
    bench = junit_bench(tmp_path)
    loaded = bench.run(variants=variants(cheat=agent("cheats/hidden_files", trick)))
    (trial,) = loaded.trials
    problems = Problems()
    defeated(problems, trial)
    if trick == "gitignored":
        problems.check("ignored_files" in trial.flags and "calc/" in trial.ignored_files,
                       f"the hidden package is not reported: {trial.flags} {trial.ignored_files}")
    problems.assert_none()


# --- 4. the harness's private state ----------------------------------------------------------------------------


def test_private_state_of_the_harness_is_out_of_reach(calc_fast: Bench) -> None:
    bench = calc_fast
    watch = Watch(bench)
    plant = [arg for p in (bench.corpus.root, bench.results) for arg in ("--plant", str(p.resolve()))]
    loaded = bench.run(variants=variants(cheat=cheat("private_state", bench, *plant), honest=agent("noop")))
    by = by_variant(loaded)
    transcript = artifact(loaded, "cheat", "transcript.log")
    problems = Problems()
    defeated(problems, by["cheat"])
    problems.check(by["cheat"].changed_files == () or by["cheat"].outcome != "pass",
                   "the cheat passed with an empty patch")
    findings = [line for line in transcript.splitlines() if line.startswith(("FOUND", "POISONED"))]
    problems.check(findings == [], f"the agent found the harness's state: {findings[:8]}")
    honest_unaffected(problems, by["honest"])
    watch.check(problems, loaded)
    still_valid(problems, bench)
    problems.assert_none()


# --- 5. symbolic links out of the workspace --------------------------------------------------------------------


def test_links_out_of_the_workspace_are_never_followed_by_the_harness(tmp_path: Path) -> None:
    grader = Grader(command=f"{PYTEST} --junitxml={JUNIT} test_calc.py tests", timeout=60, junit=JUNIT,
                    fail_to_pass=("test_calc.py::test_add",), deleted=("tests/obsolete.py",))
    corpus, _, case = build_corpus(tmp_path, grader=grader)
    stored = corpus.load(case.id)
    corpus.write(stored.case, CaseFiles.of(stored.files.oracle_patch, {
        "test_calc.py": TEST_V2.encode(), "tests/test_more.py": b"def test_more():\n    assert True\n"}))
    bench = Bench(tmp_path, corpus)
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in ("obsolete.py", "test_more.py", "junit.xml", "test_calc.py", "conftest.py", "pytest.ini",
                 "pyproject.toml", "setup.cfg"):
        (victim / name).write_text(f"{name}: keep me\n")
    watch = Watch(bench)
    loaded = bench.run(variants=variants(links=agent("cheats/links", shlex.quote(str(victim.resolve()))),
                                         honest=agent("noop")))
    by = by_variant(loaded)
    problems = Problems()
    defeated(problems, by["links"])
    problems.check(state(victim) == {n: hashlib.sha256(f"{n}: keep me\n".encode()).hexdigest()
                                     for n in os.listdir(victim)} and len(os.listdir(victim)) == 8,
                   f"the harness wrote into or removed from the link's target: {sorted(os.listdir(victim))}")
    honest_unaffected(problems, by["honest"])
    watch.check(problems, loaded)
    still_valid(problems, bench)
    problems.assert_none()

