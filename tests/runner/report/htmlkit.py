"""Runs with artifacts in every trial folder, an HTML parser that collects what the page tests look at, and a
headless Chromium that reports what a page shows."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from tests.testing.runbuilder import write_run

HOSTILE = "<script>document.title='owned'</script><img src=x onerror=alert(1)>"
"""What an agent may write in a transcript: it must reach the page as text."""
PATCH = ("diff --git a/src/app.py b/src/app.py\nindex 1111111..2222222 100644\n--- a/src/app.py\n+++ b/src/app.py\n"
         "@@ -1,3 +1,3 @@\n def total(items):\n-    return sum(items)\n+    return sum(items) + 0\n \n")


def add_artifacts(run_dir: Path, transcript: str = HOSTILE) -> None:
    """Write a prompt, transcript, patch and grader log into every trial folder of a run."""
    for folder in run_dir.glob("*/*/[0-9]*"):
        (folder / "prompt.md").write_text(f"Fix {folder.parent.name}.\n")
        (folder / "transcript.log").write_text(f"{transcript}\nagent {folder.parent.parent.name} done\n")
        (folder / "candidate.patch").write_text(PATCH)
        (folder / "grader.log").write_text(f"grader for {folder.parent.name} trial {folder.name}\n")


def report_run(root: Path) -> Path:
    """Two variants over three cases with titles: vat passes everywhere, cart fails once, tax errs once."""
    run_dir = write_run(root, "r1", {"fixer::cart": "ppf", "fixer::tax": "pep", "fixer::vat": "ppp",
                                     "noop::cart": "fff", "noop::tax": "ppp", "noop::vat": "ppp"},
                        kinds={"cart": "blocking", "tax": "critical", "vat": "advisory"},
                        reasons={"fixer::cart": "grader: test_total failed", "fixer::tax": "agent exited 2"})
    add_artifacts(run_dir)
    return run_dir


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass(eq=False)
class Element:
    """One element of a parsed page: its tag, attributes, text (its descendants' included) and the URLs in it."""

    tag: str
    attrs: dict[str, str]
    text: str = ""
    urls: list[str] = field(default_factory=list)
    parents: list[Element] = field(default_factory=list, repr=False)

    def inside(self, other: Element) -> bool:
        """Whether other is one of this element's ancestors."""
        return any(parent is other for parent in self.parents)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())


class Page(HTMLParser):
    """Every element in document order, by id, and every URL of the page."""

    def __init__(self) -> None:
        super().__init__()
        self.elements: list[Element] = []
        self.ids: dict[str, Element] = {}
        self.urls: list[str] = []
        self._open: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs}, parents=list(self._open))
        urls = [v for k, v in element.attrs.items() if k in ("href", "src", "action", "srcset", "poster", "data")]
        self.urls += urls
        for parent in self._open:
            parent.urls += urls
        element.urls += urls
        self.elements.append(element)
        if "id" in element.attrs:
            self.ids[element.attrs["id"]] = element
        if tag not in VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop().tag == tag:
                break

    def handle_data(self, data: str) -> None:
        for element in self._open:
            element.text += data

    def find(self, tag: str, cls: str | None = None, within: Element | None = None) -> list[Element]:
        """Elements of a tag (with a class, inside an element), in document order."""
        return [e for e in self.elements if e.tag == tag and (cls is None or cls in e.classes)
                and (within is None or e.inside(within))]


def parse(html: str) -> Page:
    """The page parsed."""
    page = Page()
    page.feed(html)
    page.close()
    return page


def chromium() -> str:
    """The headless browser the page tests use (installed by .ci/run)."""
    found = shutil.which("chromium")
    assert found, "chromium is not installed (apt-get install -y chromium, as .ci/run does)"
    return found


def browser_check(page: Path, check_script: str, work: Path) -> dict[str, Any]:
    """Open a copy of page in headless Chromium with check_script appended (it must put a JSON document into
    the text of an element with id "visibility"), and return that document from the rendered DOM."""
    copy = work / f"checked-{page.name}"
    html = page.read_text(encoding="utf-8")
    copy.write_text(html.replace("</body>", f"<script>{check_script}</script></body>"), encoding="utf-8")
    command = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", "--disable-background-networking", "--disable-sync",
               f"--user-data-dir={work / 'profile'}", "--window-size=1280,900",
               "--virtual-time-budget=5000", "--dump-dom", copy.as_uri()]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    dom = parse(done.stdout)
    assert "visibility" in dom.ids, f"the check script did not run:\n{done.stderr[-2000:]}"
    result = json.loads(dom.ids["visibility"].text)
    assert isinstance(result, dict)
    return result
