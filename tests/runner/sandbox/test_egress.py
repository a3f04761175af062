"""--agent-network model: a scripted agent in the sandbox reaches its allowed hosts through the egress proxy and
only them, every attempt lands in network.json, a denied code host is an upstream lookup, and a trial that never
reached its model is an error."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode, UsageError
from runner.cli import cli
from runner.runs.load import load_run
from runner.runs.result import trial_path
from runner.sandbox.egress import NEVER_REACHED, EgressProxy
from runner.sandbox.hosts import AllowedHost, allowed_hosts, is_code_host, parse_allowed
from tests.testing.helloserver import hello_server, name_host
from tests.testing.httpcase import build_http_corpus
from tests.testing.trialkit import SANDBOX_ARGS, Bench, agent, variants


@pytest.fixture
def model_server() -> Iterator[int]:
    """A stand-in model provider on the host's 127.0.0.1; its port."""
    with hello_server() as port:
        yield port


@pytest.fixture
def model_test(model_server: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """model.test (ports 443 and 80) connects to the model server."""
    name_host(monkeypatch, "model.test", model_server)
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


def test_curl_inside_follows_the_proxy_variables(calc_fast: Bench, model_test: int) -> None:
    command = ("env | grep -i _proxy | sort; curl -sS http://model.test/v1/models; "
               "curl -sS -o /dev/null https://github.com/ 2>&1; echo curl exit $?; " + agent("fix"))
    loaded = calc_fast.run(variants=variants(curl=command), agent_allow_hosts=("model.test",))
    log, network = trial_files(loaded.directory, "curl")
    proxy = network["proxy"]
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "https_proxy", "http_proxy", "all_proxy"):
        assert f"{name}={proxy}\n" in log
    assert "NO_PROXY=127.0.0.1,localhost,::1\n" in log
    assert "hello from model.test/v1/models" in log
    assert "CONNECT tunnel failed, response 403" in log and "curl exit 56" in log
    assert [(a["host"], a["allowed"]) for a in network["attempts"]] == [("model.test", True), ("github.com", False)]
    assert loaded.trials[0].outcome == "pass" and loaded.trials[0].upstream_lookups == ("github.com:443",)


def test_git_and_pip_cannot_fetch_the_future_and_are_flagged(calc_fast: Bench) -> None:
    command = ("git clone -q --depth 1 https://github.com/example/project /tmp/clone 2>&1 | tail -1; "
               "python -m pip download -q --no-deps --retries 0 --timeout 5 -d /tmp/dl tinyadd 2>&1 | tail -1; "
               + agent("fix"))
    loaded = calc_fast.run(variants=variants(fetcher=command))
    (result,) = loaded.trials
    log, network = trial_files(loaded.directory, "fetcher")
    assert "CONNECT tunnel failed, response 403" in log and not (calc_fast.tmp_path / "clone").exists()
    assert result.outcome == "pass" and "upstream_lookup" in result.flags
    assert result.upstream_lookups[0] == "github.com:443" and "pypi.org:443" in result.upstream_lookups
    assert all(not a["allowed"] and a["code_host"] for a in network["attempts"])


def test_a_trial_that_never_reached_its_model_is_an_error(calc_fast: Bench, model_test: int) -> None:
    loaded = calc_fast.run(variants=variants(
        lost=agent("egress", "connect:github.com:443"),  # fixes, but never reached the model
        down=agent("egress", "connect:model.test:444"),  # allowed, but nothing listens there
        failing=agent("egress", "connect:model.test:443", "nofix"),  # reached it and failed: an honest fail
        idle=agent("noop")), agent_allow_hosts=("model.test", "model.test:444"))
    outcomes = {t.variant: (t.outcome, t.reason) for t in loaded.trials}
    assert outcomes["lost"] == ("error", NEVER_REACHED)
    assert outcomes["down"] == ("error", NEVER_REACHED)
    assert outcomes["idle"] == ("error", NEVER_REACHED)
    assert outcomes["failing"][0] == "fail"
    down = trial_files(loaded.directory, "down")[1]["attempts"]
    assert [(a["port"], a["allowed"], a["status"], a["bytes_up"]) for a in down] == [(444, True, 502, 0)]
    assert down[0]["error"]
    lost = next(t for t in loaded.trials if t.variant == "lost")
    assert lost.grader_outcome is None and "upstream_lookup" in lost.flags  # not graded, still flagged


def test_with_no_host_allowed_the_network_is_off_and_nothing_is_required(calc_fast: Bench) -> None:
    loaded = calc_fast.run(variants=variants(script=agent("egress", "connect:api.anthropic.com:443")))
    (result,) = loaded.trials
    log, network = trial_files(loaded.directory, "script")
    assert result.outcome == "pass", result.reason
    assert "connect:api.anthropic.com:443 -> 403" in log
    assert (network["allowed_hosts"], network["allowed_bytes"], network["denied"]) == ([], 0, 1)


def test_an_allowed_local_endpoint_is_forwarded_onto_the_sandbox_loopback(calc_fast: Bench,
                                                                          model_server: int) -> None:
    url = f"http://127.0.0.1:{model_server}/v1/models"
    other = model_server + 1 if model_server < 65535 else model_server - 1
    loaded = calc_fast.run(variants=variants(local=agent("egress", f"direct:{url}",
                                                         f"direct:http://127.0.0.1:{other}/")),
                           agent_allow_hosts=(f"127.0.0.1:{model_server}",))
    (result,) = loaded.trials
    log, network = trial_files(loaded.directory, "local")
    assert result.outcome == "pass", (result.reason, log)
    assert f"direct:{url} -> 200 hello from 127.0.0.1:{model_server}/v1/models" in log
    assert f"direct:http://127.0.0.1:{other}/ -> failed" in log  # only the allowed port is there
    assert network["forwarded"] == [f"127.0.0.1:{model_server}"]
    (attempt,) = network["attempts"]
    assert (attempt["kind"], attempt["port"], attempt["allowed"]) == ("forward", model_server, True)
    assert attempt["bytes_up"] > 30 and attempt["bytes_down"] > 30


def test_the_host_network_has_no_proxy(calc_fast: Bench) -> None:
    loaded = calc_fast.run(variants=variants(open=f"env | grep -c 127.0.0.1:3128; {agent('fix')}"),
                           agent_network="host")
    folder = trial_path(loaded.directory, "open", "calc-add", 1)
    assert loaded.trials[0].outcome == "pass" and not (folder / "network.json").exists()
    assert (folder / "transcript.log").read_text().startswith("0\n")


def test_a_resume_restores_the_network_and_its_allowed_hosts(calc_fast: Bench, model_test: int, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    gate = tmp_path / "gate"
    gate.mkdir()
    command = f"test {{trial}} -eq 1 || test -e {gate}/open && {agent('egress', 'connect:model.test:443')}"
    argv = ["run", "--corpus", str(calc_fast.corpus.root), "--all", "--trials", "2", "--results-dir",
            str(calc_fast.results), *SANDBOX_ARGS, "--agent-bind", str(gate), "--agent-allow-host", "model.test",
            "--agent-command", command]
    assert run_cli(cli, "runner", argv) == ExitCode.FAILED  # trial 2 exits 1 without the gate open
    (run_dir,) = [p for p in calc_fast.results.iterdir() if not p.name.startswith(".")]
    first = load_run(run_dir)
    assert [t.outcome for t in first.trials] == ["pass", "error"]
    (gate / "open").touch()
    capsys.readouterr()
    assert run_cli(cli, "runner", ["run", "--resume", str(run_dir)]) == ExitCode.OK, capsys.readouterr().err
    resumed = load_run(run_dir)
    assert [t.outcome for t in resumed.trials] == ["pass", "pass"]
    assert resumed.manifest.resumed[-1]["overridden"] == []
    settings = resumed.manifest.resumed[-1]["settings"]
    assert (settings["agent_network"], settings["agent_allow_hosts"]) == ("model", ["model.test"])
    network = json.loads((trial_path(run_dir, "default", "calc-add", 2) / "network.json").read_text())
    assert network["allowed_hosts"] == ["model.test"] and network["attempts"][0]["allowed"]


def test_allowed_hosts_are_checked_and_a_local_port_is_forwarded_once() -> None:
    assert parse_allowed("API.Example.com.") == AllowedHost("api.example.com")
    assert parse_allowed("[::1]:8000") == AllowedHost("::1", 8000) and str(AllowedHost("::1", 8000)) == "[::1]:8000"
    assert parse_allowed("localhost:11434").local and not parse_allowed("llm.lan:8000").local
    for bad, why in (("localhost", "a loopback host needs its port"), ("x:http", "'http' is not a port"),
                     ("x:0", "'0' is not a port"), ("https://x", "expected HOST or HOST:PORT"), ("", "expected")):
        with pytest.raises(UsageError, match=f"^--agent-allow-host {bad!r}: {why}"):
            allowed_hosts([bad], "--agent-allow-host")
    assert AllowedHost("api.example.com").allows("API.example.com", 443)
    assert not AllowedHost("api.example.com").allows("api.example.com", 8443)
    assert not AllowedHost("example.com").allows("api.example.com", 443)
    assert is_code_host("codeload.github.com") and is_code_host("files.pythonhosted.org")
    assert not is_code_host("notgithub.com") and not is_code_host("api.anthropic.com")
    proxy = EgressProxy(allowed_hosts(["127.0.0.1:3128", "localhost:3128", "127.0.0.1:9000"], "x"), taken=(3129,))
    assert [str(a) for a in proxy.forwards] == ["127.0.0.1:3128", "127.0.0.1:9000"]
    assert proxy.port == 3130 and proxy.loopback().ports == (3130, 3128, 9000)
    assert EgressProxy(()).never_reached() is None and proxy.never_reached() == NEVER_REACHED


@pytest.mark.parametrize(("words", "message"), [
    (["--agent-allow-host", "https://api.x"], "runner: error: --agent-allow-host 'https://api.x': expected HOST"),
    (["--agent-allow-host", "localhost"], "runner: error: --agent-allow-host 'localhost': a loopback host needs"),
    (["--agent-network", "host", "--agent-allow-host", "x.lan"], "runner: error: --agent-allow-host x.lan: only "),
])
def test_bad_allowed_hosts_are_refused_before_anything_runs(calc_fast: Bench, capsys: pytest.CaptureFixture[str],
                                                            words: list[str], message: str) -> None:
    argv = ["run", "--corpus", str(calc_fast.corpus.root), "--all", "--results-dir", str(calc_fast.results),
            *words, "--agent-command", "true"]
    assert run_cli(cli, "runner", argv) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1
    assert not calc_fast.results.exists()


def test_the_http_fixture_and_the_proxy_share_the_sandbox_loopback(tmp_path: Path, model_test: int) -> None:
    corpus, _ = build_http_corpus(tmp_path)
    command = f"{agent('egress', 'connect:model.test:443', 'nofix')} && {agent('http_agent', '{prompt_file}')}"
    loaded = Bench(tmp_path, corpus).run(variants=variants(both=command), trials=1,
                                         agent_allow_hosts=("model.test",))
    (result,) = loaded.trials
    folder = trial_path(loaded.directory, "both", result.case_id, 1)
    log = (folder / "transcript.log").read_text()
    assert result.outcome == "pass", (result.reason, log)
    assert "connect:model.test:443 -> 200 hello from model.test/hello" in log and "user: {" in log
    fixture = json.loads((folder / "http.json").read_text())
    assert [r["path"] for r in fixture["requests"] if r["phase"] == "agent"] == ["/v1/users/42"]
    network = json.loads((folder / "network.json").read_text())
    assert [a["host"] for a in network["attempts"]] == ["model.test"]  # the fixture is reached directly
