"""A package index of the test's own: hand-made wheels with the upload times a test gives, served as a PEP 691 JSON
simple index with PEP 700 upload times by an HTTP server on the loopback, so dated resolution is tested without
the public index."""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import json
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import ClassVar

from corpus.languages.python.names import normal_name

JSON_TYPE = "application/vnd.pypi.simple.v1+json"
OLD = "2023-06-01T00:00:00Z"
"""Before the test repositories' commits (2024, `tests.testing.gitrepo`)."""
NEW = "2025-06-01T00:00:00Z"
"""After them."""

OLD_BACKEND = '''\
"""A build backend of before editable installs: wheels only."""
import base64, hashlib, os, re, zipfile


def _project():
    text = open("pyproject.toml").read()
    name = re.search(r'^name = "(.*)"', text, re.M).group(1)
    found = re.search(r'^version = "(.*)"', text, re.M)  # else dynamic: from the tags, as setuptools-scm does
    version = found.group(1) if found else os.environ.get("SETUPTOOLS_SCM_PRETEND_VERSION", "0.1.dev1")
    deps = re.search(r'^dependencies = \\[(.*)\\]', text, re.M)
    return name, version, re.findall(r'"([^"]+)"', deps.group(1)) if deps else []


def _wheel(directory, files):
    name, version, deps = _project()
    info = f"{name}-{version}.dist-info"
    files = dict(files)
    files[f"{info}/METADATA"] = "Metadata-Version: 2.1\\nName: %s\\nVersion: %s\\n%s" % (
        name, version, "".join(f"Requires-Dist: {d}\\n" for d in deps))
    files[f"{info}/WHEEL"] = "Wheel-Version: 1.0\\nGenerator: fake\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\\n".join(record + [f"{info}/RECORD,,"]) + "\\n"
    filename = f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(directory, filename), "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return filename


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    name = _project()[0]
    return _wheel(wheel_directory, {f"{name}.py": open(f"{name}.py").read()})
'''

NEW_BACKEND = OLD_BACKEND + '''

def get_requires_for_build_editable(config_settings=None):
    return []


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, {"_" + _project()[0] + "_editable.pth": os.getcwd() + "\\n"})
'''


@dataclass(frozen=True)
class Release:
    """One wheel of the index."""

    name: str
    version: str
    uploaded: str
    """PEP 700 upload time, ISO 8601."""
    files: dict[str, str] = field(default_factory=dict)
    """Paths in the wheel and their text (besides its metadata)."""
    requires: tuple[str, ...] = ()
    """Requires-Dist lines."""


def wheel_bytes(release: Release) -> bytes:
    """A valid pure-Python wheel of release."""
    dist = release.name.replace("-", "_")
    info = f"{dist}-{release.version}.dist-info"
    files = dict(release.files)
    files[f"{info}/METADATA"] = (f"Metadata-Version: 2.1\nName: {release.name}\nVersion: {release.version}\n"
                                 + "".join(f"Requires-Dist: {line}\n" for line in release.requires))
    files[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path, text in sorted(files.items()):
            archive.writestr(zipfile.ZipInfo(path, (2020, 1, 1, 0, 0, 0)), text)
    return buffer.getvalue()


def backend(version: str, uploaded: str, editable: bool, importable: bool = True) -> Release:
    """A `setuptools` whose `setuptools.build_meta` builds the test's projects (their pyproject.toml's name,
    version, else the one setuptools-scm is told, and dependencies, one module of the name); editable installs only when editable, as old setuptools;
    the old one ships `pkg_resources`, as setuptools before its removal did. Not importable: `import setuptools`
    fails, as an old one may on today's interpreter."""
    init = f"__version__ = {version!r}\n" if importable else "raise ImportError('too old for this Python')\n"
    files = {"setuptools/__init__.py": init,
             "setuptools/build_meta.py": NEW_BACKEND if editable else OLD_BACKEND}
    if not editable:
        files["pkg_resources/__init__.py"] = "OLD = True\n"
    return Release("setuptools", version, uploaded, files)


def library(name: str, version: str, uploaded: str, requires: tuple[str, ...] = ()) -> Release:
    """A one-module library whose module says its version."""
    return Release(name, version, uploaded, {f"{name}.py": f"VERSION = {version!r}\n"}, requires)


class _Handler(http.server.BaseHTTPRequestHandler):
    routes: ClassVar[dict[str, tuple[str, bytes]]] = {}
    """Path -> (content type, body); each served index a subclass with its own."""

    def do_GET(self) -> None:
        body = self._head()
        if body is not None:
            self.wfile.write(body)

    def do_HEAD(self) -> None:
        self._head()

    def _head(self) -> bytes | None:
        found = self.routes.get(self.path.split("?")[0])
        if found is None:
            self.send_error(404)
            return None
        kind, body = found
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        return body

    def log_message(self, format: str, *args: object) -> None:  # quiet
        return


@contextmanager
def serve_index(releases: list[Release]) -> Iterator[str]:
    """The index of releases served on 127.0.0.1 for the block; yields its simple API's URL."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), type("Handler", (_Handler,), {"routes": {}}))
    url = f"http://127.0.0.1:{server.server_address[1]}"
    routes: dict[str, tuple[str, bytes]] = server.RequestHandlerClass.routes  # type: ignore[attr-defined]
    projects: dict[str, list[dict[str, object]]] = {}
    for release in releases:
        body = wheel_bytes(release)
        filename = f"{release.name.replace('-', '_')}-{release.version}-py3-none-any.whl"
        routes[f"/files/{filename}"] = ("application/octet-stream", body)
        projects.setdefault(normal_name(release.name), []).append(
            {"filename": filename, "url": f"{url}/files/{filename}", "hashes": {"sha256": hashlib.sha256(body).hexdigest()},
             "upload-time": release.uploaded})
    meta = {"api-version": "1.1"}
    routes["/simple/"] = (JSON_TYPE, json.dumps({"meta": meta, "projects": [{"name": n} for n in projects]}).encode())
    for name, files in projects.items():
        routes[f"/simple/{name}/"] = (JSON_TYPE, json.dumps({"meta": meta, "name": name, "files": files}).encode())
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"{url}/simple/"
    finally:
        server.shutdown()
        server.server_close()
