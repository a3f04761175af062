"""The report's HTML page without a browser: one grid of cases by variants, each cell's outcome, reason and
duration, case titles, the run's notes first, and one section per trial embedding its artifacts, escaped."""

from __future__ import annotations

from pathlib import Path

from runner.report.artifacts import ARTIFACT_CAP, Budget, diff_kind, read_artifact
from runner.report.report import MODE_NOTES, render_html, write_html
from runner.runs.load import load_run
from tests.runner.report.htmlkit import HOSTILE, Page, parse, report_run
from tests.testing.runbuilder import record_digests, write_run
from tests.testing.trialkit import make_run


def page_of(run_dir: Path, page: Path) -> tuple[str, Page]:
    write_html(load_run(run_dir), page)
    html = page.read_text(encoding="utf-8")
    return html, parse(html)


def cell(page: Page, anchor: str) -> str:
    (found,) = [e for e in page.find("td", "trial") if f"#{anchor}" in e.urls]
    return " ".join(found.text.split())


def test_one_grid_of_cases_by_variants_with_reasons_durations_and_titles(tmp_path: Path) -> None:
    html, page = page_of(report_run(tmp_path / "runs"), tmp_path / "out" / "report.html")
    (grid,) = page.find("table", "grid")
    assert [" ".join(th.text.split()) for th in page.find("th", "gstart", grid)] == [
        "fixer", "noop", "trial 1", "trial 1"]  # one column group per variant, side by side
    rows = page.find("tr", "case", grid)
    assert [tuple(page.find(tag, cls, r)[0].text for tag, cls in (("span", "title"), ("span", "policy"),
                                                                    ("div", "case-id"))) for r in rows] == [
        ("cart title", "blocking", "cart"), ("tax title", "blocking, critical", "tax"),
        ("vat title", "advisory", "vat")]
    assert [sorted(r.classes) for r in rows] == [["case", "failed"], ["case", "errored"], ["case"]]
    assert cell(page, "t0-0-3") == "fail 13.0s grader: test_total failed"
    assert cell(page, "t0-1-2") == "error 12.0s agent exited 2"
    assert cell(page, "t1-2-1") == "pass 11.0s grader passed"
    assert {"fail", "v0"} <= next(e for e in page.find("td", "trial") if "#t0-0-3" in e.urls).classes
    assert len(page.find("td", "trial", grid)) == 18
    assert html.count("<h2>Errors</h2>") == 1


def test_a_section_per_trial_embeds_its_artifacts_escaped(tmp_path: Path) -> None:
    out = tmp_path / "out" / "report.html"
    html, page = page_of(report_run(tmp_path / "runs"), out)
    sections = [e.attrs["id"] for e in page.find("section", "trial")]
    assert sorted(sections) == sorted(f"t{v}-{c}-{n}" for v in range(2) for c in range(3) for n in range(1, 4))
    section = page.ids["t0-0-3"]
    panels = {p.attrs["data-artifact"]: p for p in page.find("div", "panel", section)}
    assert list(panels) == ["prompt.md", "transcript.log", "candidate.patch", "grader.log"]
    assert page.find("pre", None, panels["prompt.md"])[0].text == "Fix cart.\n"
    assert page.find("pre", None, panels["transcript.log"])[0].text == f"{HOSTILE}\nagent fixer done\n"
    assert page.find("pre", None, panels["grader.log"])[0].text == "grader for cart trial 3\n"
    spans = [(min(e.classes), e.text) for e in page.find("span", None, panels["candidate.patch"])
             if e.parents[-1].tag == "pre"]
    assert spans == [("meta", "diff --git a/src/app.py b/src/app.py"), ("meta", "index 1111111..2222222 100644"),
                     ("file", "--- a/src/app.py"), ("file", "+++ b/src/app.py"), ("hunk", "@@ -1,3 +1,3 @@"),
                     ("context", " def total(items):"), ("del", "-    return sum(items)"),
                     ("add", "+    return sum(items) + 0"), ("context", " ")]
    assert "setup 1.0s, agent 11.0s, grader 1.0s, total 13.0s" in section.text
    # the agent's markup is text: no element, no attribute and no script came from it
    assert not page.find("script") and not page.find("img") and "onerror" not in {
        k for e in page.elements for k in e.attrs}
    assert HOSTILE not in html and "&lt;script&gt;document.title=&#39;owned&#39;&lt;/script&gt;" in html
    files = [u for u in page.urls if not u.startswith("#")]
    assert len(files) == 18 * 9  # per trial: result.json and four artifacts in its list, four panel titles
    assert all((out.parent / u).resolve().is_file() for u in files)
    assert all(":" not in u and not u.startswith("//") for u in page.urls)
    assert {u for u in page.urls if u.startswith("#")} == {"#grid", *(f"#{s}" for s in sections)}
    assert "url(" not in html and "<link" not in html and "@import" not in html


def test_notes_lead_the_page_and_titles_fall_back_to_ids(tmp_path: Path) -> None:
    run_dir = make_run(tmp_path / "r1", {("fixer", "cart"): ["pass", "fail"]}, trials=2)
    (run_dir / "fixer" / "cart" / "2" / "result.json").unlink()
    _html, page = page_of(record_digests(run_dir), tmp_path / "r.html")
    main = page.ids["overview"]
    first = next(e for e in page.elements if e.inside(main))
    assert "banner" in first.classes and first.text.startswith("INCOMPLETE: 1 of 2 planned trials missing")
    row = page.find("tr", "case")[0]
    assert page.find("span", "title", row)[0].text == "cart" and not page.find("span", "policy", row)
    assert "not run" in page.find("tr", "case")[0].text
    base = write_run(tmp_path / "runs", "b1", {"cart": "ppp"}, mode="baseline")
    _, page = page_of(base, tmp_path / "b.html")
    banners = page.find("p", "banner")
    assert [b.text for b in banners] == [MODE_NOTES["baseline"]]
    assert banners[0] is next(e for e in page.elements if e.inside(page.ids["overview"]))


def test_long_artifacts_are_truncated_visibly_and_absent_ones_said(tmp_path: Path) -> None:
    run_dir = report_run(tmp_path / "runs")
    folder = run_dir / "fixer" / "cart" / "1"
    (folder / "transcript.log").write_bytes(b"a" * (ARTIFACT_CAP + 5000))
    (folder / "grader.log").unlink()
    _, page = page_of(run_dir, tmp_path / "r.html")
    panels = {p.attrs["data-artifact"]: p for p in page.find("div", "panel", page.ids["t0-0-1"])}
    note = page.find("p", "truncated", panels["transcript.log"])
    assert [n.text for n in note] == ["truncated: the first 200.0 KB of 205.0 KB shown; the whole file is linked above"]
    assert page.find("pre", None, panels["transcript.log"])[0].text == "a" * ARTIFACT_CAP
    assert [p.text for p in page.find("p", "absent", panels["grader.log"])] == ["not recorded"]
    assert not page.find("p", "truncated", page.ids["t0-0-2"])


def test_the_page_budget_leaves_artifacts_linked_only(tmp_path: Path) -> None:
    (tmp_path / "grader.log").write_text("0123456789")
    budget = Budget(left=15)
    first = read_artifact(tmp_path, "grader.log", "x/grader.log", budget)
    second = read_artifact(tmp_path, "grader.log", "y/grader.log", budget)
    assert (first.text, first.over_budget, budget.left) == ("0123456789", False, 5)
    assert (second.text, second.over_budget, second.size, budget.spent_on) == ("", True, 10, ["y/grader.log"])
    assert read_artifact(tmp_path, "prompt.md", "x/prompt.md", budget).size is None


def test_diff_lines_are_classified(tmp_path: Path) -> None:
    assert [diff_kind(line) for line in ("--- a/x", "+++ b/x", "@@ -1 +1 @@", "+new", "-old", " same",
                                         "new file mode 100644", "\\ No newline at end of file", "")] == [
        "file", "file", "hunk", "add", "del", "context", "meta", "meta", "context"]
    run_dir = report_run(tmp_path / "runs")
    (run_dir / "fixer" / "cart" / "1" / "candidate.patch").write_bytes(b"+\xff\x00bad\n")
    page = parse(render_html(load_run(run_dir), tmp_path / "r.html"))
    (panel,) = [p for p in page.find("div", "panel", page.ids["t0-0-1"]) if p.attrs["data-artifact"] == "candidate.patch"]
    assert [(sorted(s.classes), s.text) for s in page.find("span", None, panel) if s.parents[-1].tag == "pre"] == [
        (["add"], "+\ufffd\ufffdbad")]
