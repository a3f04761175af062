"""The report and compare pages in a real browser (headless Chromium): what a reader must see is shown, the
filters hide what they should, a trial's section opens with a coloured diff, and nothing is fetched."""

from __future__ import annotations

from pathlib import Path

from corpus.cli_support import run_cli
from runner.cli import cli
from runner.report.paging import EXCERPT_CAP, INLINE_TRIALS, ROWS_PER_PAGE, ROWS_SHOWN
from tests.runner.report.behaviourkit import EVIL, behaviour_run
from tests.runner.report.htmlkit import HOSTILE, add_artifacts, browser_check, report_run
from tests.testing.runbuilder import record_digests, write_run

SHOWN = "const shown = el => !!el && el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';"
FINISH = ("out.title = document.title; out.fetched = performance.getEntriesByType('resource').map(e => e.name);"
          "const pre = document.createElement('pre'); pre.id = 'visibility'; pre.textContent = JSON.stringify(out);"
          "document.body.appendChild(pre);")

REPORT_CHECK = SHOWN + """
const out = {};
const rows = () => Object.fromEntries([...document.querySelectorAll('tr.case')].map(
  r => [r.querySelector('.case-id').textContent, shown(r)]));
out.all = rows();
document.getElementById('show-failed').checked = true;
out.failed = rows();
document.getElementById('show-errors').checked = true;
out.errors = rows();
document.getElementById('show-all').checked = true;
document.getElementById('variant-1').checked = false;
out.noop = [...document.querySelectorAll('.v1')].map(shown);
out.fixer = [...document.querySelectorAll('.v0')].map(shown);
document.getElementById('variant-1').checked = true;
out.banner = shown(document.querySelector('.banner'));
out.trial_before = shown(document.getElementById('t0-0-3'));
location.hash = '#t0-0-3';
const section = document.getElementById('t0-0-3');
out.trial_after = shown(section);
out.overview_after = shown(document.getElementById('overview'));
out.colours = Object.fromEntries(['add', 'del', 'hunk', 'context'].map(
  kind => [kind, getComputedStyle(section.querySelector('pre.diff .' + kind)).backgroundColor]));
out.diff_shown = shown(section.querySelector('pre.diff .add'));
out.panels = [...section.querySelectorAll('.panel')].map(p => [p.dataset.artifact, shown(p), p.getBoundingClientRect().top]);
out.transcript = section.querySelector('[data-artifact="transcript.log"] pre').textContent;
""" + FINISH

COMPARE_CHECK = SHOWN + """
const out = {};
const first = document.querySelector('tr.compared');
out.first_row = first.id;
out.first_shown = shown(first);
out.first_top = first.getBoundingClientRect().top;
out.viewport = window.innerHeight;
out.verdict = shown(document.getElementById('verdict'));
out.policy = document.getElementById('policy-source').textContent;
out.power = shown(document.getElementById('power'));
const link = first.querySelector('td.candidate li.fail a');
out.link = link.getAttribute('href');
location.hash = out.link;
out.trial_after = shown(document.querySelector(out.link));
out.overview_after = shown(document.getElementById('overview'));
out.add = getComputedStyle(document.querySelector(out.link + ' pre.diff .add')).backgroundColor;
""" + FINISH


def test_report_filters_trial_section_and_no_fetch(tmp_path: Path) -> None:
    run_dir = report_run(tmp_path / "runs")
    (run_dir / "noop" / "vat" / "3" / "result.json").unlink()  # an incomplete run: its banner leads the page
    record_digests(run_dir)
    page = tmp_path / "out" / "report.html"
    assert run_cli(cli, "runner", ["report", str(run_dir), "--html", str(page)]) == 0
    seen = browser_check(page, REPORT_CHECK, tmp_path)
    assert seen["all"] == {"cart": True, "tax": True, "vat": True}
    assert seen["failed"] == {"cart": True, "tax": False, "vat": False}
    assert seen["errors"] == {"cart": False, "tax": True, "vat": False}
    assert seen["noop"] and not any(seen["noop"]) and all(seen["fixer"])
    assert seen["banner"] is True and seen["trial_before"] is False
    assert seen["trial_after"] is True and seen["overview_after"] is False and seen["diff_shown"] is True
    assert seen["colours"] == {"add": "rgb(230, 255, 236)", "del": "rgb(255, 235, 233)",
                               "hunk": "rgb(221, 244, 255)", "context": "rgba(0, 0, 0, 0)"}
    panels = seen["panels"]
    assert [name for name, shown, _ in panels] == ["prompt.md", "transcript.log", "candidate.patch", "grader.log"]
    assert all(shown for _, shown, _ in panels) and panels[0][2] == panels[1][2]  # side by side, in one row
    assert panels[2][2] == panels[3][2] > panels[0][2]
    assert seen["transcript"].startswith(HOSTILE)
    assert seen["title"] == "Hindcast run r1" and seen["fetched"] == []


def test_compare_leads_with_the_regression_and_fetches_nothing(tmp_path: Path) -> None:
    kinds = {"cart": "blocking", "docs": "blocking", "tax": "blocking", "vat": "blocking"}
    runs = tmp_path / "runs"
    write_run(runs, "base", {"cart": "ppp", "docs": "fff", "tax": "ppp", "vat": "ppp"}, kinds=kinds)
    cand = write_run(runs, "cand", {"cart": "ppp", "docs": "ppp", "tax": "pfp", "vat": "ppp"}, kinds=kinds,
                     reasons={"tax": "grader: test_rate failed"})
    add_artifacts(runs / "base")
    add_artifacts(cand)
    page = tmp_path / "compare.html"
    run_cli(cli, "runner", ["compare", "--baseline", str(runs / "base"), "--candidate", str(cand),
                            "--html", str(page)])
    seen = browser_check(page, COMPARE_CHECK, tmp_path)
    assert seen["first_row"] == "regressions-0" and seen["first_shown"] is True
    assert 0 < seen["first_top"] < seen["viewport"]
    assert seen["verdict"] is True and seen["power"] is True
    assert seen["policy"] == "policy and criticality: as the runs recorded them when they started"
    assert seen["link"] == "#c2-2" and seen["trial_after"] is True and seen["overview_after"] is False
    assert seen["add"] == "rgb(230, 255, 236)"
    assert seen["title"] == "Hindcast compare: PASS" and seen["fetched"] == []


BEHAVIOUR_CHECK = SHOWN + """
const out = {};
out.overview = shown(document.getElementById('behaviour')) && shown(document.querySelector('table.totals'));
out.every_metric = document.querySelector('details').open;
document.querySelector('details summary').click();
out.every_metric_opened = document.querySelector('details').open && shown(document.querySelector('table.metrics'));
location.hash = '#t0-0-2';
const section = document.getElementById('t0-0-2');
out.calls = [...section.querySelectorAll('table.calls code')].filter(shown).map(c => c.textContent);
out.behaviour_above_panels = section.querySelector('.behaviour').getBoundingClientRect().bottom
  <= section.querySelector('.panel').getBoundingClientRect().top;
""" + FINISH


def test_report_shows_behaviour_and_a_trial_record(tmp_path: Path) -> None:
    run_dir = behaviour_run(tmp_path / "runs" / "r1")
    page = tmp_path / "out" / "report.html"
    assert run_cli(cli, "runner", ["report", str(run_dir), "--html", str(page)]) == 0
    seen = browser_check(page, BEHAVIOUR_CHECK, tmp_path)
    assert seen["overview"] is True and seen["every_metric"] is False and seen["every_metric_opened"] is True
    assert seen["calls"] == ["ls", "cat a.py", "grep -n x a.py", EVIL]
    assert seen["behaviour_above_panels"] is True
    assert seen["title"] == "Hindcast run 20260101T000000Z-abcd" and seen["fetched"] == []


SHEET_CHECK = SHOWN + """
const out = {};
out.index_before = shown(document.getElementById('overview'));
out.section_before = shown(document.getElementById('t0-0-2'));
location.hash = '#t0-0-2';
out.section_after = shown(document.getElementById('t0-0-2'));
out.index_after = shown(document.getElementById('overview'));
out.other_after = shown(document.getElementById('t0-1-1'));
out.grader = document.querySelector('#t0-0-2 [data-artifact="grader.log"] pre').textContent.length;
""" + FINISH


def test_a_trial_page_of_a_large_run_opens_at_the_linked_trial(tmp_path: Path) -> None:
    cells = {f"c{i:03d}": "pfp" for i in range(INLINE_TRIALS // 3 + 1)}
    run_dir = write_run(tmp_path / "runs", "big", cells)
    add_artifacts(run_dir)
    (run_dir / "default" / "c000" / "2" / "grader.log").write_bytes(b"E" * (EXCERPT_CAP * 2))
    page = tmp_path / "out" / "report.html"
    assert run_cli(cli, "runner", ["report", str(run_dir), "--html", str(page)]) == 0
    seen = browser_check(tmp_path / "out" / "report_files" / "trials-0001.html", SHEET_CHECK, tmp_path)
    assert seen["index_before"] is True and seen["section_before"] is False
    assert seen["section_after"] is True and seen["index_after"] is False and seen["other_after"] is False
    assert seen["grader"] == EXCERPT_CAP
    assert seen["title"] == "Hindcast run big: trials 1–100" and seen["fetched"] == []


PAGED_COMPARE_CHECK = SHOWN + """
const out = {};
const verdict = document.getElementById('verdict');
out.verdict = shown(verdict) && verdict.getBoundingClientRect().bottom <= window.innerHeight;
const findings = document.getElementById('findings');
out.rule_on_first_screen = shown(findings) && findings.getBoundingClientRect().top < window.innerHeight
  && findings.textContent.includes('[refused]');
out.rows = document.querySelectorAll('tr.compared.unchanged').length;
out.more = shown(document.getElementById('unchanged-more'));
out.more_links = [...document.querySelectorAll('#unchanged-more a')].map(a => a.getAttribute('href'));
""" + FINISH

ROW_SHEET_CHECK = SHOWN + """
const out = {};
location.hash = '#unchanged-200';
const row = document.getElementById('unchanged-200');
out.row_shown = shown(row);
out.row_top = Math.round(row.getBoundingClientRect().top);
out.back = document.querySelector('main a').getAttribute('href');
out.trial_link = row.querySelector('td.candidate li a').getAttribute('href');
""" + FINISH


def test_a_large_compare_page_leads_with_the_verdict_and_pages_its_rows(tmp_path: Path) -> None:
    cells = {f"c{i:03d}": "p" for i in range(ROWS_SHOWN + ROWS_PER_PAGE + 5)}
    runs = tmp_path / "runs"
    base = write_run(runs, "base", cells, kinds=dict.fromkeys(cells, "blocking"))
    cand = write_run(runs, "cand", {**cells, "c000": "f"}, kinds=dict.fromkeys(cells, "blocking"))
    page = tmp_path / "compare.html"
    run_cli(cli, "runner", ["compare", "--baseline", str(base), "--candidate", str(cand), "--html", str(page)])
    seen = browser_check(page, PAGED_COMPARE_CHECK, tmp_path)
    assert seen["verdict"] is True and seen["rule_on_first_screen"] is True
    assert seen["rows"] == ROWS_SHOWN and seen["more"] is True
    assert seen["more_links"] == ["compare_files/rows-0001.html#unchanged-100",
                                  "compare_files/rows-0002.html#unchanged-300"]
    assert seen["fetched"] == []
    sheet = browser_check(tmp_path / "compare_files" / "rows-0001.html", ROW_SHEET_CHECK, tmp_path / "compare_files")
    assert sheet["row_shown"] is True and 0 <= sheet["row_top"] < 50  # the link opens the page at its row
    assert sheet["back"] == "../compare.html#unchanged" and sheet["trial_link"].startswith("trials-")
    assert sheet["title"] == "Hindcast compare: BLOCK: Unchanged, rows 101–300" and sheet["fetched"] == []
