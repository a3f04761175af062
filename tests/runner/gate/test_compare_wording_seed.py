"""Rule wording-seed: two agent runs whose wordings were drawn from different seeds warn, in the terminal, --json
and the HTML page; one seed, one wording per case, or a run that drew no wording is silent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from runner.cli import cli
from tests.runner.report.htmlkit import parse
from tests.testing.runbuilder import write_run

KINDS = {"cart": "blocking", "login": "blocking", "docs": "advisory"}
CELLS = {"cart": "ppppp", "login": "ppppp", "docs": "ppppp"}


def runs(root: Path, seeds: tuple[int, int], worded: tuple[str, ...] = ("cart", "docs"),
         modes: tuple[str, str] = ("agent", "agent")) -> tuple[Path, Path]:
    made = []
    for run_id, seed, mode in zip(("base", "cand"), seeds, modes, strict=True):
        run_dir = write_run(root, run_id, CELLS, kinds=KINDS, mode=mode)
        manifest = json.loads((run_dir / "run.json").read_text())
        manifest["config"]["seed"] = seed
        for case in worded:
            manifest["cases_meta"][case]["wordings"] = ["original", "terse"]
        (run_dir / "run.json").write_text(json.dumps(manifest))
        made.append(run_dir)
    return made[0], made[1]


def compare(base: Path, cand: Path, *extra: str) -> int:
    return run_cli(cli, "runner", ["compare", "--baseline", str(base), "--candidate", str(cand), *extra])


WARNING = ("WARN: the runs drew their prompts' wordings from different seeds (baseline 0, candidate 7): 2 compared "
           "cases with several wordings (cart, docs) may have given a trial another wording in each run, so a change "
           "there may be the wording's, not the agent's; run both with one --seed to pair them trial by trial "
           "(rule wording-seed)")


def test_different_seeds_warn_in_the_terminal_json_and_page(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    base, cand = runs(tmp_path / "runs", (0, 7))
    assert compare(base, cand) == 2
    out = capsys.readouterr().out.splitlines()
    assert WARNING in out and out[-1] == "verdict: WARN (exit 2)"
    assert compare(base, cand, "--json") == 2
    document = json.loads(capsys.readouterr().out)
    found = [f for f in document["findings"] if f["rule"] == "wording-seed"]
    assert [(f["level"], f["message"]) for f in found] == [("WARN", WARNING.removeprefix("WARN: "))]
    page = tmp_path / "compare.html"
    assert compare(base, cand, "--html", str(page)) == 2
    findings = parse(page.read_text()).ids["findings"]
    assert "[wording-seed]" in findings.text and "(baseline 0, candidate 7)" in findings.text


@pytest.mark.parametrize(("seeds", "worded", "modes"), [
    ((3, 3), ("cart", "docs"), ("agent", "agent")),  # one seed: the trials got the same wordings
    ((0, 7), (), ("agent", "agent")),  # one wording per case: the seed draws nothing
    ((0, 7), ("cart",), ("oracle", "agent")),  # the oracle run gave no agent a prompt
])
def test_the_rule_is_silent_when_the_seed_changes_no_prompt(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                            seeds: tuple[int, int], worded: tuple[str, ...],
                                                            modes: tuple[str, str]) -> None:
    base, cand = runs(tmp_path / "runs", seeds, worded, modes)
    compare(base, cand, "--json")
    assert not [f for f in json.loads(capsys.readouterr().out)["findings"] if f["rule"] == "wording-seed"]
