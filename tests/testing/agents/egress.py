#!/usr/bin/env python3
"""Reaches hosts through the proxy its environment names and prints what each answered, then fixes the calc case
(`nofix` leaves it). Each argument is `connect:HOST:PORT` (a CONNECT tunnel, then a plain GET /hello through it),
`get:URL` (an http:// URL through the proxy) or `direct:URL` (no proxy: the sandbox's loopback)."""

import os
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

proxy = urlsplit(os.environ.get("HTTPS_PROXY", "http://127.0.0.1:1"))


def tunnel(host: str, port: str) -> str:
    with socket.create_connection((proxy.hostname, proxy.port), timeout=10) as sock:
        sock.sendall(f"CONNECT {host}:{port} HTTP/1.1\r\nHost: {host}:{port}\r\n\r\n".encode())
        answer = sock.recv(65536)
        status = answer.split(b" ", 2)[1].decode()
        if status != "200":  # the proxy closes after its answer
            while chunk := sock.recv(65536):
                answer += chunk
            body = answer.decode("latin-1").partition("\r\n\r\n")[2]
            return f"{status} {body.strip()}"
        sock.sendall(f"GET /hello HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        return "200 " + data.decode("latin-1").rpartition("\r\n\r\n")[2].strip()


def get(url: str, via_proxy: bool) -> str:
    handler = urllib.request.ProxyHandler(None if via_proxy else {})
    try:
        with urllib.request.build_opener(handler).open(url, timeout=10) as response:
            return f"{response.status} {response.read().decode().strip()}"
    except urllib.error.HTTPError as exc:
        return f"{exc.code} {exc.read().decode().strip()}"
    except OSError as exc:
        return f"failed {exc}"


for argument in sys.argv[1:]:
    kind, _, rest = argument.partition(":")
    if kind == "connect":
        host, _, port = rest.rpartition(":")
        print(argument, "->", tunnel(host, port), flush=True)
    elif kind in ("get", "direct"):
        print(argument, "->", get(rest, kind == "get"), flush=True)
if "nofix" not in sys.argv[1:]:
    Path("calc.py").write_text("def add(a, b):\n    return a + b\n")
    print("fixed add()")
