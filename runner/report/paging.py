"""Where a page's trial sections go: on the page itself for a small run, on trial pages in a folder beside it for a
large one, so the page a reader opens stays a few MB however many trials it links (the full logs are always the
trial folders' own files, linked, never copied).

A page and its folder are written as one: the trial pages into a staging folder renamed over the old one, then the
page itself atomically, so a reader (or a browser reloading a page that `runner report --watch` rewrites) never
sees a half-written file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from corpus.errors import UsageError
from corpus.fsutil import atomic_write_text, replace_directory, staging_directory, write_staged, writing
from runner.report.artifacts import TrialView
from runner.report.pages import environment

T = TypeVar("T")

INLINE_TRIALS = 200
"""Trials whose sections a page holds itself, as one self-contained file; above, every section is on a trial page."""
TRIALS_PER_PAGE = 100
"""Trial sections on one trial page."""
EXCERPT_CAP = 16_000
"""Bytes of one artifact a trial page embeds (a page that holds its own sections embeds up to ARTIFACT_CAP)."""
ROWS_SHOWN = 100
"""Rows of one section of a paged compare page that the page shows itself; the rest are on row pages."""
ROWS_PER_PAGE = 200
"""Compared rows on one row page."""
SHEET = re.compile(r"^(trials|rows)-\d{4,}\.html$")
"""The name of a trial page or a row page; a folder beside a page holding anything else is not replaced."""


@dataclass(frozen=True)
class Paging:
    """Where the trial sections of one page go."""

    page: Path
    """The page a reader opens."""
    paged: bool
    """The sections are on trial pages in ``folder``, not on the page."""

    @property
    def folder(self) -> Path:
        """The folder of trial pages beside the page: ``report.html`` has ``report_files``."""
        return self.page.with_name(f"{self.page.stem}_files")

    def sheet(self, index: int) -> str:
        """The file name of the trial page holding the index-th section (0-based, in page order)."""
        return f"trials-{index // TRIALS_PER_PAGE + 1:04d}.html"

    def href(self, index: int) -> str:
        """The link to the page holding the index-th section, relative to the page: empty when it is the page."""
        return f"{self.folder.name}/{self.sheet(index)}" if self.paged else ""

    @property
    def sheet_base(self) -> Path:
        """A path on a trial page, for links relative to it."""
        return self.folder / "trials.html"

    @property
    def back(self) -> str:
        """The link from a trial page back to the page's overview."""
        return f"../{self.page.name}"


@dataclass(frozen=True)
class RowSheet(Generic[T]):
    """One row page: consecutive rows of one section of a paged compare page."""

    name: str
    """Its file name in the folder beside the page (``rows-0001.html``)."""
    ident: str
    """The section's id."""
    title: str
    """The section's title."""
    first: int
    """The 1-based number of its first row in the section."""
    rows: tuple[T, ...]
    """The rows."""
    total: int
    """Rows in the whole section."""


@dataclass(frozen=True)
class PagedSection(Generic[T]):
    """A section of a compare page as the page shows it."""

    id: str
    """The section's id."""
    title: str
    """Its heading."""
    rows: tuple[T, ...]
    """The rows the page shows itself: all of them, or the first ROWS_SHOWN of a paged page's."""
    total: int
    """Rows in the section."""
    more: tuple[tuple[str, int, int], ...] = ()
    """(link, first, last) of each row page holding the rest of the section's rows."""

    @property
    def more_rows(self) -> int:
        """Rows on row pages."""
        return self.total - len(self.rows)


def page_rows(paging: Paging, sections: list[tuple[str, str, list[T]]]) -> \
        tuple[list[PagedSection[T]], list[RowSheet[T]]]:
    """Each (id, title, rows) section as the page shows it and its row pages: a paged page shows the first
    ROWS_SHOWN rows of a section and puts the rest on row pages of ROWS_PER_PAGE beside it, numbered in section
    order; a page holding its trials itself shows every row."""
    shown: list[PagedSection[T]] = []
    sheets: list[RowSheet[T]] = []
    for ident, title, rows in sections:
        if not paging.paged or len(rows) <= ROWS_SHOWN:
            shown.append(PagedSection(ident, title, tuple(rows), len(rows)))
            continue
        more = []
        for start in range(ROWS_SHOWN, len(rows), ROWS_PER_PAGE):
            chunk = tuple(rows[start:start + ROWS_PER_PAGE])
            sheet = RowSheet(f"rows-{len(sheets) + 1:04d}.html", ident, title, start + 1, chunk, len(rows))
            sheets.append(sheet)
            more.append((f"{paging.folder.name}/{sheet.name}#{ident}-{start}", start + 1, start + len(chunk)))
        shown.append(PagedSection(ident, title, tuple(rows[:ROWS_SHOWN]), len(rows), tuple(more)))
    return shown, sheets


def paging_for(page: Path, trials: int) -> Paging:
    """The sections on the page up to INLINE_TRIALS trials, on trial pages above."""
    return Paging(page, trials > INLINE_TRIALS)


def render_sheets(paging: Paging, views: list[TrialView], heading: str, overview: str,
                  refresh: int | None = None) -> dict[str, str]:
    """The trial pages of a paged page (name -> text), TRIALS_PER_PAGE sections each in the page's order, each
    linking back to the page's element with the id overview; none when the page holds its sections itself."""
    if not paging.paged:
        return {}
    template = environment().get_template("trials.html.j2")
    sheets = {}
    for start in range(0, len(views), TRIALS_PER_PAGE):
        chunk = views[start:start + TRIALS_PER_PAGE]
        sheets[paging.sheet(start)] = template.render(
            views=chunk, heading=heading, first=start + 1, last=start + len(chunk), total=len(views),
            back=f"{paging.back}#{overview}", cap=EXCERPT_CAP, refresh=refresh)
    return sheets


def write_pages(paging: Paging, text: str, sheets: dict[str, str], flag: str = "--html") -> None:
    """Write the trial pages (name -> text) as the folder beside the page, then the page; with no trial pages, a
    folder of trial pages left by an earlier write is removed. UsageError naming flag and the path when the page
    is a directory or the folder beside it holds other files; WriteError naming the path that cannot be written."""
    page, folder = paging.page, paging.folder
    if page.is_dir():
        raise UsageError(f"{flag} {page}: is a directory, not a file")
    if folder.exists() and (not folder.is_dir() or any(not SHEET.match(p.name) for p in folder.iterdir())):
        raise UsageError(f"{flag} {page}: {folder} holds other files than trial pages; move it or choose another "
                         f"file name")
    with writing(folder):
        if sheets:
            staged = staging_directory(folder.parent, folder.name)
            for name, sheet in sheets.items():
                write_staged(staged / name, sheet.encode("utf-8"))
            replace_directory(staged, folder)
        elif folder.exists():
            for stale in folder.iterdir():
                stale.unlink()
            folder.rmdir()
    atomic_write_text(page, text)
