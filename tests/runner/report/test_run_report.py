"""runner report: the terminal table, the JSON document and the self-contained HTML page."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

from runner.report.report import render_html, render_table, report_document, write_html
from runner.runs.load import load_run
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


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"
        self.hrefs += [v for k, v in attrs if k == "href" and v]


def test_html_is_escaped_self_contained_and_links_resolve(tmp_path: Path) -> None:
    run_dir = sample(tmp_path)
    for folder in run_dir.glob("*/*/*"):
        for name in ("prompt.md", "transcript.log", "candidate.patch", "grader.log"):
            (folder / name).write_text("x")
    page = tmp_path / "elsewhere" / "report.html"
    page.parent.mkdir()
    write_html(load_run(run_dir), page)
    html = page.read_text()
    parser = Links()
    parser.feed(html)
    assert parser.scripts == 0 and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert len(parser.hrefs) == 12 * 5 + 5  # every trial's five artifacts, plus the error's own row
    assert all((page.parent / href).resolve().is_file() for href in parser.hrefs)
    assert "http" not in "".join(parser.hrefs) and "<link" not in html
    assert render_html(load_run(run_dir), page).count("<h2>Errors</h2>") == 1
