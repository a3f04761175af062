"""`runner compare --html`: the comparison as one page, with text and JSON output unchanged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from runner.cli import cli
from runner.gate.gate import CompareOptions, evaluate
from runner.gate.pairing import load_trials, policy_for
from runner.gate.quarantine import Quarantine
from runner.gate.triage import Triage, TriageLabel
from runner.report.compare_html import render_compare_html
from tests.runner.report.htmlkit import HOSTILE, add_artifacts, parse
from tests.testing.runbuilder import write_run

KINDS = {"cart": "blocking", "docs": "blocking", "tax": "critical", "vat": "advisory"}


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    runs = tmp_path / "runs"
    add_artifacts(write_run(runs, "base", {"cart": "ppp", "docs": "fff", "tax": "ppp", "vat": "ppp"}, kinds=KINDS))
    add_artifacts(write_run(runs, "cand", {"cart": "ppp", "docs": "ppp", "tax": "pfp", "vat": "ppp", "new": "ppp"},
                            kinds=KINDS, reasons={"tax": "grader: test_rate <failed>"}))
    return runs


def compare(runs: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, str, str]:
    code = run_cli(cli, "runner", ["compare", "--baseline", str(runs / "base"), "--candidate", str(runs / "cand"),
                                   *extra])
    out, err = capsys.readouterr()
    return code, out, err


def test_text_and_json_stay_as_they_are(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    page = runs.parent / "out" / "c.html"
    code, text, _ = compare(runs, capsys)
    assert (code, text) == (4, text) and "verdict: BLOCK (exit 4)" in text
    assert compare(runs, capsys, "--html", str(page)) == (4, text, "")
    code, plain_json, _ = compare(runs, capsys, "--json")
    assert compare(runs, capsys, "--json", "--html", str(page)) == (code, plain_json, "")
    assert page.read_text(encoding="utf-8").startswith("<!doctype html>")


def test_page_leads_with_verdict_and_regression_then_the_numbers(runs: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    page_file = runs.parent / "c.html"
    _, out, _ = compare(runs, capsys, "--json", "--html", str(page_file))
    document = json.loads(out)
    html = page_file.read_text(encoding="utf-8")
    page = parse(html)
    assert page.ids["verdict"].text == "verdict: BLOCK (exit 4)"
    findings = [" ".join(li.text.split()) for li in page.find("li", None, page.ids["findings"])]
    assert findings == [f"{f['level']} [{f['rule']}] {f['message']}" for f in document["findings"]]
    assert page.ids["policy-source"].text == "policy and criticality: as the runs recorded them when they started"
    headings = [h.attrs.get("id") for h in page.find("h2", None, page.ids["overview"])]
    assert headings == ["regressions", "declined", "fixes", "new", "missing", "quarantined", "unchanged",
                        "summary", "gate"]
    rows = page.find("tr", "compared")
    assert rows[0].attrs["id"] == "regressions-0" and page.find("div", "case-id", rows[0])[0].text == "tax"
    assert page.find("span", "title", rows[0])[0].text == "tax title"
    assert page.find("span", "policy", rows[0])[0].text == "blocking, critical"
    (candidate,) = page.find("td", "candidate", rows[0])
    trials = [" ".join(li.text.split()) for li in page.find("li", None, candidate)]
    assert trials == ["#1 pass 11.0s grader passed", "#2 fail 12.0s grader: test_rate <failed>",
                      "#3 pass 13.0s grader passed"]
    assert "fail" in candidate.classes and page.find("div", "side", candidate)[0].text == "fail (2/3 passed)"
    link = next(u for u in candidate.urls if u.startswith("#"))
    section = page.ids[link[1:]]
    assert section.tag == "section" and "candidate cand: tax title · default · trial 1" in " ".join(section.text.split())
    transcript = next(p for p in page.find("div", "panel", section) if p.attrs["data-artifact"] == "transcript.log")
    assert page.find("pre", None, transcript)[0].text.startswith(HOSTILE)
    assert not page.find("script") and HOSTILE not in html and "&lt;failed&gt;" in html
    assert [page.find("div", "case-id", r)[0].text for r in rows] == ["tax", "docs", "new", "cart", "vat"]
    assert "not run" in page.find("td", "baseline", rows[2])[0].text
    assert page.ids["power"].text == f"power: {document['power']['text']}"
    gate = page.find("tr", None, page.ids["gate-numbers"])
    cells = [td.text for td in page.find("td", None, gate[1])]
    test = document["test"]
    assert cells[:2] == ["blocking", str(test["cases"])] and cells[6:9] == [
        str(test["mcnemar_regressions"]), str(test["mcnemar_fixes"]), f"{test['mcnemar_p']:.4g}"]
    assert "pass rate, blocking (3 cases): 66.7% -> 88.9% (+22.2 pp)" in [
        li.text for li in page.find("li", None, page.ids["summary-lines"])]
    files = [u for u in page.urls if not u.startswith("#")]
    assert files and all((page_file.parent / u).resolve().is_file() for u in files)
    assert all(":" not in u for u in page.urls) and "url(" not in html and "<link" not in html


def test_html_into_a_directory_is_bad_input(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = compare(runs, capsys, "--html", str(runs))
    assert (code, out) == (3, "") and err == f"runner: error: --html {runs}: is a directory, not a file\n"


def test_regressions_show_their_triage_label(runs: Path, tmp_path: Path) -> None:
    base, cand = load_trials(runs / "base"), load_trials(runs / "cand")
    cases, source = policy_for(None, cand, base)
    report = evaluate(base, cand, cases, Quarantine(), CompareOptions(), policy_source=source)
    triage = Triage("t1", runs / "t1", {"tax": TriageLabel("tax", "reproduced", 0, 3, 0)})
    page = parse(render_compare_html(report, tmp_path / "c.html", triage))
    assert page.ids["triage"].text == f"triage: run t1 ({runs / 't1'})"
    (label,) = page.find("div", "triage")
    assert label.text == "triage: reproduced (0 of 3 reruns passed)" and label.inside(page.ids["regressions-0"])
    assert "triage" not in parse(render_compare_html(report, tmp_path / "c.html")).ids
