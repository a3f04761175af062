"""Resolution as of the fix's date for setups that install with pip (an interpreter uv does not install into):
a package index on the loopback, served for setup's duration, whose pages list only the files the upstream index
had on that date.

Old pip has no `exclude-newer`. It reads PEP 503 HTML pages, so each page is made from the upstream's PEP 691
JSON page, keeping the files whose PEP 700 `upload-time` is before the date (a file without one is left out: its
date cannot be established), with their hash, `data-requires-python` and `data-yanked`. The build tools
(`runner.envs.resolution.BUILD_TOOLS`, the list the uv path exempts) are listed whole, today's included, as on
the uv path; pip itself still picks among them by `requires-python`. The index goes to pip as `PIP_INDEX_URL`,
so no setup command changes.

The upstream's JSON pages are kept for the process (`UPSTREAM_PAGES` of them, the least recently used let go):
the setups of one verify resolve mostly the same projects, each as of its own date, and a page fetched once
serves every date (the date filter is applied to it each time).
"""

from __future__ import annotations

import datetime
import hashlib
import html
import http.server
import json
import os
import re
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections import OrderedDict
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import ClassVar

from corpus.languages.python.names import normal_name
from runner.envs.resolution import BUILD_TOOLS

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
PYPI_SIMPLE = "https://pypi.org/simple/"
UPSTREAM_VARIABLE = "PIP_INDEX_URL"
"""The upstream index is the harness's own pip index when it has one, else PyPI's."""
FETCH_TIMEOUT = 60
UPSTREAM_PAGES = 512
"""How many upstream JSON pages the process keeps."""
PIP_STEP = re.compile(r"(?<![\w.-])pip[0-9.]*\s+install\b")
"""A setup step that installs with pip (`pip install`, `pip2.7 install`, `python -m pip install`)."""


def installs_with_pip(command: str | None) -> bool:
    """The setup command has a pip install step (not `uv pip install`) that reads an index (not `--no-index`:
    the date would decide nothing, and only split the cache by date)."""
    if not command:
        return False
    return any(command[: match.start()].split()[-1:] != ["uv"]
               and "--no-index" not in re.split(r"&&|\|\||[;|\n]", command[match.end():], maxsplit=1)[0].split()
               for match in PIP_STEP.finditer(command))


def upstream_index() -> str:
    """The index the dated pages are made from."""
    url = os.environ.get(UPSTREAM_VARIABLE) or PYPI_SIMPLE
    return url if url.endswith("/") else url + "/"


def instant(text: str) -> datetime.datetime | None:
    try:
        found = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    return found if found.tzinfo is not None else found.replace(tzinfo=datetime.UTC)


def dated_page(page: dict[str, object], page_url: str, as_of: str | None, exempt: bool) -> str:
    """The PEP 503 HTML page of a PEP 691 JSON project page: the files uploaded before as_of (every file when
    exempt or as_of is None).

    A project none of whose files is that old keeps those of its first upload day instead: its releases were
    uploaded again later (atomicwrites' were all re-uploaded in July 2022, so as of any earlier date it would have
    nothing, and every pytest from 3.6 to 7, which needs it, would drop out of the resolution), or it is younger
    than the date and whatever asks for it is already an approximation."""
    cutoff = instant(as_of) if as_of else None
    links = []
    files = page.get("files")
    dated = [(item, instant(str(item.get("upload-time") or "")))
             for item in (files if isinstance(files, list) else []) if isinstance(item, dict)]
    times = [uploaded for _, uploaded in dated if uploaded is not None]
    if cutoff is not None and not exempt and times and min(times) >= cutoff:
        cutoff = min(times) + datetime.timedelta(days=1)
    for item, uploaded in dated:
        if not isinstance(item.get("filename"), str) or not item.get("url"):
            continue
        if cutoff is not None and not exempt and (uploaded is None or uploaded >= cutoff):
            continue
        url = urllib.parse.urljoin(page_url, str(item["url"]))
        hashes = item.get("hashes")
        if isinstance(hashes, dict) and isinstance(hashes.get("sha256"), str):
            url = f"{url.split('#', 1)[0]}#sha256={hashes['sha256']}"
        attributes = f' href="{html.escape(url)}"'
        if isinstance(item.get("requires-python"), str):
            attributes += f' data-requires-python="{html.escape(item["requires-python"])}"'
        yanked = item.get("yanked")
        if yanked:
            attributes += f' data-yanked="{html.escape(yanked if isinstance(yanked, str) else "")}"'
        links.append(f"<a{attributes}>{html.escape(item['filename'])}</a><br/>")
    name = html.escape(str(page.get("name", "")))
    return (f"<!DOCTYPE html>\n<html><head><title>Links for {name}</title></head><body>\n"
            + "\n".join(links) + "\n</body></html>\n")


@dataclass(frozen=True, slots=True)
class _Fetched:
    """An upstream JSON page and the address it came from (after redirects)."""

    page: dict[str, object]
    url: str


_PAGES: OrderedDict[str, _Fetched] = OrderedDict()
_PAGES_LOCK = threading.Lock()
_FETCHING: dict[str, threading.Lock] = {}


def _upstream_page(url: str) -> _Fetched | tuple[int, bytes]:
    """The upstream's JSON page at url, fetched once per process (two setups asking at once: one fetch); a
    failure is the status and body to serve, and is asked again next time."""
    with _PAGES_LOCK:
        fetching = _FETCHING.setdefault(url, threading.Lock())
    with fetching:
        with _PAGES_LOCK:
            if url in _PAGES:
                _PAGES.move_to_end(url)
                return _PAGES[url]
        request = urllib.request.Request(url, headers={"Accept": JSON_TYPE})
        try:
            with urllib.request.urlopen(request, timeout=FETCH_TIMEOUT) as response:
                page = json.loads(response.read().decode("utf-8"))
                landed = response.geturl()
        except urllib.error.HTTPError as error:
            return (404 if error.code == 404 else 502), f"upstream: {error.code}\n".encode()
        except (OSError, ValueError) as error:
            return 502, f"upstream: {error}\n".encode()
        if not isinstance(page, dict):
            return 502, b"upstream: not a JSON simple page\n"
        fetched = _Fetched(page, landed)
        with _PAGES_LOCK:
            _PAGES[url] = fetched
            while len(_PAGES) > UPSTREAM_PAGES:
                _PAGES.popitem(last=False)
        return fetched


class _Handler(http.server.BaseHTTPRequestHandler):
    settings: ClassVar[tuple[str, str | None, frozenset[str]]] = ("", None, frozenset())
    """Upstream index, date, exempt names; each served index a subclass with its own."""
    pages: ClassVar[dict[str, tuple[int, bytes]]] = {}

    def do_GET(self) -> None:
        status, body = self._page()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _page(self) -> tuple[int, bytes]:
        parts = [part for part in urllib.parse.urlsplit(self.path).path.split("/") if part]
        if len(parts) != 2 or parts[0] != "simple":
            return 404, b"not found\n"
        name = normal_name(urllib.parse.unquote(parts[1]))
        found = self.pages.get(name)
        if found is None:
            found = self.pages[name] = self._fetch(name)
        return found

    def _fetch(self, name: str) -> tuple[int, bytes]:
        upstream, as_of, exempt = self.settings
        return dated_response(upstream, name, as_of, exempt)

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return


def dated_response(upstream: str, name: str, as_of: str | None, exempt: frozenset[str]) -> tuple[int, bytes]:
    """The status and body the dated index serves for project name (normalized): its dated page, or the
    upstream's failure (404 when it has no such project, 502 when it cannot be read)."""
    found = _upstream_page(f"{upstream}{name}/")
    if isinstance(found, tuple):
        return found
    return 200, dated_page(found.page, found.url, as_of, name in exempt).encode()


def _digest(status: int, body: bytes) -> str:
    return hashlib.sha256(body).hexdigest() if status == 200 else f"status {status}"


@dataclass(frozen=True)
class DatedIndex:
    """A dated index being served: its URL, and what it served so far."""

    url: str
    """`http://127.0.0.1:PORT/simple/`."""
    exempt: tuple[str, ...]
    """The projects listed whole (normalized, sorted)."""
    pages: dict[str, tuple[int, bytes]]
    """Project -> (status, body) served."""

    def view(self) -> dict[str, str]:
        """What a client read: each project asked for, with the sha256 of the page served (`status N` for a
        failure). Two dated indexes whose views agree gave their clients the same answers."""
        return {name: _digest(*found) for name, found in sorted(self.pages.items())}


def view_as_of(view: dict[str, str], as_of: str, exempt: tuple[str, ...],
               upstream: str | None = None) -> dict[str, str] | None:
    """The view a dated index as of as_of would give for the projects of view (fetched from the process's kept
    pages, else the upstream, several at once); None when a page cannot be read now (a 502: nothing can be
    established)."""
    base, excused = upstream or upstream_index(), frozenset(exempt)
    with ThreadPoolExecutor(max_workers=8) as pool:
        found = dict(zip(view, pool.map(lambda name: dated_response(base, name, as_of, excused), view),
                         strict=True))
    if any(status == 502 for status, _ in found.values()):
        return None
    return {name: _digest(*answer) for name, answer in found.items()}


@contextmanager
def serve_dated(as_of: str, exempt: tuple[str, ...] = BUILD_TOOLS,
                upstream: str | None = None) -> Iterator[DatedIndex]:
    """An index of the upstream's files uploaded before as_of (exempt projects whole) on 127.0.0.1 for the
    block; yields it (its URL is `.../simple/`)."""
    names = tuple(sorted({normal_name(n) for n in exempt}))
    pages: dict[str, tuple[int, bytes]] = {}
    handler = type("Handler", (_Handler,), {"settings": (upstream or upstream_index(), as_of, frozenset(names)),
                                            "pages": pages})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield DatedIndex(f"http://127.0.0.1:{server.server_address[1]}/simple/", names, pages)
    finally:
        server.shutdown()
        server.server_close()
