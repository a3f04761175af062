"""--agent-network model: a scripted agent in the sandbox reaches its allowed hosts through the egress proxy and
only them, every attempt lands in network.json, a denied code host is an upstream lookup, and a trial that never
reached its model is an error."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from runner.runs.result import trial_path
from runner.sandbox import egress
from runner.sandbox.egress import NEVER_REACHED
from tests.testing.trialkit import Bench, agent, variants


class _Hello(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = f"hello from {self.headers.get('Host')}{self.path}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def model_server() -> Iterator[int]:
    """A plain HTTP server on the host's 127.0.0.1 standing in for a model provider; its port."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield int(server.server_address[1])
    server.shutdown()
    server.server_close()


@pytest.fixture
def model_test(model_server: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """model.test (ports 443 and 80) connects to the model server."""
    for port in (443, 80):
        monkeypatch.setitem(egress.TEST_ADDRESSES, ("model.test", port), ("127.0.0.1", model_server))
    return model_server


def trial_files(run_dir: Path, variant: str) -> tuple[str, dict[str, Any]]:
    folder = trial_path(run_dir, variant, "calc-add", 1)
    return (folder / "transcript.log").read_text(), json.loads((folder / "network.json").read_text())


def test_the_agent_reaches_only_its_model_hosts_and_every_attempt_is_recorded(calc_fast: Bench,
                                                                             model_test: int) -> None:
    command = agent("egress", "connect:model.test:443", "get:http://model.test/v1/models", "connect:github.com:443",
                    "get:http://pypi.org/simple/", "connect:example.com:443")
    loaded = calc_fast.run(variants=variants(probe=command), agent_allow_hosts=("model.test",))
    (result,) = loaded.trials
    log, network = trial_files(loaded.directory, "probe")
    assert result.outcome == "pass", (result.reason, log)
    assert "connect:model.test:443 -> 200 hello from model.test/hello" in log
    assert "get:http://model.test/v1/models -> 200 hello from model.test/v1/models" in log
    assert "connect:github.com:443 -> 403 hindcast: egress to github.com:443 is denied" in log
    assert "get:http://pypi.org/simple/ -> 403 hindcast: egress to pypi.org:80 is denied" in log
    seen = [(a["host"], a["port"], a["kind"], a["allowed"], a["status"], a["code_host"])
            for a in network["attempts"]]
    assert seen == [("model.test", 443, "connect", True, 200, False), ("model.test", 80, "http", True, None, False),
                    ("github.com", 443, "connect", False, 403, True), ("pypi.org", 80, "http", False, 403, True),
                    ("example.com", 443, "connect", False, 403, False)]
    allowed = network["attempts"][:2]
    assert all(a["bytes_up"] > 30 and a["bytes_down"] > 30 for a in allowed)
    assert all(a["bytes_up"] == a["bytes_down"] == 0 for a in network["attempts"][2:])
    assert network["allowed_bytes"] == sum(a["bytes_up"] + a["bytes_down"] for a in allowed)
    assert (network["mode"], network["allowed_hosts"], network["denied"]) == ("model", ["model.test"], 3)
    assert network["upstream_lookups"] == ["github.com:443", "pypi.org:80"]
    assert "upstream_lookup" in result.flags and result.upstream_lookups == ("github.com:443", "pypi.org:80")
