"""Each trial of a case with several wordings is given one drawn from the run's seed and its number: its
prompt.md is that wording, result.json names it, run.json keeps the seed, a resume draws the same and a regrade
keeps its source's."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from corpus.errors import UsageError
from corpus.model import Wording
from corpus.wordings import draw
from runner.runs.manifest import read_manifest
from runner.runs.result import trial_path
from tests.testing.trialkit import agent, graded_quickly, variants

TERSE = "In short: add() gives the wrong sum.\n"
IDS = ("prompt", "terse")


def test_each_trial_gets_the_wording_its_seed_draws_and_a_resume_draws_the_same(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bench = graded_quickly(tmp_path, prompts=(Wording("terse", TERSE),))
    patch = bench.corpus.root / "cases" / "calc-add" / "oracle.patch"
    # Errors until AGENT_READY is set; then fixes only when its prompt is the terse wording.
    command = f"test \"$AGENT_READY\" = yes && {agent('wording', '{prompt_file}', shlex.quote(str(patch)), 'In short:')}"
    seed = next(s for s in range(1, 50) if [draw(IDS, "calc-add", s, t) for t in range(1, 5)]
                != [draw(IDS, "calc-add", 0, t) for t in range(1, 5)])  # a seed that draws otherwise than 0
    first = bench.run(trials=4, variants=variants(tuned=command), sandbox="none", seed=seed)
    assert [t.outcome for t in first.trials] == ["error"] * 4
    assert read_manifest(first.directory).config.seed == seed
    assert first.manifest.cases_meta["calc-add"].wordings == IDS
    monkeypatch.setenv("AGENT_READY", "yes")
    with pytest.raises(UsageError, match=rf"different seed \({seed} vs 0\)"):
        bench.run(resume=first.directory, sandbox="none", seed=0)
    second = bench.run(resume=first.directory, sandbox="none")
    drawn = [draw(IDS, "calc-add", seed, t) for t in range(1, 5)]
    assert sorted(drawn) == ["prompt", "prompt", "terse", "terse"]
    assert [t.wording for t in second.trials] == drawn
    assert [t.outcome for t in second.trials] == ["pass" if w == "terse" else "fail" for w in drawn]
    for t in second.trials:
        given = (trial_path(second.directory, "tuned", "calc-add", t.trial) / "prompt.md").read_text()
        assert given == (TERSE if t.wording == "terse" else bench.corpus.load("calc-add").case.prompt)
    regraded = bench.run(mode="regrade", patch_from=second.directory, sandbox="none")
    assert [(t.wording, t.outcome) for t in regraded.trials] == [(t.wording, t.outcome) for t in second.trials]
    assert regraded.manifest.config.seed == seed


def test_a_case_with_one_wording_draws_nothing_and_seed_is_only_for_agents(tmp_path: Path) -> None:
    bench = graded_quickly(tmp_path)
    loaded = bench.run(trials=2, variants=variants(idle=agent("noop")), sandbox="none")
    assert [t.wording for t in loaded.trials] == [None, None]
    assert loaded.manifest.config.seed == 0 and loaded.manifest.cases_meta["calc-add"].wordings == ()
    for mode in ("baseline", "oracle"):
        with pytest.raises(UsageError, match=f"--seed draws the wording an agent is given; --mode {mode}"):
            bench.run(mode=mode, seed=3, sandbox="none")
