"""What report and compare show of the agent's network: a denied attempt to a code host is an upstream lookup in
the report (text, JSON, HTML) and a finding of compare (text and HTML); a run with the host's network is marked
open network."""

from __future__ import annotations

import html
import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode
from runner.cli import cli
from runner.report.report import OPEN_NETWORK, render_html, render_table, report_document
from tests.testing.trialkit import Bench, agent, variants

LOOKUP = "upstream lookup looker::calc-add #{n}: denied github.com:443, registry.npmjs.org:443"


def call(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = run_cli(cli, "runner", list(argv))
    return code, capsys.readouterr().out


def test_upstream_lookups_show_in_report_and_compare(calc_fast: Bench, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    honest = calc_fast.run(variants=variants(looker=agent("fix")), trials=3)
    looker = agent("egress", "connect:github.com:443", "connect:registry.npmjs.org:443")
    looked = calc_fast.run(variants=variants(looker=f"test {{trial}} -eq 3 || {looker}"), trials=3)
    assert [("upstream_lookup" in t.flags) for t in looked.trials] == [True, True, False]
    assert looked.trials[0].upstream_lookups == ("github.com:443", "registry.npmjs.org:443")
    text = render_table(looked)
    assert LOOKUP.format(n=1) in text and LOOKUP.format(n=2) in text and "#3" not in text.split("upstream")[-1]
    assert "agent network model" in text and OPEN_NETWORK not in text
    assert report_document(looked)["upstream_lookups"] == [LOOKUP.format(n=1), LOOKUP.format(n=2)]
    page = render_html(looked, tmp_path / "report.html")
    assert 'id="upstream-lookups"' in page and LOOKUP.format(n=1) in page
    assert '<span class="flag">upstream_lookup</span>' in page
    assert 'id="upstream-lookups"' not in render_html(honest, tmp_path / "honest.html")

    page_file = tmp_path / "compare.html"
    code, out = call(capsys, "compare", "--baseline", str(honest.directory), "--candidate", str(looked.directory),
                     "--html", str(page_file))
    finding = ("UPSTREAM LOOKUP calc-add: 2 of 3 candidate trial(s) tried to reach a code host and were denied, "
               "first trial 1: github.com:443, registry.npmjs.org:443 (rule upstream-lookup)")
    assert code == ExitCode.WARN and finding in out
    assert "[upstream-lookup]</span> " + html.escape(finding) in page_file.read_text()
    code, out = call(capsys, "compare", "--baseline", str(looked.directory), "--candidate", str(honest.directory))
    assert "UPSTREAM LOOKUP" not in out  # the candidate's trials are judged, not the baseline's


def test_a_run_with_the_host_network_is_marked_open(calc_fast: Bench, tmp_path: Path) -> None:
    opened = calc_fast.run(variants=variants(fixer=agent("fix")), agent_network="host")
    assert render_table(opened).splitlines()[0] == OPEN_NETWORK
    assert report_document(opened)["notes"] == [OPEN_NETWORK]
    assert html.escape(OPEN_NETWORK) in render_html(opened, tmp_path / "open.html")
    unconfined = calc_fast.run(variants=variants(fixer=agent("fix")), sandbox="none")
    assert render_table(unconfined).splitlines()[0] == OPEN_NETWORK
    for confined in ("model", "none"):
        run = calc_fast.run(variants=variants(fixer=agent("fix")), agent_network=confined)
        assert OPEN_NETWORK not in render_table(run)
        assert json.loads((run.directory / "run.json").read_text())["settings"]["agent_network"] == confined
    baseline = calc_fast.run(mode="baseline", agent_network="host")
    assert OPEN_NETWORK not in render_table(baseline)  # no agent ran
