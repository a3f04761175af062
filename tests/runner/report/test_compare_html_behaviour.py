"""`runner compare --html` shows behaviour as the text and JSON reports do: the forbidden-tool and bait findings,
both runs' cost and tokens, every metric's medians per compared case with its direction and class, and each
trial's trajectory and max_turns verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.model import Bait, Trajectory
from runner.cli import cli
from tests.runner.report.htmlkit import Element, Page, browser_check, parse
from tests.testing.runbuilder import write_run
from tests.testing.trialkit import agent, graded_quickly, variants


@pytest.fixture(scope="module")
def busy_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run, three trials per variant of a case that forbids Bash, allows 3 turns and baits on more than 2
    shell commands: lean makes 1 shell call for $0.01, busy 4 for $0.02."""
    bench = graded_quickly(tmp_path_factory.mktemp("compare"), trajectory=Trajectory(forbidden_tools=("Bash",)),
                           max_turns=3, bait=Bait("shell_commands", 2.0))
    run = bench.run(trials=3, variants=variants(lean=agent("busy", "1", "0.01"), busy=agent("busy", "4", "0.02")))
    return run.directory


def compare(run_dir: Path, *extra: str) -> int:
    return run_cli(cli, "runner", ["compare", "--baseline", str(run_dir), "--baseline-variant", "lean",
                                   "--candidate", str(run_dir), "--candidate-variant", "busy", *extra])


def cells(page: Page, row: Element) -> list[str]:
    return [" ".join(td.text.split()) for td in page.find("td", None, row)]


def table_rows(page: Page, ident: str) -> list[list[str]]:
    return [cells(page, tr) for tr in page.find("tr", None, page.ids[ident]) if page.find("td", None, tr)]


@pytest.fixture
def compared(busy_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> \
        tuple[list[str], dict[str, object], Page]:
    """The text report's lines, the JSON document and the parsed page of one comparison."""
    page_file = tmp_path / "compare.html"
    assert compare(busy_run) == 4
    lines = capsys.readouterr().out.splitlines()
    assert compare(busy_run, "--json", "--html", str(page_file)) == 4
    document = json.loads(capsys.readouterr().out)
    return lines, document, parse(page_file.read_text(encoding="utf-8"))


def test_findings_spend_and_medians_are_the_text_report_s(compared: tuple[list[str], dict[str, object], Page]) \
        -> None:
    lines, document, page = compared
    headings = [h.attrs.get("id") for h in page.find("h2", None, page.ids["overview"])]
    assert headings[-3:] == ["summary", "gate", "behaviour"]
    findings = [" ".join(li.text.split()) for li in page.find("li", None, page.ids["behaviour-findings"])]
    assert findings == [
        ("BLOCK [forbidden-tool] forbidden tool in calc-add: 3 of 3 candidate trial(s), first trial 1: call 1 "
        "Bash(grep -n add calc.py # 1) uses forbidden tool Bash (rule forbidden-tool)"),
        ("WARN [bait] BAIT FLAG calc-add: no longer reproduces its misbehaviour (median shell_commands 1 over 3 "
        "trial(s), not above 2 in the baseline) (rule bait)")]
    assert [f"{f.split(' ', 1)[0]}: {f.split('] ', 1)[1]}" for f in findings] == [
        line for line in lines if "(rule forbidden-tool)" in line or "(rule bait)" in line]

    assert table_rows(page, "spend") == [
        ["cost", "$0.0300", "$0.0600", "$0.0100", "$0.0200", "+100.0%", "3/3"],
        ["tokens", "3,480", "13,920", "1,160", "4,640", "+300.0%", "3/3"],
        ["tokens, input", "300", "1,200", "100", "400", "+300.0%", "3/3"],
        ["tokens, cache_read", "3,000", "12,000", "1,000", "4,000", "+300.0%", "3/3"],
        ["tokens, cache_write", "30", "120", "10", "40", "+300.0%", "3/3"],
        ["tokens, output", "150", "600", "50", "200", "+300.0%", "3/3"]]
    assert "  cost: $0.0300 -> $0.0600; per trial $0.0100 -> $0.0200 (+100.0%) over 3/3 trials" in lines
    assert "  tokens, output: 150 -> 600; per trial 50 -> 200 (+300.0%) over 3/3 trials" in lines

    assert page.ids["behaviour-rule"].text == (
        "medians of non-error trials per case; a change counts at 25% or more with the metric known in 3 or more "
        "trials of each run; information, never a verdict.")
    directions = page.ids["directions"].text
    assert directions == lines[lines.index("Behaviour (" + page.ids["behaviour-rule"].text[:-1] + "):") + 1].strip()
    assert directions.startswith("directions: as run ") and directions.endswith(" recorded them when it started")
    assert page.ids["behaviour-pairs"].text == lines[-6].strip() == (
        "18 metric x case pairs: 8 regress, 0 improve, 9 neutral, 1 unknown")
    tally = {row[0]: row[1:] for row in table_rows(page, "behaviour-tally")}
    assert tally["shell_commands"] == ["lower", "1", "0", "0", "0"]
    assert tally["tool_edits"] == ["neutral", "0", "0", "1", "0"]
    assert tally["longest_turn_seconds"] == ["lower", "0", "0", "0", "1"]

    counted = table_rows(page, "behaviour-counted")
    assert counted[0] == ["calc-add", "shell_commands", "lower", "1", "3", "4", "3", "+300%", "regress"]
    assert ["calc-add", "cost_usd", "lower", "0.01", "3", "0.02", "3", "+100%", "regress"] in counted
    assert ["calc-add", "total_tokens", "lower", "1,160", "3", "4,640", "3", "+300%", "regress"] in counted
    shown = [f"    regress  {key}: median {before} -> {after} ({pct}) over {bt} and {ct} trials"
             for key, _, _, before, bt, after, ct, pct, _ in counted]
    assert shown == [line for line in lines if line.startswith("    regress  ")]

    every = table_rows(page, "behaviour-changes")
    changes = document["behaviour"]["changes"]  # type: ignore[index]
    assert [(r[0], r[1], r[2], r[8]) for r in every] == [(c["key"], c["metric"], c["direction"], c["change"])
                                                        for c in changes]
    for row, change in zip(every, changes, strict=True):
        for (median, trials), side in ((row[3:5], change["baseline"]), (row[5:7], change["candidate"])):
            assert (median, trials) == (("—", "0") if side is None else (median, str(side["trials"])))
    assert every[-2] == ["calc-add", "longest_turn_seconds", "lower", "—", "0", "—", "0", "—", "unknown"]
    assert not page.ids["behaviour-all"].attrs.get("open")


def test_trials_show_their_checks(compared: tuple[list[str], dict[str, object], Page]) -> None:
    _, _, page = compared
    (row,) = page.find("tr", "compared")
    for side, flags in (("baseline", ["trajectory"]), ("candidate", ["trajectory", "over_budget"])):
        for li in page.find("li", None, page.find("td", side, row)[0]):
            assert [s.text for s in page.find("span", "check", li)] == flags
    link = next(u for u in page.find("td", "candidate", row)[0].urls if u.startswith("#"))
    (checks,) = page.find("div", "checks", page.ids[link[1:]])
    terms = [dt.text for dt in page.find("dt", None, checks)]
    details = [" ".join(dd.text.split()) for dd in page.find("dd", None, checks)]
    assert dict(zip(terms, details, strict=True)) == {
        "trajectory": "4 deviations (4 forbidden tool calls)",
        "forbidden tool calls": "; ".join(f"call {n} Bash(grep -n add calc.py # {n}) uses forbidden tool Bash"
                                          for n in range(1, 5)),
        "max_turns": "over_budget 4 model calls, max_turns 3"}


def test_runs_without_behaviour_show_only_their_spend(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kinds = {"cart": "blocking", "tax": "blocking"}
    base = write_run(tmp_path, "base", {"cart": "ppp", "tax": "ppp"}, kinds=kinds, cost_usd=0.5, tokens=1000)
    cand = write_run(tmp_path, "cand", {"cart": "ppp", "tax": "ppp"}, kinds=kinds, cost_usd=0.55, tokens=900)
    page_file = tmp_path / "c.html"
    assert run_cli(cli, "runner", ["compare", "--baseline", str(base), "--candidate", str(cand),
                                   "--html", str(page_file)]) == 0
    assert "Behaviour (" not in capsys.readouterr().out
    page = parse(page_file.read_text(encoding="utf-8"))
    assert page.ids["behaviour-findings"].text == ("No forbidden tool call or upstream lookup in the candidate, and "
                                                   "no bait case that the baseline stopped reproducing.")
    assert table_rows(page, "spend") == [["cost", "$3.0000", "$3.3000", "$0.5000", "$0.5500", "+10.0%", "6/6"],
                                         ["tokens", "6,000", "5,400", "1,000", "900", "-10.0%", "6/6"]]
    assert "behaviour-tally" not in page.ids and "behaviour-changes" not in page.ids


BEHAVIOUR_CHECK = """
const shown = el => !!el && el.getClientRects().length > 0 && el.getBoundingClientRect().height > 0;
const out = {};
const every = document.getElementById('behaviour-all');
out.counted = shown(document.getElementById('behaviour-counted'));
out.every_before = every.open;
every.querySelector('summary').click();
out.every_after = every.open && shown(document.getElementById('behaviour-changes'));
out.regress = getComputedStyle(document.querySelector('#behaviour-counted tr.regress td.change')).backgroundColor;
out.fetched = performance.getEntriesByType('resource').map(e => e.name);
const pre = document.createElement('pre'); pre.id = 'visibility'; pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
"""


def test_the_behaviour_tables_in_a_browser(busy_run: Path, tmp_path: Path) -> None:
    page = tmp_path / "compare.html"
    assert compare(busy_run, "--html", str(page)) == 4
    seen = browser_check(page, BEHAVIOUR_CHECK, tmp_path)
    assert seen == {"counted": True, "every_before": False, "every_after": True, "regress": "rgb(248, 215, 215)",
                    "fetched": []}
