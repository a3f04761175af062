"""Why a trial failed, wherever it is shown: the terminal report, `--trial` (with the trial's files), the HTML
cell and the trial page (opened at the failure, the reference patch beside the candidate's), and compare (text
and a page with the baseline's trial beside the candidate's). A pass whose grader exited 1 explains itself.
Real runs of scripted agents on the calc case, graded by pytest with a JUnit report in the sandbox; its
repository holds a test that fails at base and with the fix alike."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpus import Grader
from corpus.cli_support import run_cli
from runner.cli import cli
from runner.report.report import render_table
from runner.runs.load import LoadedRun, load_run
from runner.runs.result import Excerpt, GraderTests, WantedTest
from tests.runner.report.htmlkit import browser_check
from tests.runner.report.test_html_browser import FINISH, SHOWN
from tests.testing.casefactory import PYTEST, build_corpus
from tests.testing.isolation import isolated
from tests.testing.runbuilder import record_digests
from tests.testing.trialkit import Bench, agent, variants

LEGACY = "import sys\n\n\ndef test_platform():\n    assert sys.platform == 'win32'\n"
"""A test of the repository that fails at base, and with the fix, on this platform."""
EXCERPT = {"text": ">       assert add(2, 3) == 5\nE       assert -1 == 5\nE        +  where -1 = add(2, 3)",
           "at": "test_calc.py:9", "test": "test_calc.test_add", "source": "junit"}
FAILED = "fail-to-pass test did not pass: test_calc.py::test_add"
NOT_COUNTED = ("failing, not counted (in neither fail_to_pass nor pass_to_pass: they fail at base too): "
               "test_legacy.test_platform")

pytestmark = pytest.mark.xdist_group("test_failure_excerpts")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LoadedRun, LoadedRun]]:
    """Three trials of an agent that fixes add() (each a pass, the grader exiting 1 for the legacy test), then
    three of one that does nothing."""
    root = tmp_path_factory.mktemp("failure-excerpts")
    with isolated(root):
        corpus, _, _ = build_corpus(root, initial={"test_legacy.py": LEGACY}, grader=Grader(
            command=f"{PYTEST} --junitxml=.hindcast/junit.xml test_calc.py test_legacy.py", timeout=60,
            junit=".hindcast/junit.xml", fail_to_pass=("test_calc.py::test_add",),
            pass_to_pass=("test_calc.py::test_zero",)))
        bench = Bench(root, corpus)
        fixed = bench.run(trials=3, jobs=2, variants=variants(fixer=agent("fix")))
        broken = bench.run(trials=3, jobs=2, variants=variants(noop=agent("noop")))
        yield fixed, broken


def cli_out(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = run_cli(cli, "runner", list(argv))
    return code, capsys.readouterr().out


def test_the_excerpt_and_the_per_test_account_are_kept_in_result_json(runs: tuple[LoadedRun, LoadedRun]) -> None:
    fixed, broken = runs
    for trial in broken.trials:
        assert (trial.outcome, trial.reason, trial.excerpt) == ("fail", FAILED, Excerpt(**EXCERPT))
        assert trial.grader_tests == GraderTests(1, 2, 0, (WantedTest("test_calc.py::test_add", "failed"),),
                                                 other_failed=("test_legacy.test_platform",))
    for trial in fixed.trials:
        assert (trial.outcome, trial.grader_exit_code, trial.excerpt) == ("pass", 1, None)
        assert trial.grader_tests == GraderTests(2, 1, 0, (WantedTest("test_calc.py::test_add", "passed"),),
                                                 other_failed=("test_legacy.test_platform",))
    written = json.loads((broken.directory / "noop" / "calc-add" / "1" / "result.json").read_text())
    assert written["excerpt"] == EXCERPT and written["grader_tests"]["other_failed"] == ["test_legacy.test_platform"]
    folder = broken.directory / "noop" / "calc-add" / "1"
    patch = (folder / "oracle.patch").read_text()  # the reference patch, as the trial recorded it
    assert "-    return a - b\n+    return a + b\n" in patch


def test_the_terminal_report_lists_each_failure_with_its_assertion(runs: tuple[LoadedRun, LoadedRun]) -> None:
    _, broken = runs
    lines = render_table(broken).splitlines()
    start = lines.index(f"fail noop::calc-add #1: {FAILED}")
    assert lines[start:start + 6] == [f"fail noop::calc-add #1: {FAILED}", "  E assert -1 == 5 (test_calc.py:9)",
                                      f"fail noop::calc-add #2: {FAILED}", "  E assert -1 == 5 (test_calc.py:9)",
                                      f"fail noop::calc-add #3: {FAILED}", "  E assert -1 == 5 (test_calc.py:9)"]


def test_trial_shows_the_failure_the_tests_and_the_files(runs: tuple[LoadedRun, LoadedRun],
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    fixed, broken = runs
    folder = broken.directory / "noop" / "calc-add" / "2"
    files = ["prompt.md", "transcript.log", "agent.stderr.log", "candidate.patch", "oracle.patch", "grader.log",
             "behaviour.json", "network.json", "result.json"]
    code, out = cli_out(capsys, "report", str(broken.directory), "--trial", "noop/calc-add/2")
    lane = "[verify] hidden grader "
    assert code == 0
    assert out.splitlines() == [
        f"trial noop/calc-add/2: fail: {FAILED}",
        lane + "." * (66 - len(lane)) + f" FAILED  {FAILED}",
        "[failure] test_calc.test_add at test_calc.py:9",
        "  >       assert add(2, 3) == 5",
        "  E       assert -1 == 5",
        "  E        +  where -1 = add(2, 3)",
        "[tests] JUnit report: 1 passed, 2 failed, 0 skipped; the grader exited 1",
        "[tests] fail-to-pass: 0 of 1 passed: test_calc.py::test_add failed",
        f"[tests] {NOT_COUNTED}",
        "[score] task_success=0 file_accuracy=0.00 invariant_safety=— reviewability=—",
        "[hint] nothing found",
        *(f"[file] {name}: {folder / name}" for name in files)]
    # a pass whose grader exited 1 says why: the one test it failed is not the case's, and fails at base too
    code, out = cli_out(capsys, "report", str(fixed.directory), "--trial", "fixer/calc-add/1")
    assert out.splitlines()[2:6] == ["[tests] JUnit report: 2 passed, 1 failed, 0 skipped; the grader exited 1",
                                     "[tests] fail-to-pass: 1 of 1 passed: test_calc.py::test_add passed",
                                     f"[tests] {NOT_COUNTED}",
                                     "[score] task_success=1 file_accuracy=0.50 invariant_safety=— reviewability=1.00"]
    code, out = cli_out(capsys, "report", str(broken.directory), "--trial", "noop/calc-add/2", "--json")
    entry = json.loads(out)
    assert entry["excerpt"] == EXCERPT and entry["files"]["grader.log"] == str(folder / "grader.log")
    assert entry["tests"][2] == NOT_COUNTED


def test_a_result_written_before_excerpts_is_quoted_from_its_grader_log(runs: tuple[LoadedRun, LoadedRun],
                                                                        tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    _, broken = runs
    old = tmp_path / "old"
    shutil.copytree(broken.directory, old)
    for path in old.glob("*/*/[0-9]*/result.json"):
        data = json.loads(path.read_text())
        del data["excerpt"], data["grader_tests"]
        path.write_text(json.dumps(data, indent=2))
    record_digests(old)
    lines = render_table(load_run(old)).splitlines()
    assert lines[lines.index(f"fail noop::calc-add #1: {FAILED}") + 1] == "  E assert -1 == 5 (test_calc.py:9)"
    _, out = cli_out(capsys, "report", str(old), "--trial", "noop/calc-add/1")
    assert out.splitlines()[2:6] == ["[failure] test_add at test_calc.py:9", "  >       assert add(2, 3) == 5",
                                     "  E       assert -1 == 5", "  E        +  where -1 = add(2, 3)"]


def test_compare_quotes_the_failing_side(runs: tuple[LoadedRun, LoadedRun], capsys: pytest.CaptureFixture[str]) -> None:
    fixed, broken = runs
    code, out = cli_out(capsys, "compare", "--baseline", str(fixed.directory), "--candidate", str(broken.directory))
    lines = out.splitlines()
    assert code == 2  # the case is advisory: the regression warns
    start = lines.index("Regressions (1):")
    assert lines[start:start + 5] == ["Regressions (1):", "  calc-add  [advisory]", "    baseline:  pass (3/3)",
                                      f"    candidate: fail (0/3 passed): {FAILED}",
                                      "               E assert -1 == 5 (test_calc.py:9)"]
    _, out = cli_out(capsys, "compare", "--baseline", str(fixed.directory), "--candidate", str(broken.directory),
                     "--json")
    (row,) = json.loads(out)["regressions"]
    assert row["excerpts"] == {"baseline": None, "candidate": EXCERPT}


REPORT_CHECK = SHOWN + """
const out = {};
const cell = document.querySelector('td.trial.fail');
out.cell = shown(cell.querySelector('.excerpt')) ? cell.querySelector('.excerpt').textContent : null;
location.hash = cell.querySelector('a').getAttribute('href');
const section = document.querySelector('section.trial:target');
const topOf = el => el.getBoundingClientRect().top;
const failure = section.querySelector('.failure');
out.failure = shown(failure) && topOf(failure) < window.innerHeight;
out.failure_first = topOf(failure) < topOf(section.querySelector('dl')) && topOf(failure) < topOf(section.querySelector('.panels'));
out.excerpt = failure.querySelector('pre.excerpt').textContent;
out.heading = failure.querySelector('h3').textContent;
out.tests = [...section.querySelectorAll('.grader-tests li')].map(li => li.textContent);
const panel = name => section.querySelector('[data-artifact="' + name + '"]');
out.beside = shown(panel('oracle.patch')) && topOf(panel('oracle.patch')) === topOf(panel('candidate.patch'))
  && panel('oracle.patch').getBoundingClientRect().left > panel('candidate.patch').getBoundingClientRect().left;
out.reference = [...panel('oracle.patch').querySelectorAll('pre.diff .add')].map(s => s.textContent);
""" + FINISH


def test_the_page_quotes_the_failure_in_the_cell_and_opens_the_trial_at_it(runs: tuple[LoadedRun, LoadedRun],
                                                                           tmp_path: Path) -> None:
    _, broken = runs
    page = tmp_path / "report.html"
    assert run_cli(cli, "runner", ["report", str(broken.directory), "--html", str(page)]) == 0
    seen = browser_check(page, REPORT_CHECK, tmp_path)
    assert seen["cell"] == "E assert -1 == 5 (test_calc.py:9)"
    assert seen["failure"] is True and seen["failure_first"] is True
    assert seen["excerpt"] == EXCERPT["text"]
    assert seen["heading"].startswith("failure test_calc.test_add at test_calc.py:9 from the JUnit report")
    assert seen["tests"] == ["JUnit report: 1 passed, 2 failed, 0 skipped; the grader exited 1",
                             "fail-to-pass: 0 of 1 passed: test_calc.py::test_add failed", NOT_COUNTED]
    assert seen["beside"] is True and seen["reference"] == ["+    return a + b"]
    assert seen["fetched"] == []


COMPARE_CHECK = SHOWN + """
const out = {};
const row = document.querySelector('tr.compared');
out.cell = [...row.querySelectorAll('td.candidate .excerpt')].map(e => e.textContent);
const link = row.querySelector('.pair-link a');
out.link = link.getAttribute('href');
location.hash = out.link;
const pair = document.querySelector(out.link);
out.shown = shown(pair) && !shown(document.getElementById('overview'));
const sides = [...pair.querySelectorAll('.panel.side')];
out.sides = sides.map(s => [s.dataset.side, s.querySelector('.badge').textContent, shown(s)]);
out.side_by_side = sides[0].getBoundingClientRect().top === sides[1].getBoundingClientRect().top
  && sides[0].getBoundingClientRect().left < sides[1].getBoundingClientRect().left;
out.candidate_excerpt = sides[1].querySelector('pre.excerpt').textContent;
out.baseline_tests = [...sides[0].querySelectorAll('.grader-tests li')].map(li => li.textContent);
out.patches = sides.map(s => [...s.querySelectorAll('pre.diff .add')].map(a => a.textContent));
out.numbers = [...pair.querySelectorAll('.pair-numbers a')].map(a => a.getAttribute('href'));
""" + FINISH


def test_the_compare_page_puts_the_baseline_trial_beside_the_candidate_s(runs: tuple[LoadedRun, LoadedRun],
                                                                         tmp_path: Path) -> None:
    fixed, broken = runs
    page = tmp_path / "compare.html"
    run_cli(cli, "runner", ["compare", "--baseline", str(fixed.directory), "--candidate", str(broken.directory),
                            "--html", str(page)])
    seen = browser_check(page, COMPARE_CHECK, tmp_path)
    assert seen["cell"] == ["E assert -1 == 5 (test_calc.py:9)"] * 3
    assert seen["link"] == "#p0-1" and seen["shown"] is True
    assert seen["sides"] == [["baseline", "pass", True], ["candidate", "fail", True]]
    assert seen["side_by_side"] is True
    assert seen["candidate_excerpt"] == EXCERPT["text"]
    assert seen["baseline_tests"][2] == NOT_COUNTED
    assert "+    return a + b" in seen["patches"][0] and seen["patches"][1] == []  # noop changed nothing
    assert seen["numbers"] == ["#p0-2", "#p0-3"]
    assert seen["fetched"] == []
