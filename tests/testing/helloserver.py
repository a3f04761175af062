"""A plain HTTP server on the host's 127.0.0.1 that answers every GET with its Host header and path: what a
model provider looks like to the egress proxy's tests."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from runner.sandbox import egress


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello from {self.headers.get('Host')}{self.path}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def hello_server() -> Iterator[int]:
    """The server while the block runs; its port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()


def name_host(monkeypatch: pytest.MonkeyPatch, host: str, port: int) -> None:
    """The egress proxy connects host (ports 443 and 80) to 127.0.0.1:port (its test-only address table)."""
    for asked in (443, 80):
        monkeypatch.setitem(egress.TEST_ADDRESSES, (host, asked), ("127.0.0.1", port))
