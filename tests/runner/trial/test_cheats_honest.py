"""Honest agents in the same sandbox: one that installs a tool of its own into its HOME from a package index
served on loopback, and one cut off from the network, both still pass with a real fix."""

from __future__ import annotations

import base64
import hashlib
import http.server
import shlex
import threading
import zipfile
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Self

import pytest

from tests.runner.trial.test_cheats import Problems, artifact, by_variant, interpreter_bench
from tests.testing.trialkit import Bench, agent, variants

PACKAGE = "tinyadd"


def wheel(directory: Path) -> Path:
    """A one-module wheel written by hand: tinyadd.plus(a, b)."""
    files = {f"{PACKAGE}/__init__.py": b"def plus(a, b):\n    return a + b\n",
             f"{PACKAGE}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: 1.0\n".encode(),
             f"{PACKAGE}-1.0.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\n"
                                               b"Tag: py3-none-any\n"}
    record = [f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
              f"{len(data)}" for name, data in files.items()]
    files[f"{PACKAGE}-1.0.dist-info/RECORD"] = ("\n".join([*record, f"{PACKAGE}-1.0.dist-info/RECORD,,"]) + "\n").encode()
    path = directory / f"{PACKAGE}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


class Index:
    """A directory of wheels served over HTTP on 127.0.0.1 (pip's --find-links reads its listing)."""

    def __init__(self, directory: Path) -> None:
        self.requests: list[str] = []
        requests = self.requests

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                requests.append(self.path)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Handler, directory=str(directory)))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Self:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def index(tmp_path: Path) -> Iterator[Index]:
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    wheel(wheels)
    with Index(wheels) as served:
        yield served


def test_an_honest_agent_installs_a_tool_into_its_home_and_passes(calc_pytest: Bench, index: Index) -> None:
    # the index is a local endpoint the run allows: its port is forwarded onto the sandbox's loopback
    loaded = calc_pytest.run(variants=variants(honest=agent("cheats/pip_honest", PACKAGE, shlex.quote(index.url))),
                             agent_allow_hosts=(index.url.removeprefix("http://").rstrip("/"),))
    (trial,) = loaded.trials
    transcript = artifact(loaded, "honest", "transcript.log")
    assert trial.outcome == "pass", (trial.reason, transcript[-2000:])
    assert trial.flags == () and trial.changed_files == ("calc.py",)
    assert f"USED {PACKAGE}: 2 + 3 = 5" in transcript
    assert any(PACKAGE in r for r in index.requests)


def test_an_agent_without_network_cannot_reach_the_index_and_still_passes(calc_pytest: Bench, index: Index) -> None:
    loaded = calc_pytest.run(agent_network="none",
                             variants=variants(offline=agent("cheats/offline_honest", shlex.quote(index.url))))
    (trial,) = loaded.trials
    transcript = artifact(loaded, "offline", "transcript.log")
    assert trial.outcome == "pass", (trial.reason, transcript[-2000:])
    assert "UNREACHABLE" in transcript and "REACHED" not in transcript.replace("UNREACHABLE", "")
    assert index.requests == []


def test_an_honest_agent_finds_the_cases_interpreter_first_on_path(tmp_path: Path) -> None:
    bench = interpreter_bench(tmp_path)
    command = "python -c 'import sys; print(\"PREFIX\", sys.prefix)'; command -v python; " + agent("fix")
    loaded = bench.run(variants=variants(honest=command))
    by = by_variant(loaded)
    transcript = artifact(loaded, "honest", "transcript.log")
    prefix = next(line.split(" ", 1)[1] for line in transcript.splitlines() if line.startswith("PREFIX"))
    problems = Problems("the honest agent was let down")
    problems.check(by["honest"].outcome == "pass", f"{by['honest'].outcome}: {by['honest'].reason}")
    problems.check(Path(prefix).name == "python" and "hindcast-calc-add-" in prefix,
                   f"`python` on the agent's PATH is not the case's interpreter environment: {prefix}")
    problems.assert_none()
