"""runner report shows behaviour: per case the medians over the non-error trials and the totals per variant and
run, in the table, the JSON document and the HTML page, whose trial sections list each record's tool calls as
text."""

from __future__ import annotations

import json
from pathlib import Path

from corpus.cli_support import run_cli
from runner.cli import cli
from runner.report.report import render_table, report_document, write_html
from runner.runs.load import load_run
from tests.runner.report.behaviourkit import EVIL, behaviour_run
from tests.runner.report.htmlkit import parse
from tests.testing.trialkit import Bench, agent, make_run, variants


def rows(text: str, first: str) -> list[list[str]]:
    """The behaviour table's rows of one variant, split at spaces."""
    table = text.split("\nbehaviour: ", 1)[1]
    return [line.split() for line in table.splitlines() if line.split()[:1] == [first]]


def test_table_shows_medians_and_totals(tmp_path: Path) -> None:
    text = render_table(load_run(behaviour_run(tmp_path / "run")))
    assert "behaviour: per case the median over its non-error trials; total: every recorded trial" in text
    assert rows(text, "agent") == [
        ["agent", "cart", "3", "parsed", "20.0s", "—", "2", "2", "2220", "$0.0200"],
        ["agent", "total", "4", "of", "4", "2m40s", "—", "14", "4446", "$0.5400", "(3", "of", "4)"],
    ]
    assert rows(text, "old") == [["old", "cart", "4", "absent", "—", "—", "—", "—", "—", "—"],
                                 ["old", "total", "0", "of", "4", "—", "—", "—", "—", "—"]]
    assert ("run total: 8 trial(s), 2m40s, model calls unknown, 14 tool calls, 4446 tokens (input 405, cache read "
            "4000, output 41), cost $0.5400 (3 of 8 trials had a cost)") in text
    assert max(len(line) for line in text.splitlines()) <= 160


def test_a_run_without_behaviour_shows_no_behaviour_table(tmp_path: Path) -> None:
    text = render_table(load_run(make_run(tmp_path / "run", {("fixer", "cart"): ["pass"]}, trials=1)))
    assert "behaviour" not in text and "run total" not in text


def test_json_document_has_cells_and_totals(tmp_path: Path) -> None:
    document = json.loads(json.dumps(report_document(load_run(behaviour_run(tmp_path / "run")))))
    behaviour = document["behaviour"]
    agent_cell, old_cell = behaviour["cells"]
    assert agent_cell["key"] == "agent::cart" and agent_cell["trials"] == 3
    assert agent_cell["metrics"]["tool_calls"] == {"min": 1, "median": 2, "max": 4, "trials": 3}
    assert agent_cell["metrics"]["llm_calls"] is None and agent_cell["calls_by_tool"] == {"bash": 7}
    assert agent_cell["duration_seconds"] == {"min": 10.0, "median": 20.0, "max": 30.0, "trials": 3}
    assert agent_cell["status_shares"]["parsed"] == 1.0 and old_cell["status_shares"]["absent"] == 1.0
    assert behaviour["variants"]["agent"]["tokens"] == {"input": 405, "cache_read": 4000, "cache_write": None,
                                                        "output": 41, "reasoning": None}
    assert behaviour["variants"]["old"]["tool_calls"] is None and behaviour["variants"]["old"]["cost_usd"] is None
    totals = behaviour["totals"]
    assert (totals["trials"], totals["tool_calls"], totals["total_tokens"], totals["cost_trials"]) == (8, 14, 4446, 3)
    assert totals["duration_seconds"] == 160.0 and totals["llm_calls"] is None


def test_html_shows_records_as_text(tmp_path: Path) -> None:
    page = tmp_path / "out" / "report.html"
    page.parent.mkdir()
    write_html(load_run(behaviour_run(tmp_path / "run")), page)
    html = page.read_text()
    parsed = parse(html)
    assert not parsed.find("script") and "&lt;script&gt;alert(2)&lt;/script&gt;" in html
    (whole,) = [r for r in parsed.find("tr", within=parsed.find("table", "totals")[0]) if "whole run" in r.text]
    assert [td.text for td in parsed.find("td", within=whole)] == [
        "whole run", "8", "4", "2m40s", "—", "14", "405", "4000", "—", "41", "—", "4446", "$0.5400", "3 of 8"]
    (agent_row, old_row) = parsed.find("tr", within=parsed.find("table", "cells")[0])[1:]
    assert [td.text for td in parsed.find("td", within=agent_row)][:6] == [
        "agent", "cart", "3 parsed", "20.0s (10.0s–30.0s)", "—", "2 (1–4)"]
    assert "4 absent" in old_row.text
    section = parsed.ids["t0-0-2"]
    assert [c.text for c in parsed.find("code", within=section)] == ["ls", "cat a.py", "grep -n x a.py", EVIL]
    assert "tokens3330: input 300, cache read 3000, cache write —, output 30, reasoning —" in section.text
    assert "costunknown" in section.text
    assert "cost$0.0100 (reported by the agent)" in parsed.ids["t0-0-1"].text
    assert not parsed.find("div", "behaviour", within=parsed.ids["t1-0-1"])  # no behaviour.json: no record shown
    links = [u for u in section.urls if u.endswith("behaviour.json")]
    assert len(links) == 1 and (page.parent / links[0]).resolve().is_file()


def test_report_of_a_real_run_shows_cost(calc_fast: Bench, tmp_path: Path, capsys: object) -> None:
    run = calc_fast.run(trials=2, variants=variants(claude=agent("stream", "claude")))
    page = tmp_path / "report.html"
    assert run_cli(cli, "runner", ["report", str(run.directory), "--html", str(page)]) == 0
    out = capsys.readouterr().out  # type: ignore[attr-defined]
    cell, total = rows(out, "claude")
    assert cell[:4] + cell[5:] == ["claude", "calc-add", "2", "parsed", "2", "2", "1", "278", "$0.0125"]
    assert total[:5] + total[6:] == ["claude", "total", "2", "of", "2", "4", "4", "556", "$0.0250"]
    assert cell[4].endswith("s") and total[5].endswith("s")  # the times: the median and the sum
    html = page.read_text()
    assert "$0.0125 (reported by the agent)" in html and "s-claude" in html
    assert '<td class="num">$0.0250</td><td class="num">2 of 2</td>' in html
