"""runner report shows each trial's trajectory and max_turns verdicts, and per variant::case the trials that broke
them, in the table, the JSON document and the HTML page; only for cases that have such a check."""

from __future__ import annotations

import json
import shlex
from dataclasses import replace
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.model import Step, Trajectory
from runner.cli import cli
from runner.report.report import render_table, report_document, write_html
from runner.runs.load import load_run
from tests.runner.report.htmlkit import Element, Page, parse
from tests.testing.trialkit import agent, graded_quickly, make_run, variants

FETCH = 'WebFetch:{"url": "https://example.com"}@2'
MANY = [f'WebFetch:{{"url": "https://example.com/{n}"}}@1' for n in range(1, 53)]
"""52 forbidden calls: result.json lists the first 50 deviations and counts the rest."""


def calls(*specs: str) -> str:
    """The calls agent printing these tool calls (NAME[:JSON][@TURN])."""
    return agent("calls", *(shlex.quote(spec) for spec in specs))


@pytest.fixture(scope="module")
def checked_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """calc-add forbids web_fetch, allows one Read and 2 turns; calc-steps requires an Edit; calc-plain checks
    nothing. One trial per variant: within every check, a forbidden fetch, over a ceiling and the budget, 52
    forbidden fetches, and a crash (an error trial with a plain-text transcript)."""
    bench = graded_quickly(tmp_path_factory.mktemp("checks"),
                           trajectory=Trajectory(forbidden_tools=("web_fetch",), max_calls={"Read": 1}), max_turns=2)
    stored = bench.corpus.load("calc-add")
    bench.corpus.write(replace(stored.case, id="calc-plain", trajectory=None, max_turns=None), stored.files)
    bench.corpus.write(replace(stored.case, id="calc-steps", trajectory=Trajectory((Step("Edit"),)), max_turns=None),
                       stored.files)
    run = bench.run(trials=1, variants=variants(
        clean=calls("Read@1", "Edit@2"), fetcher=calls("Read@1", FETCH), busy=calls("Read@1", "Read@2", "Bash@3"),
        many=calls(*MANY), crash=agent("crash")))
    return run.directory


def checks_part(text: str) -> list[str]:
    """The terminal's checks section, each line stripped of its trailing blanks, blank lines left out."""
    part = text.split("\nchecks: ", 1)[1]
    return [line.rstrip() for line in ("checks: " + part).splitlines() if line.strip()]


def test_table_shows_each_trial_s_verdicts_and_the_cells_counts(checked_run: Path) -> None:
    lines = checks_part(render_table(load_run(checked_run)))
    assert lines[0] == "checks: each trial's trajectory and max_turns verdicts (cases with either check only)"
    assert lines[1].split() == ["variant", "case", "trajectory", "max_turns"] and set(lines[2].strip()) == {"─"}
    cells = [" ".join(line.split()) for line in lines[3:13]]
    assert cells == [
        "clean calc-add 0 of 1 deviated 0 of 1 over budget",
        "clean calc-steps 0 of 1 deviated —",
        "fetcher calc-add 1 of 1 deviated (1 called a forbidden tool) 0 of 1 over budget",
        "fetcher calc-steps 1 of 1 deviated —",
        "busy calc-add 1 of 1 deviated (1 over a ceiling) 1 of 1 over budget",
        "busy calc-steps 1 of 1 deviated —",
        "many calc-add 1 of 1 deviated (1 called a forbidden tool) 0 of 1 over budget",
        "many calc-steps 1 of 1 deviated —",
        "crash calc-add 1 of 1 deviated 0 of 1 over budget, 1 unreported",
        "crash calc-steps 1 of 1 deviated —"]
    unreadable = "unreadable: the transcript could not be read: plain text: no machine-readable transcript"
    assert lines[13:] == [
        "clean::calc-add #1 (pass): trajectory ok; max_turns ok (2 model calls, max_turns 2)",
        "clean::calc-steps #1 (pass): trajectory ok",
        ("fetcher::calc-add #1 (fail): trajectory 1 deviation (1 forbidden tool call); max_turns ok (2 model calls, "
        "max_turns 2)"),
        "  forbidden_tool: call 2 WebFetch(url='https://example.com') uses forbidden tool web_fetch",
        "fetcher::calc-steps #1 (fail): trajectory 1 deviation",
        "  missing_step: step 1 (Edit) was never made",
        ("busy::calc-add #1 (fail): trajectory 1 deviation (1 ceiling exceeded); max_turns over_budget (3 model calls, "
        "max_turns 2)"),
        "  too_many_calls: 2 calls of Read, at most 1",
        "busy::calc-steps #1 (fail): trajectory 1 deviation",
        "  missing_step: step 1 (Edit) was never made",
        ("many::calc-add #1 (fail): trajectory 52 deviations (50 forbidden tool calls; 2 beyond the 50 listed); "
        "max_turns ok (1 model calls, max_turns 2)"),
        *(f"  forbidden_tool: call {n} WebFetch(url='https://example.com/{n}') uses forbidden tool web_fetch"
          for n in range(1, 6)),
        "  and 47 more deviations (--json and --html list the first 50, as result.json keeps them)",
        "many::calc-steps #1 (fail): trajectory 1 deviation",
        "  missing_step: step 1 (Edit) was never made",
        # an error trial stays an error, but the report still says its turns could not be counted
        ("crash::calc-add #1 (error): trajectory 1 deviation; max_turns turns_unreported (the transcript reports no "
        "turn count (plain text: no machine-readable transcript); max_turns 2)"),
        f"  {unreadable}",
        "crash::calc-steps #1 (error): trajectory 1 deviation",
        f"  {unreadable}"]
    assert not any("calc-plain" in line for line in lines)  # a case without checks is left out


def test_json_has_per_cell_counts_and_every_checked_trial(checked_run: Path) -> None:
    checks = json.loads(json.dumps(report_document(load_run(checked_run))))["checks"]
    cells = {c["key"]: c for c in checks["cells"]}
    assert len(cells) == 10 and not any("calc-plain" in key for key in cells)
    assert cells["busy::calc-add"] == {
        "key": "busy::calc-add", "variant": "busy", "case_id": "calc-add",
        "trajectory": {"trials": 1, "deviated": 1, "forbidden_tool": 0, "too_many_calls": 1},
        "max_turns": {"trials": 1, "over_budget": 1, "turns_unreported": 0}}
    assert cells["crash::calc-add"]["max_turns"] == {"trials": 1, "over_budget": 0, "turns_unreported": 1}
    assert cells["clean::calc-steps"]["max_turns"] is None  # the case has no max_turns
    trials = {(t["variant"], t["case_id"]): t for t in checks["trials"]}
    assert trials[("fetcher", "calc-add")] == {
        "variant": "fetcher", "case_id": "calc-add", "trial": 1, "outcome": "fail", "deviated": True,
        "trajectory": {"passed": False, "more": 0, "ceilings": [],
                       "forbidden": ["call 2 WebFetch(url='https://example.com') uses forbidden tool web_fetch"],
                       "deviations": [{"kind": "forbidden_tool", "step": None, "call": 2, "message":
                                       "call 2 WebFetch(url='https://example.com') uses forbidden tool web_fetch"}]},
        "max_turns": {"budget": 2, "used": 2, "counted": "model calls", "verdict": "ok",
                      "detail": "2 model calls, max_turns 2"}}
    assert trials[("busy", "calc-add")]["max_turns"] == {
        "budget": 2, "used": 3, "counted": "model calls", "verdict": "over_budget",
        "detail": "3 model calls, max_turns 2"}
    assert trials[("busy", "calc-add")]["trajectory"]["ceilings"] == ["2 calls of Read, at most 1"]
    many = trials[("many", "calc-add")]["trajectory"]
    assert (len(many["deviations"]), many["more"], len(many["forbidden"])) == (50, 2, 50)
    assert trials[("crash", "calc-add")]["max_turns"]["verdict"] == "turns_unreported"
    assert trials[("crash", "calc-add")]["max_turns"]["used"] is None
    assert trials[("clean", "calc-steps")] == {
        "variant": "clean", "case_id": "calc-steps", "trial": 1, "outcome": "pass", "deviated": False,
        "trajectory": {"passed": True, "more": 0, "forbidden": [], "ceilings": [], "deviations": []},
        "max_turns": None}


def _dl(page: Page, within: Element) -> dict[str, str]:
    terms = page.find("dt", None, within)
    return {t.text: " ".join(d.text.split()) for t, d in zip(terms, page.find("dd", None, within), strict=True)}


def test_html_shows_the_counts_and_each_trial_s_verdicts(checked_run: Path, tmp_path: Path) -> None:
    page_file = tmp_path / "report.html"
    write_html(load_run(checked_run), page_file)
    html = page_file.read_text(encoding="utf-8")
    page = parse(html)
    table = page.find("table", "checks")[0]
    rows = [[td.text for td in page.find("td", None, tr)] for tr in page.find("tr", None, table)[1:]]
    assert rows[4] == ["busy", "calc-add", "1 of 1 deviated (1 over a ceiling)", "1 of 1 over budget"]
    assert rows[8] == ["crash", "calc-add", "1 of 1 deviated", "0 of 1 over budget, 1 unreported"]
    assert len(rows) == 10 and not any(r[1] == "calc-plain" for r in rows)
    assert "fail" not in page.find("td", None, page.find("tr", None, table)[1])[2].classes

    sections = {s.attrs["id"]: s for s in page.find("section", "trial")}  # t<variant>-<case>-<trial>
    grid = {tr.attrs["id"]: tr for tr in page.find("tr", "case")}
    assert [page.find("div", "case-id", grid[f"case-{i}"])[0].text for i in range(3)] == [
        "calc-add", "calc-plain", "calc-steps"]
    busy_add = sections["t2-0-1"]
    (checks,) = page.find("div", "checks", busy_add)
    assert _dl(page, checks) == {"trajectory": "1 deviation (1 ceiling exceeded)",
                                 "ceilings exceeded": "2 calls of Read, at most 1",
                                 "max_turns": "over_budget 3 model calls, max_turns 2"}
    assert [[td.text for td in page.find("td", None, tr)] for tr in page.find("tr", None, checks)[1:]] == [
        ["too_many_calls", "", "", "2 calls of Read, at most 1"]]
    flags = [s.text for s in page.find("span", "check", grid["case-0"])]
    assert flags == ["trajectory", "trajectory", "over_budget", "trajectory", "trajectory", "turns_unreported"]

    fetcher = _dl(page, page.find("div", "checks", sections["t1-0-1"])[0])
    assert fetcher["forbidden tool calls"] == "call 2 WebFetch(url='https://example.com') uses forbidden tool web_fetch"
    assert fetcher["max_turns"] == "ok 2 model calls, max_turns 2"
    many = page.find("div", "checks", sections["t3-0-1"])[0]
    assert len(page.find("tr", "forbidden_tool", many)) == 50
    assert page.find("p", "truncated", many)[0].text == "2 more deviation(s) found; result.json lists the first 50"
    crash = _dl(page, page.find("div", "checks", sections["t4-0-1"])[0])
    assert crash["max_turns"].startswith("turns_unreported the transcript reports no turn count (plain text")
    steps = _dl(page, page.find("div", "checks", sections["t0-2-1"])[0])
    assert steps == {"trajectory": "ok"}  # calc-steps has no max_turns
    assert not page.find("div", "checks", sections["t0-1-1"])  # calc-plain checks nothing
    assert not page.find("span", "check", grid["case-1"])


def test_runs_without_checks_show_none(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = graded_quickly(tmp_path)
    run = bench.run(trials=1, variants=variants(bot=calls("Read@1", FETCH)))
    page = tmp_path / "r.html"
    assert run_cli(cli, "runner", ["report", str(run.directory), "--html", str(page)]) == 0
    out = capsys.readouterr().out
    assert "\nbehaviour: " in out and "checks:" not in out
    assert report_document(load_run(run.directory))["checks"] == {"cells": [], "trials": []}
    html = page.read_text(encoding="utf-8")
    assert 'id="checks"' not in html and 'class="checks"' not in html
    hand = make_run(tmp_path / "hand", {("fixer", "cart"): ["pass"]}, trials=1)  # no behaviour.json at all
    assert report_document(load_run(hand))["checks"] == {"cells": [], "trials": []}
