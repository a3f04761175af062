"""Validate a case's `http_fixture` (its routes and their canned responses) with errors naming file, field and line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from corpus.errors import CorpusError
from corpus.model import HTTP_DIR, HTTP_METHODS, CaseFiles, HttpFixture, HttpRoute
from corpus.reader import Reader
from corpus.yamlio import line_of

if TYPE_CHECKING:
    from corpus.model import Case


def parse_http_fixture(r: Reader) -> HttpFixture | None:
    """http_fixture: true (serve the files under http/ at their paths) or {routes, require_token}."""
    value = r.data.get("http_fixture")
    if value is None or value is False:
        r.seen.add("http_fixture")
        return None
    if value is True:
        r.seen.add("http_fixture")
        return HttpFixture()
    child = r.child("http_fixture")
    assert child is not None
    routes = _routes(child)
    require_token = child.boolean("require_token")
    child.finish()
    return HttpFixture(routes, require_token)


def _routes(r: Reader) -> tuple[HttpRoute, ...]:
    items = r.data.get("routes")
    r.seen.add("routes")
    if items is None:
        return ()
    if not isinstance(items, list):
        raise r.fail("routes", "expected a list of routes ({path, method, status, file or body})")
    routes = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise r.fail_item("routes", index, "expected a route: a mapping with path, method, status, file or body")
        route = Reader(r.path, item, f"{r.prefix}routes[{index}].")
        path = route.text("path", required=True).strip()
        if not path.startswith("/"):
            raise route.fail("path", f"must start with '/', found {path!r}")
        method = route.text("method", default="GET").strip().upper()
        if method not in HTTP_METHODS:
            raise route.fail("method", f"must be one of {', '.join(HTTP_METHODS)}, found {method!r}")
        status = route.integer("status", default=200, minimum=100)
        if status > 599:
            raise route.fail("status", f"must be an HTTP status (100-599), found {status}")
        file, body = route.text("file"), route.text("body")
        if file is not None and body is not None:
            raise route.fail("body", "give file or body, not both")
        if file is not None:
            _check_file(route, file)
        headers = route.child("headers")
        header_map: dict[str, str] = {}
        if headers is not None:
            for key in list(headers.data):
                header_map[str(key)] = headers.text(str(key), required=True)
            headers.finish()
        content_type = route.text("content_type")
        route.finish()
        routes.append(HttpRoute(path, method, status, file, body, content_type, header_map))
    return tuple(routes)


def _check_file(r: Reader, file: str) -> None:
    parts = file.split("/")
    if file.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise r.fail("file", f"must be a path under the case's {HTTP_DIR}/ directory, found {file!r}")


def check_http_files(path: Path, data: object, case: Case, files: CaseFiles) -> None:
    """Every route's file exists under http/ (CorpusError at the route's line otherwise)."""
    fixture = case.http_fixture
    if fixture is None:
        return
    present = {name for name, _ in files.http_files}
    for index, route in enumerate(fixture.routes):
        if route.file is not None and route.file not in present:
            where = data.get("http_fixture") if isinstance(data, dict) else None
            routes = where.get("routes") if isinstance(where, dict) else None
            line = line_of(routes, index) if getattr(routes, "lc", None) is not None else line_of(data)
            raise CorpusError(path, f"no such file {HTTP_DIR}/{route.file} in the case directory",
                              field=f"http_fixture.routes[{index}].file", line=line)
    if not fixture.routes and not present:
        raise CorpusError(path, f"http_fixture has no routes and the case has no {HTTP_DIR}/ files to serve",
                          field="http_fixture", line=line_of(data, "http_fixture") if isinstance(data, dict) else None)
