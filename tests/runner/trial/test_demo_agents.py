"""The demo's scripted agents: the fixer passes every demo case, the no-op fails every one."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from corpus import Corpus
from runner.runs.manifest import Variant
from runner.trial.plan import RunOptions
from runner.trial.run import run

ROOT = Path(__file__).resolve().parents[3]


def test_demo_agents_on_the_demo_corpus(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = tmp_path / "app"
    subprocess.run([sys.executable, str(ROOT / "demo" / "build_app.py"), str(app)], check=True,
                   capture_output=True)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    python = shlex.quote(sys.executable)
    agents = ROOT / "demo" / "agents"
    loaded = run(Corpus.open(ROOT / "demo" / "corpus"), RunOptions(
        all_cases=True, jobs=2, repo=app, results_dir=tmp_path / "results", scratch_root=tmp_path / "scratch",
        agent_binds=(agents, Path(sys.prefix)),
        variants=(Variant("fixer", f"{python} {agents / 'fixer.py'} {{case_id}}"),
                  Variant("noop", f"{python} {agents / 'noop.py'} {{prompt_file}}"))))
    totals = {v.variant: (v.passes, v.fails, v.errors) for v in loaded.variants}
    cases = len(loaded.manifest.config.cases)
    assert cases >= 5 and totals == {"fixer": (cases, 0, 0), "noop": (0, cases, 0)}
