"""An agent that turns the folders the harness writes into links cannot make the harness touch anything outside."""

from __future__ import annotations

import shlex
from pathlib import Path

from corpus import CaseFiles, Grader
from tests.testing.casefactory import PYTEST, TEST_V2, build_corpus
from tests.testing.trialkit import Bench, agent, variants


def test_links_in_place_of_test_folders_are_replaced_never_followed(tmp_path: Path) -> None:
    grader = Grader(command=f"{PYTEST} --junitxml=.hindcast/junit.xml test_calc.py tests", timeout=60,
                    junit=".hindcast/junit.xml", deleted=("tests/precious.txt",))
    corpus, _, case = build_corpus(tmp_path, grader=grader)
    stored = corpus.load(case.id)
    corpus.write(stored.case, CaseFiles.of(stored.files.oracle_patch, {
        "test_calc.py": TEST_V2.encode(), "tests/test_more.py": b"def test_more():\n    assert True\n"}))
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious.txt").write_text("keep me")
    (victim / "junit.xml").write_text("<not yours/>")
    bench = Bench(tmp_path, corpus)
    loaded = bench.run(variants=variants(links=agent("links_out", shlex.quote(str(victim)))))
    (trial,) = loaded.trials
    assert sorted(p.name for p in victim.iterdir()) == ["junit.xml", "precious.txt"]
    assert (victim / "precious.txt").read_text() == "keep me"
    assert (victim / "junit.xml").read_text() == "<not yours/>"
    assert trial.outcome == "fail"  # the bug is still there; the grader ran on real folders
