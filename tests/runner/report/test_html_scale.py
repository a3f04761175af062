"""Reports that scale: above INLINE_TRIALS trials the report's and compare's pages link trial pages beside them
(each embedding an excerpt of every artifact and linking the files), a page is rewritten with its folder, a run
still going is watched until it completes, and thousands of cases are one line each in the terminal."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode, UsageError
from runner.cli import cli
from runner.gate.gate import CompareOptions, evaluate
from runner.gate.pairing import load_trials, policy_for
from runner.gate.quarantine import Quarantine
from runner.report.compare_html import write_compare_html
from runner.report.grid import GRID_CASES
from runner.report.paging import EXCERPT_CAP, INLINE_TRIALS, ROWS_PER_PAGE, ROWS_SHOWN, TRIALS_PER_PAGE
from runner.report.report import render_table, write_html
from runner.report.watch import watch_html
from runner.runs.load import LoadedRun, load_run
from tests.runner.report.htmlkit import HOSTILE, Page, add_artifacts, parse
from tests.testing.runbuilder import record_digests, write_run

CASES = INLINE_TRIALS // 3 + 1
"""Cases of three trials each: one more than a page holds itself."""


def big_run(root: Path, run_id: str = "big", fail_every: int = 5) -> Path:
    """CASES cases of three trials (every fail_every-th case fails its second trial), with artifacts."""
    cells = {f"c{i:03d}": "pfp" if i % fail_every == 0 else "ppp" for i in range(CASES)}
    run_dir = write_run(root, run_id, cells, kinds=dict.fromkeys(cells, "blocking"))
    add_artifacts(run_dir)
    return run_dir


def read(path: Path) -> Page:
    return parse(path.read_text(encoding="utf-8"))


def test_a_large_run_links_trial_pages_beside_the_page(tmp_path: Path) -> None:
    run_dir = big_run(tmp_path / "runs")
    (run_dir / "default" / "c000" / "2" / "grader.log").write_bytes(b"E" * (EXCERPT_CAP + 100) + b"assert 1 == 2\n")
    out = tmp_path / "out" / "report.html"
    write_html(load_run(run_dir), out)
    page = read(out)
    assert not page.find("section", "trial")  # no trial's section on the page itself
    folder = tmp_path / "out" / "report_files"
    trials = CASES * 3
    assert sorted(p.name for p in folder.iterdir()) == [f"trials-{n:04d}.html" for n in
                                                        range(1, -(-trials // TRIALS_PER_PAGE) + 1)]
    links = [u for cell in page.find("td", "trial") for u in cell.urls]
    assert len(links) == trials
    sheets = {name: read(folder / name) for name in {u.split("#")[0].split("/")[1] for u in links}}
    for link in links:  # every cell opens its trial's section on the page the link names
        href, anchor = link.split("#")
        assert href.startswith("report_files/trials-") and anchor in sheets[href.split("/")[1]].ids
    assert [u.split("#")[0].split("/")[1] for u in links[:TRIALS_PER_PAGE + 1]] == ["trials-0001.html"] * TRIALS_PER_PAGE + [
        "trials-0002.html"]
    first = sheets["trials-0001.html"]
    section = first.ids["t0-0-2"]
    panels = {p.attrs["data-artifact"]: p for p in first.find("div", "panel", section)}
    assert first.find("pre", None, panels["grader.log"])[0].text == "E" * EXCERPT_CAP  # the excerpt, not the file
    assert [n.text for n in first.find("p", "truncated", panels["grader.log"])] == [
        "truncated: the first 16.0 KB of 16.1 KB shown; the whole file is linked above"]
    assert first.find("pre", None, panels["transcript.log"])[0].text == f"{HOSTILE}\nagent default done\n"
    files = [u for u in first.urls if not u.startswith("#")]
    assert files and all((folder / u.split("#")[0]).resolve().is_file() for u in files)  # the logs and the page
    assert (folder / "../report.html").resolve() == out.resolve() and "../report.html#grid" in first.urls
    assert not first.find("script") and not first.find("img")
    assert f"report_files/, {trials} trials" in page.ids["paged"].text


def test_a_page_is_rewritten_with_its_folder_and_never_over_other_files(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    write_html(load_run(big_run(tmp_path / "runs")), out)
    assert (tmp_path / "report_files").is_dir()
    small = write_run(tmp_path / "runs", "small", {"cart": "pf"})
    write_html(load_run(small), out)  # a small run's page holds its sections: the old trial pages go
    assert not (tmp_path / "report_files").exists()
    assert {e.attrs["id"] for e in read(out).find("section", "trial")} == {"t0-0-1", "t0-0-2"}
    (tmp_path / "report_files").mkdir()
    (tmp_path / "report_files" / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match=r"report_files holds other files than trial pages"):
        write_html(load_run(small), out)
    assert (tmp_path / "report_files" / "notes.txt").read_text() == "mine"


def test_the_compare_page_links_trial_pages_of_both_runs(tmp_path: Path) -> None:
    base = big_run(tmp_path / "runs", "base", fail_every=1000)
    cand = big_run(tmp_path / "runs", "cand", fail_every=3)
    baseline, candidate = load_trials(base), load_trials(cand)
    cases, source = policy_for(None, candidate, baseline)
    report = evaluate(baseline, candidate, cases, Quarantine(), CompareOptions(), policy_source=source)
    out = tmp_path / "compare.html"
    write_compare_html(report, out)
    page = read(out)
    assert not page.find("section", "trial")
    links = [u for li in page.find("li") for u in li.urls if "#" in u and not u.startswith("#")]
    assert len(links) == 2 * CASES * 3
    for link in links:
        href, anchor = link.split("#")
        assert anchor in read(tmp_path / href).ids
    sheet = read(tmp_path / links[0].split("#")[0])
    assert "../compare.html#overview" in sheet.urls and "compare_files/" in page.ids["paged"].text


def test_watch_rewrites_the_page_until_the_run_is_complete(tmp_path: Path) -> None:
    run_dir = write_run(tmp_path / "runs", "going", {"cart": "p.", "tax": "pp"})
    late = run_dir / "default" / "cart" / "2"
    late.mkdir()  # published but not yet recorded in run.json: a plain report refuses the run
    (late / "result.json").write_text((run_dir / "default" / "cart" / "1" / "result.json").read_text()
                                      .replace('"trial": 1', '"trial": 2'))
    with pytest.raises(UsageError, match=r"not recorded in run\.json"):
        load_run(run_dir)
    out = tmp_path / "live.html"
    pages: list[tuple[int, list[str], str]] = []

    def said(run: LoadedRun) -> None:
        page = read(out)
        refresh = [e.attrs.get("content", "") for e in page.find("meta") if e.attrs.get("http-equiv") == "refresh"]
        pages.append((run.missing, refresh, page.find("p", "banner")[0].text if page.find("p", "banner") else ""))

    watched = watch_html(run_dir, out, 5, said=said, sleep=lambda _: record_digests(run_dir))
    assert [(missing, refresh) for missing, refresh, _ in pages] == [(1, ["5"]), (0, [])]
    assert pages[0][2].startswith("INCOMPLETE: 1 of 4 planned trials missing") and pages[1][2] == ""
    assert watched.missing == 0 and len(watched.trials) == 4
    (run_dir / "default" / "tax" / "1" / "result.json").write_text("{}")  # a changed result is still refused
    with pytest.raises(UsageError, match="does not match the digest"):
        watch_html(run_dir, out, 5, sleep=lambda _: None)


def test_watch_goes_with_html_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = write_run(tmp_path / "runs", "r1", {"cart": "pp"})
    assert run_cli(cli, "runner", ["report", str(run_dir), "--watch", "5"]) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err == "runner: error: --watch goes with --html FILE\n"
    out = tmp_path / "r.html"
    assert run_cli(cli, "runner", ["report", str(run_dir), "--html", str(out), "--watch", "5"]) == ExitCode.OK
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == f"{out}: 2 of 2 planned trials recorded" and printed[-1] == f"html report: {out}"
    assert "refresh" not in out.read_text(encoding="utf-8")


def test_thousands_of_cases_are_one_line_each_in_the_terminal(tmp_path: Path) -> None:
    cells = {f"c{i:03d}": "pfe" if i == 7 else "pp." if i == 8 else "ppp" for i in range(GRID_CASES + 1)}
    run_dir = write_run(tmp_path / "runs", "wide", cells, kinds={"c007": "critical", "c008": "advisory"})
    lines = render_table(load_run(run_dir)).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("case "))
    assert lines[start:start + 3] == ["case  policy              default",
                                      "c000                      3/3 passed, @2 1.00  ^2 1.00",
                                      "c001                      3/3 passed, @2 1.00  ^2 1.00"]
    assert lines[start + 8] == "c007  blocking, critical  1/2 passed, @2 1.00  ^2 0.00, 1 error"
    assert lines[start + 9] == "c008  advisory            2/2 passed, @2 1.00  ^2 1.00, 1 missing"
    assert lines[start + GRID_CASES + 1].startswith("c200 ") and "┃" not in "\n".join(lines)


def test_a_large_compare_page_shows_a_section_s_first_rows_and_pages_the_rest(tmp_path: Path) -> None:
    """A section past ROWS_SHOWN rows: the page shows the first, row pages beside it the rest, every link lands."""
    count = ROWS_SHOWN + ROWS_PER_PAGE + 5
    cells = {f"c{i:03d}": "p" for i in range(count)}  # one trial each: still more than a page holds itself
    base = write_run(tmp_path / "runs", "base", cells, kinds=dict.fromkeys(cells, "blocking"))
    cand = write_run(tmp_path / "runs", "cand", {**cells, "c000": "f"}, kinds=dict.fromkeys(cells, "blocking"))
    out = tmp_path / "compare.html"
    assert run_cli(cli, "runner", ["compare", "--baseline", str(base), "--candidate", str(cand),
                                   "--html", str(out)]) == ExitCode.BLOCK  # a case with one trial: refused
    page = read(out)
    unchanged = [e.attrs["id"] for e in page.find("tr", "unchanged")]
    assert unchanged == [f"unchanged-{i}" for i in range(ROWS_SHOWN)]
    assert page.ids["unchanged"].text == f"Unchanged ({count - 1})"
    assert [e.attrs["id"] for e in page.find("tr", "regressions")] == ["regressions-0"]
    more = page.ids["unchanged-more"]
    assert more.urls == ["compare_files/rows-0001.html#unchanged-100", "compare_files/rows-0002.html#unchanged-300"]
    assert more.text.startswith(f"{count - 1 - ROWS_SHOWN} more rows of this section on row pages")
    assert all(u.split("#")[1] in page.ids for u in page.urls if u.startswith("#"))  # no pair link to a missing pair
    seen = []
    for name, first, last in (("rows-0001.html", 100, 299), ("rows-0002.html", 300, count - 2)):
        sheet = read(tmp_path / "compare_files" / name)
        ids = [e.attrs["id"] for e in sheet.find("tr", "unchanged")]
        assert ids == [f"unchanged-{i}" for i in range(first, last + 1)]
        assert "../compare.html#unchanged" in sheet.urls
        for link in (u for li in sheet.find("li") for u in li.urls):
            href, anchor = link.split("#")
            assert "/" not in href and anchor in read(tmp_path / "compare_files" / href).ids
        seen += [e.text for e in sheet.find("div", "case-id")]
    assert sorted(seen + [e.text for e in page.find("div", "case-id")]) == sorted(cells)
