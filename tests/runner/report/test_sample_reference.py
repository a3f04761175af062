"""runner sample shows each pass beside the reference patch the trial kept, falls back to the run's corpus for a
trial that kept none, and says which one it shows when that matters."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import CaseFiles
from corpus.cli_support import run_cli
from runner.cli import cli
from runner.runs.manifest import Origin, read_manifest, write_manifest
from tests.testing.runbuilder import write_corpus, write_run

GRADED = "diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
"""The reference patch the trials were graded against."""
EDITED = GRADED.replace("+x = 2", "+x = 2  # edited in the corpus after the run")
"""The same case's oracle patch once the corpus changed it after the run."""
PANEL = re.compile(r'<div class="panel" data-patch="reference"([^>]*)>(.*?)</div>', re.DOTALL)


def sampled_page(tmp_path: Path, corpus_patches: dict[str, str] | None, kept: dict[str, str]) -> list[str]:
    """Sample every pass of a run of the cases in kept (one passing trial each, keeping the patch named, or none
    for ""), over a corpus holding corpus_patches (None: the run records no corpus); the reference panels, in
    case order."""
    run_dir = write_run(tmp_path / "runs", "r1", dict.fromkeys(kept, "p"))
    for case, patch in kept.items():
        if patch:
            (run_dir / "default" / case / "1" / "oracle.patch").write_text(patch)
    if corpus_patches is not None:
        corpus = write_corpus(tmp_path / "evals", dict.fromkeys(corpus_patches, "blocking"))
        for case, patch in corpus_patches.items():
            corpus.write(corpus.load(case).case, CaseFiles.of(patch.encode(), {}))
        write_manifest(run_dir, replace(read_manifest(run_dir), origin=Origin(str(corpus.root), str(tmp_path))))
    assert run_cli(cli, "runner", ["sample", str(run_dir), "--passes", str(len(kept))]) == 0
    page = (run_dir / "review" / "sample.html").read_text()
    sections = re.findall(r'<h2>\d+\. default/(\w+)/1 ', page)
    panels = [attrs + body for attrs, body in PANEL.findall(page)]
    return [panel for _, panel in sorted(zip(sections, panels, strict=True))]


def test_the_trials_own_copy_is_shown_and_said_so_once_the_corpus_changed_it(tmp_path: Path) -> None:
    same, changed = sampled_page(tmp_path, {"cart": GRADED, "tax": EDITED}, {"cart": GRADED, "tax": GRADED})
    assert 'data-source="trial"' in same and "reference-source" not in same
    assert '<span class="add">+x = 2</span>' in same
    assert 'data-source="trial"' in changed and "edited in the corpus" not in changed
    assert '<span class="add">+x = 2</span>' in changed
    assert ("the trial&#39;s own copy, the patch it was graded against: the case&#39;s oracle patch in the run&#39;s "
            "corpus has changed since") in changed


def test_a_trial_that_kept_no_copy_shows_the_corpus_and_says_so(tmp_path: Path) -> None:
    (old,) = sampled_page(tmp_path, {"cart": EDITED}, {"cart": ""})
    assert 'data-source="corpus"' in old
    assert "+x = 2  # edited in the corpus after the run" in old
    assert ("from the run&#39;s corpus: the trial kept no copy of the patch it was graded against (a run made before "
            "trials kept one), and the case may have changed since") in old


@pytest.mark.parametrize(("corpus_patches", "why"), [
    (None, "the run does not record its corpus"),
    ({"tax": GRADED}, "not in the run&#39;s corpus"),
])
def test_no_copy_anywhere_is_said_in_place_of_the_patch(tmp_path: Path, corpus_patches: dict[str, str] | None,
                                                        why: str) -> None:
    (missing,) = sampled_page(tmp_path, corpus_patches, {"cart": ""})
    assert "data-source" not in missing and '<pre class="diff">' not in missing
    assert f'<p class="absent">the trial kept no reference patch, and {why}' in missing


def test_the_trials_copy_is_shown_when_the_corpus_cannot_be_read(tmp_path: Path) -> None:
    (kept,) = sampled_page(tmp_path, None, {"cart": GRADED})
    assert 'data-source="trial"' in kept and "reference-source" not in kept
    assert '<span class="add">+x = 2</span>' in kept
