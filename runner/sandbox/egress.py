"""The agent's egress proxy (--agent-network model): its sandbox has no network but this proxy, which lets through
only the model provider's hosts and records every connection attempt.

The proxy lives for one agent command. Like the HTTP fixture it is handed in over the sandbox's loopback
(`runner.sandbox.loopback`): the sandbox opens 127.0.0.1:PROXY_PORT on its own loopback and hands the listening
socket to the harness, which serves it; HTTPS_PROXY, HTTP_PROXY and ALL_PROXY (and their lowercase forms) name
it inside. HTTPS goes through by CONNECT, never decrypted; a plain http:// URL is forwarded (one request per
connection). Every other host gets a 403 that says why. An allowed loopback host with a port (a local model
endpoint, `127.0.0.1:8000`) is forwarded instead: the sandbox's 127.0.0.1:8000 is a socket the harness relays to
the host's, so clients reach it directly (NO_PROXY names the loopback).

Every attempt (host, port, how, allowed or denied, bytes each way, when) is kept for the trial's network.json. A
denied attempt to a code host (a git forge, a package index) is an upstream lookup: the agent looked for the
project's future, which a case's one-commit workspace holds back.
"""

from __future__ import annotations

import contextlib
import functools
import json
import socket
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal
from urllib.parse import SplitResult, urlsplit

from corpus.fsutil import atomic_write_text
from runner.sandbox.hosts import LOOPBACK_NAMES, AllowedHost, is_code_host, normal_host, split_host_port
from runner.sandbox.loopback import Loopback

NETWORK_LOG = "network.json"
"""The trial folder's record of the agent's connection attempts."""
NEVER_REACHED = "model never reached: no bytes to the provider"
"""A trial's reason when, with network model, not one byte went to an allowed host."""
PROXY_PORT = 3128
"""The proxy's port on the sandbox's loopback (the next free one when a forwarded port or the fixture has it)."""
PROXY_VARS = ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy")
"""The variables that name the proxy inside the sandbox."""
NO_PROXY = "127.0.0.1,localhost,::1"
"""What clients reach directly: the sandbox's loopback (forwarded local endpoints, the HTTP fixture)."""
MAX_KEPT = 2000
"""Attempts kept in network.json; later ones are counted, not kept."""
HEAD_LIMIT = 64 * 1024
"""Bytes of a request head read before the request is refused."""
HEAD_TIMEOUT = 30.0
"""Seconds a client may take to send its request head."""
CONNECT_TIMEOUT = 15.0
"""Seconds to connect to an allowed host."""

AttemptKind = Literal["connect", "http", "forward", "bad"]
"""How an attempt came: a CONNECT tunnel, a forwarded http:// request, a forwarded local port, or not a proxy
request."""
Connect = Callable[[str, int], socket.socket]
"""Opens a connection to an allowed host: (host, port) -> a connected socket; OSError when it cannot."""


TEST_ADDRESSES: dict[tuple[str, int], tuple[str, int]] = {}
"""For tests only, empty in every run: (host, port) connected to another address instead (a scripted model
provider on 127.0.0.1 under a provider-like host name, which a real agent CLI sends through the proxy)."""


def connect_direct(host: str, port: int) -> socket.socket:
    """A TCP connection to host:port from the harness (the host's resolver and routes)."""
    address = "127.0.0.1" if normal_host(host) in LOOPBACK_NAMES else normal_host(host)
    address, port = TEST_ADDRESSES.get((normal_host(host), port), (address, port))
    return socket.create_connection((address, port), timeout=CONNECT_TIMEOUT)


@dataclass(frozen=True)
class Attempt:
    """One connection the agent tried."""

    host: str
    """The host it asked for (as asked, normalised)."""
    port: int
    """The port."""
    kind: AttemptKind
    """connect (HTTPS by CONNECT), http (a plain http:// request forwarded), forward (a local endpoint's port on
    the sandbox's loopback) or bad (not a proxy request: no host)."""
    allowed: bool
    """Whether the host was let through."""
    status: int | None
    """The proxy's answer: 200 tunnel open, 403 denied, 400 not a proxy request, 502 the host could not be
    reached; None for a forward and a forwarded http request (the host answered)."""
    bytes_up: int
    """Bytes the agent sent to the host (a forwarded request's head included)."""
    bytes_down: int
    """Bytes the host sent back."""
    at: float
    """Seconds from the proxy's start to the attempt."""
    seconds: float
    """How long the connection lasted."""
    code_host: bool
    """The host is a git forge or a package index (CODE_HOSTS)."""
    error: str | None = None
    """Why an allowed host could not be reached, or what was wrong with the request."""


class EgressProxy:
    """One agent command's egress proxy and local forwards: serve them while the command runs, stop, record."""

    def __init__(self, allowed: Iterable[AllowedHost], taken: Iterable[int] = (),
                 connect: Connect = connect_direct) -> None:
        self.allowed = tuple(dict.fromkeys(allowed))
        by_port = {a.port: a for a in reversed(self.allowed) if a.local}  # the first one per port
        self.forwards = tuple(a for a in self.allowed if a.local and by_port[a.port] is a)
        used = {*taken, *(a.port for a in self.forwards)}
        self.port = next(p for p in range(PROXY_PORT, 65536) if p not in used)
        self.connect = connect
        self.started_at = datetime.now(UTC).isoformat(timespec="seconds")
        self._started = time.monotonic()
        self._lock = threading.Lock()
        self._kept: list[Attempt] = []
        self._dropped = 0
        self._allowed_bytes = 0
        self._open: set[socket.socket] = set()
        self._threads: list[threading.Thread] = []
        self._listening: list[socket.socket] = []
        self._stopping = threading.Event()

    # -- what the trial uses ------------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The proxy's URL inside the sandbox."""
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        """The variables the agent gets: every proxy variable naming the proxy, the loopback left direct."""
        return {**{name: self.url for name in PROXY_VARS}, "NO_PROXY": NO_PROXY, "no_proxy": NO_PROXY}

    def loopback(self) -> Loopback:
        """The proxy's port and every forwarded port, for the sandbox's loopback."""
        return Loopback((self.port, *(a.port or 0 for a in self.forwards)), self._serve)

    def attempts(self) -> list[Attempt]:
        """The attempts kept so far, in the order they began (one connection's end waits on both of its peers, so
        the order they ended is a race)."""
        with self._lock:
            return sorted(self._kept, key=lambda attempt: attempt.at)

    def allowed_bytes(self) -> int:
        """Bytes that went to allowed hosts, both ways."""
        with self._lock:
            return self._allowed_bytes

    def never_reached(self) -> str | None:
        """NEVER_REACHED when hosts were allowed and not one byte went to any of them (fail closed: a trial that
        never reached its model measured nothing); None otherwise, and when no host was allowed (no model to
        reach). Call it after the command ended (stop)."""
        return NEVER_REACHED if self.allowed and self.allowed_bytes() == 0 else None

    def upstream_lookups(self) -> tuple[str, ...]:
        """`host:port` of every denied attempt to a code host, each once, in order."""
        return tuple(dict.fromkeys(f"{a.host}:{a.port}" for a in self.attempts() if a.code_host and not a.allowed))

    def document(self, mode: str) -> dict[str, object]:
        """network.json's content."""
        attempts = self.attempts()
        return {"mode": mode, "started": self.started_at, "proxy": self.url,
                "allowed_hosts": [str(a) for a in self.allowed],
                "forwarded": [str(a) for a in self.forwards], "allowed_bytes": self.allowed_bytes(),
                "denied": sum(1 for a in attempts if not a.allowed), "dropped": self._dropped,
                "upstream_lookups": list(self.upstream_lookups()), "attempts": [asdict(a) for a in attempts]}

    def write_log(self, path: Path, mode: str) -> None:
        """Write network.json atomically."""
        atomic_write_text(path, json.dumps(self.document(mode), indent=1) + "\n")

    def stop(self) -> None:
        """Stop serving and end every open connection; the attempts are final after it."""
        self._stopping.set()
        with self._lock:
            listening, self._listening = self._listening, []
            sockets = list(self._open)
        for sock in [*listening, *sockets]:
            _close(sock, shutdown=True)
        for thread in list(self._threads):
            thread.join(timeout=5)

    # -- serving ------------------------------------------------------------------------------------

    def _serve(self, sockets: list[socket.socket]) -> Callable[[], None]:
        with self._lock:
            self._listening.extend(sockets)
        handlers: list[Callable[[socket.socket], None]] = [self._proxy]
        handlers += [functools.partial(self._forward, allowed=allowed) for allowed in self.forwards]
        for listener, handle in zip(sockets, handlers, strict=True):
            self._spawn(self._accept, listener, handle)
        return self.stop

    def _spawn(self, target: Callable[..., None], *args: object) -> None:
        thread = threading.Thread(target=target, args=args, name="hindcast-egress", daemon=True)
        with self._lock:
            self._threads = [t for t in self._threads if t.is_alive()]
            self._threads.append(thread)
        thread.start()

    def _accept(self, listener: socket.socket, handle: Callable[[socket.socket], None]) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return
            self._spawn(self._connection, client, handle)

    def _connection(self, client: socket.socket, handle: Callable[[socket.socket], None]) -> None:
        with self._lock:
            self._open.add(client)
        try:
            with contextlib.suppress(OSError):  # the agent or the host hung up: the attempt is recorded as it got
                handle(client)
        finally:
            _close(client)
            with self._lock:
                self._open.discard(client)

    def _proxy(self, client: socket.socket) -> None:
        """One client of the proxy port: read its request head, deny or let it through."""
        start = time.monotonic()
        client.settimeout(HEAD_TIMEOUT)
        head, rest = _read_head(client)
        client.settimeout(None)
        try:
            method, target, version, lines = _parse_head(head)
            kind: AttemptKind
            if method == "CONNECT":
                host, port = split_host_port(target, 443)
                kind, forwarded = "connect", b""
            else:
                url = urlsplit(target)
                if url.scheme != "http" or not url.hostname:
                    raise ValueError("expected CONNECT host:port or an absolute http:// URL")
                host, port = normal_host(url.hostname), url.port or 80
                kind, forwarded = "http", _origin_head(method, url, version, lines)
            if not host or port is None:
                raise ValueError("no host")
        except ValueError as exc:
            _send(client, _answer(400, f"hindcast egress proxy: bad request: {exc}"))
            self._record("", 0, "bad", False, 400, 0, 0, start, error=str(exc))
            return
        if not any(a.allows(host, port) for a in self.allowed):
            _send(client, _answer(403, f"hindcast: egress to {host}:{port} is denied: this sandbox reaches only "
                                       "its model provider's hosts (--agent-network model; allow one with "
                                       "--agent-allow-host HOST[:PORT])"))
            self._record(host, port, kind, False, 403, 0, 0, start)
            return
        try:
            upstream = self.connect(host, port)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            _send(client, _answer(502, f"hindcast egress proxy: cannot reach {host}:{port}: {reason}"))
            self._record(host, port, kind, True, 502, 0, 0, start, error=reason)
            return
        if kind == "connect":
            _send(client, b"HTTP/1.1 200 Connection established\r\n\r\n")
        up, down = self._relay(client, upstream, forwarded + rest)
        self._record(host, port, kind, True, 200 if kind == "connect" else None, up, down, start)

    def _forward(self, client: socket.socket, allowed: AllowedHost) -> None:
        """One client of a forwarded local port: relayed to the host's."""
        start = time.monotonic()
        port = allowed.port or 0
        try:
            upstream = self.connect(allowed.host, port)
        except OSError as exc:
            self._record(allowed.host, port, "forward", True, None, 0, 0, start, error=exc.strerror or str(exc))
            return
        up, down = self._relay(client, upstream, b"")
        self._record(allowed.host, port, "forward", True, None, up, down, start)

    def _relay(self, client: socket.socket, upstream: socket.socket, first: bytes) -> tuple[int, int]:
        """Copy both ways until both ends closed (first goes upstream first); the bytes up and down."""
        upstream.settimeout(None)
        with self._lock:
            self._open.add(upstream)
        counts = [0, 0]
        try:
            with contextlib.suppress(OSError):  # the host hung up before the first bytes: zero bytes relayed
                if first:
                    upstream.sendall(first)
                    counts[0] += len(first)
                    self._count(len(first))
                down = threading.Thread(target=self._pump, args=(upstream, client, counts, 1), daemon=True,
                                        name="hindcast-egress-down")
                down.start()
                self._pump(client, upstream, counts, 0)
                down.join()
        finally:
            _close(upstream)
            with self._lock:
                self._open.discard(upstream)
        return counts[0], counts[1]

    def _pump(self, source: socket.socket, sink: socket.socket, counts: list[int], index: int) -> None:
        with contextlib.suppress(OSError):  # one end closed or reset: the relay of this direction ends
            while chunk := source.recv(65536):
                sink.sendall(chunk)
                counts[index] += len(chunk)
                self._count(len(chunk))
        with contextlib.suppress(OSError):
            sink.shutdown(socket.SHUT_WR)

    def _count(self, size: int) -> None:
        with self._lock:
            self._allowed_bytes += size

    def _record(self, host: str, port: int, kind: AttemptKind, allowed: bool, status: int | None, up: int, down: int,
                start: float, error: str | None = None) -> None:
        now = time.monotonic()
        attempt = Attempt(host, port, kind, allowed, status, up, down, round(start - self._started, 3),
                          round(now - start, 3), bool(host) and is_code_host(host), error)
        with self._lock:
            if len(self._kept) >= MAX_KEPT:
                self._dropped += 1
            else:
                self._kept.append(attempt)


def _read_head(client: socket.socket) -> tuple[bytes, bytes]:
    """The request head (up to its blank line) and what came after it; (b"", b"") for a head cut short or too
    long (refused by _parse_head)."""
    data = b""
    with contextlib.suppress(OSError):  # a client that hung up or timed out sent no complete head: refused below
        while b"\r\n\r\n" not in data and len(data) < HEAD_LIMIT:
            chunk = client.recv(65536)
            if not chunk:
                break
            data += chunk
    head, sep, rest = data.partition(b"\r\n\r\n")
    return (head, rest) if sep else (b"", b"")


def _parse_head(head: bytes) -> tuple[str, str, str, list[str]]:
    """(method, target, version, header lines) of a request head; ValueError when it is not one."""
    if not head:
        raise ValueError("no complete request head")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/"):
        raise ValueError(f"not a request line: {lines[0][:80]!r}")
    return parts[0].upper(), parts[1], parts[2], lines[1:]


def _origin_head(method: str, url: SplitResult, version: str, lines: list[str]) -> bytes:
    """A forwarded request's head: the path alone on the request line, proxy headers dropped, the connection
    closed after the answer (one request per connection, so the next request is checked again)."""
    path, query = url.path or "/", url.query
    kept = [line for line in lines if line.split(":", 1)[0].strip().lower()
            not in ("proxy-connection", "proxy-authorization", "connection", "keep-alive")]
    head = [f"{method} {path}{'?' + query if query else ''} {version}", *kept, "Connection: close"]
    return ("\r\n".join(head) + "\r\n\r\n").encode("latin-1")


def _answer(status: int, text: str) -> bytes:
    reasons = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}
    body = (text + "\n").encode()
    return (f"HTTP/1.1 {status} {reasons[status]}\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\nX-Hindcast-Egress: "
            f"{'denied' if status == 403 else 'error'}\r\n\r\n").encode() + body


def _send(client: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):
        client.sendall(data)


def _close(sock: socket.socket, shutdown: bool = False) -> None:
    if shutdown:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
    with contextlib.suppress(OSError):
        sock.close()
