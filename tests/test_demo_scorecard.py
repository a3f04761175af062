"""The demo's scorecard case: its invariants hold on the known fix (checked with plain git and subprocess, and again
through a real `runner run` of the demo's two agents), catch a fix that breaks what they guard, and its trials'
result.json carry the scorecard a report shows."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from corpus import Corpus
from corpus.cli_support import run_cli
from runner.cli import cli as runner_cli
from tests.test_demo import CORPUS, REPO_ROOT, build_tip, export, grade, load_case, run_grader

CASE = "coupon-double-discount"


@pytest.fixture(scope="module")
def demo_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo corpus, its repository (at ../app, as corpus.yaml says) and its agents, copied into a temp dir."""
    root = tmp_path_factory.mktemp("demo-scorecard")
    build_tip(root / "app")
    shutil.copytree(CORPUS, root / "corpus", ignore=shutil.ignore_patterns("verification.json", "candidates",
                                                                            "results", "scan-state.yaml"))
    shutil.copytree(REPO_ROOT / "demo" / "agents", root / "agents")
    return root


def test_one_demo_case_has_allowed_paths_and_invariants() -> None:
    corpus = Corpus.open(CORPUS)
    cases = {case_id: corpus.load(case_id, "cases").case for case_id in corpus.ids("cases")}
    with_scorecard = [case_id for case_id, case in cases.items() if case.invariants or case.allowed_paths]
    assert with_scorecard == [CASE]
    case = cases[CASE]
    assert case.allowed_paths == ("shop/",)
    assert [invariant.name for invariant in case.invariants] == ["receipts", "discount-bounds"]
    assert case.risk_flags == ("payments",)
    oracle = (CORPUS / "cases" / CASE / "oracle.patch").read_text()
    changed = [line.split(" b/")[-1] for line in oracle.splitlines() if line.startswith("diff --git ")]
    assert changed == ["shop/cart.py", "shop/pricing.py"]  # all inside allowed_paths


def invariant_results(workspace: Path) -> dict[str, int]:
    case = Corpus.open(CORPUS).load(CASE, "cases").case
    return {invariant.name: run_grader(invariant.command, workspace, invariant.timeout).returncode
            for invariant in case.invariants}


def test_the_invariants_hold_at_the_base_and_on_the_oracle(demo_copy: Path, tmp_path: Path) -> None:
    case = load_case(CASE)
    base = export(demo_copy / "app", case.base, tmp_path / "base")
    assert grade(case, base, oracle=False).returncode != 0
    assert invariant_results(base) == {"receipts": 0, "discount-bounds": 0}
    fixed = export(demo_copy / "app", case.base, tmp_path / "oracle")
    assert grade(case, fixed, oracle=True).returncode == 0
    assert invariant_results(fixed) == {"receipts": 0, "discount-bounds": 0}


def test_a_fix_that_breaks_discounts_fails_an_invariant(demo_copy: Path, tmp_path: Path) -> None:
    case = load_case(CASE)
    workspace = export(demo_copy / "app", case.base, tmp_path / "broken")
    assert grade(case, workspace, oracle=True).returncode == 0
    pricing = workspace / "shop" / "pricing.py"
    text = pricing.read_text()
    assert "round_cents(Decimal(cents) * percent / 100)" in text
    pricing.write_text(text.replace("round_cents(Decimal(cents) * percent / 100)",
                                    "round_cents(Decimal(cents) * percent / 50)", 1))  # the discount taken twice
    assert invariant_results(workspace) == {"receipts": 0, "discount-bounds": 1}


def trial(run: Path, variant: str, number: int) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((run / variant / CASE / str(number) / "result.json").read_text())
    return data


def test_the_demo_trials_carry_the_scorecard(demo_copy: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    agents = demo_copy / "agents"
    code = run_cli(runner_cli, "runner", [
        "run", "--corpus", str(demo_copy / "corpus"), "--case", CASE, "--case", "tax-rounding-truncates",
        "--results-dir", str(tmp_path / "results"), "--name", "demo", "--jobs", "2", "--agent-bind", str(agents),
        "--agent", f"fixer=python {agents}/fixer.py {{case_id}}", "--agent", f"noop=python {agents}/noop.py {{prompt_file}}"])
    capsys.readouterr()
    assert code == 0
    run = next(path for path in (tmp_path / "results").iterdir() if (path / "run.json").is_file())
    fixer, noop = trial(run, "fixer", 1), trial(run, "noop", 1)
    assert (fixer["outcome"], noop["outcome"]) == ("pass", "fail")
    card = fixer["scorecard"]
    assert (card["task_success"], card["invariant_safety"], card["unsafe"], card["error"]) == (1, 1.0, False, None)
    assert [(item["name"], item["status"]) for item in card["invariants"]] == [("receipts", "pass"),
                                                                              ("discount-bounds", "pass")]
    assert card["file_accuracy"]["changed"] == ["shop/cart.py", "shop/pricing.py"]
    assert (card["file_accuracy"]["outside_allowed"], card["file_accuracy"]["precision"],
            card["file_accuracy"]["recall"]) == ([], 1.0, 1.0)
    assert card["risk_flags"] == ["payments"] and card["hint"] is None
    assert "== invariant receipts: pass (exit 0) ==" in (run / "fixer" / CASE / "1" / "invariants.log").read_text()
    # Changing nothing fails the grader and keeps every invariant: unsafe only pairs a pass with a broken check.
    card = noop["scorecard"]
    assert (card["task_success"], card["invariant_safety"], card["unsafe"]) == (0, 1.0, False)
    assert card["file_accuracy"]["changed"] == [] and card["file_accuracy"]["outside_allowed"] == []
    # A case without invariants has an empty list and no safety figure; its risk labels come from run.json.
    other = json.loads((run / "fixer" / "tax-rounding-truncates" / "1" / "result.json").read_text())["scorecard"]
    assert (other["invariants"], other["invariant_safety"], other["risk_flags"]) == ([], None, [])
    meta = json.loads((run / "run.json").read_text())["cases_meta"]
    assert meta[CASE]["risk_flags"] == ["payments"]
