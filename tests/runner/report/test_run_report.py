"""runner report: the terminal table, the JSON document and the self-contained HTML page."""

from __future__ import annotations

import json
from pathlib import Path

from runner.report.report import render_html, render_table, report_document, write_html
from runner.runs.load import load_run
from tests.runner.report.htmlkit import parse
from tests.testing.runbuilder import record_digests
from tests.testing.trialkit import make_run


def sample(tmp_path: Path) -> Path:
    run_dir = make_run(tmp_path / "runs" / "r1", {("fixer", "cart"): ["pass", "pass", "fail"],
                                                  ("fixer", "tax"): ["pass", "error", "pass"],
                                                  ("noop", "cart"): ["fail", "fail", "fail"],
                                                  ("noop", "tax"): ["fail", "fail", "fail"]}, trials=3)
    folder = run_dir / "fixer" / "tax" / "2"
    text = (folder / "result.json").read_text().replace("because error", "agent exited 1: <script>alert(1)</script>")
    (folder / "result.json").write_text(text)
    return record_digests(run_dir)


def test_table_shows_cases_by_variants(tmp_path: Path) -> None:
    text = render_table(load_run(sample(tmp_path)))
    assert "run 20260101T000000Z-abcd  mode agent  3 trial(s) per case" in text
    assert "2/3 passed" in text and "2/2 passed" in text and "0/3 passed" in text and "1 error" in text
    assert "@2 1.00  ^2 0.33" in text  # cart for fixer: n=3, c=2, at the common k=2
    row = next(line.split() for line in text.splitlines() if line.strip().startswith("fixer"))
    assert row == ["fixer", "6", "4", "1", "1", "0", "80%", "38%–96%", "1.00", "0.67"]
    assert "error fixer::tax #2: agent exited 1: <script>" in text


def test_json_document_has_every_k(tmp_path: Path) -> None:
    document = json.loads(json.dumps(report_document(load_run(sample(tmp_path)))))
    cells = {c["key"]: c for c in document["cells"]}
    assert cells["fixer::cart"]["pass_at_k"].keys() == {"1", "2", "3"}
    assert cells["fixer::tax"]["pass_hat_k"] == {"1": 1.0, "2": 1.0}
    assert document["dataset_fingerprint"] == "d" * 64 and len(document["trials"]) == 12


def test_html_is_escaped_self_contained_and_links_resolve(tmp_path: Path) -> None:
    run_dir = sample(tmp_path)
    for folder in run_dir.glob("*/*/*"):
        for name in ("prompt.md", "transcript.log", "candidate.patch", "grader.log"):
            (folder / name).write_text("x")
    page = tmp_path / "elsewhere" / "report.html"
    page.parent.mkdir()
    write_html(load_run(run_dir), page)
    html = page.read_text()
    parsed = parse(html)
    assert not parsed.find("script") and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    files = [u for u in parsed.urls if not u.startswith("#")]
    assert len(files) == 12 * 9  # every trial's result.json and four artifacts, linked twice from its section
    assert all((page.parent / href).resolve().is_file() for href in files)
    sections = {f"#{e.attrs['id']}" for e in parsed.find("section", "trial")}
    assert len(sections) == 12 and {u for u in parsed.urls if u.startswith("#")} == sections | {"#grid"}
    assert "http" not in "".join(parsed.urls) and "<link" not in html
    (error,) = [e for e in parsed.find("tr") if "#t0-1-2" in e.urls and "case" not in e.classes]  # the errors table
    assert "agent exited 1: <script>alert(1)</script>" in error.text
    assert render_html(load_run(run_dir), page).count("<h2>Errors</h2>") == 1
