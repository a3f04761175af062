"""`authoring approve` keeps a candidate's behaviour fields (max_turns, bait, trajectory) in the case it writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from authoring.cli import cli
from corpus.cli_support import run_cli
from corpus.model import Bait
from tests.corpus.test_behaviour_fields import FIELDS, TRAJECTORY
from tests.testing.shopfactory import Shop


def test_approve_keeps_the_behaviour_fields(shop: Shop, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    case_yaml = shop.candidate("cart-total-cents") / "case.yaml"
    case_yaml.write_text(case_yaml.read_text() + FIELDS)
    prompt = tmp_path / "prompt.md"
    prompt.write_text("Cart totals lose their cents: 1.25 + 2.50 comes to 3 instead of 3.75.\n")
    assert run_cli(cli, "authoring", ["approve", "cart-total-cents", "--corpus", str(shop.corpus.root),
                                      "--prompt-file", str(prompt), "--id", "cart-cents"]) == 0
    assert capsys.readouterr().out == "approved cart-total-cents as cases/cart-cents (advisory: the gate warns on it, never blocks)\n"
    case = shop.corpus.load("cart-cents", "cases").case
    assert (case.max_turns, case.bait, case.trajectory) == (12, Bait("shell_edits", 0.5), TRAJECTORY)
    assert "forbidden_tools:" in (shop.corpus.root / "cases" / "cart-cents" / "case.yaml").read_text()
