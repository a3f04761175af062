"""The runner proves every bundled demo case VALID against a freshly built demo repository."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from corpus import Corpus
from runner.settings import Settings
from runner.verify.validate import validate
from runner.verify.verify import VerifyOptions, verify

ROOT = Path(__file__).resolve().parents[3]


def test_every_demo_case_is_valid(tmp_path: Path) -> None:
    app = tmp_path / "app"
    subprocess.run([sys.executable, str(ROOT / "demo" / "build_app.py"), str(app)], check=True,
                   capture_output=True)
    corpus_dir = tmp_path / "corpus"
    shutil.copytree(ROOT / "demo" / "corpus", corpus_dir)
    corpus = Corpus.open(corpus_dir)
    summary = validate(corpus, app)
    assert summary.errors == ()
    assert (summary.cases, summary.active) == (5, 5)
    report = verify(corpus, VerifyOptions(repo=app, settings=Settings(jobs=2)))
    assert {v.case_id: v.verdict for v in report.verdicts} == dict.fromkeys(corpus.ids(), "VALID")
    assert report.dataset_fingerprint == summary.dataset_fingerprint
