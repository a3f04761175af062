"""The patch id is one rule: the miner's batch, the rejection an author records and `corpus.patchid` agree."""

from __future__ import annotations

from pathlib import Path

from authoring.cli import cli as authoring_cli
from corpus.cli_support import run_cli
from corpus.patchid import patch_id
from corpus.store import Corpus
from miner.gitbatch import patch_ids_of
from miner.scan import ScanOptions, scan
from tests.testing.gitrepo import GitRepo, git_init

OLD = "def total(prices):\n    s = 0\n    for p in prices:\n        s += p\n    return s\n\n\ndef count(xs):\n" \
      "    return len(xs)\n\n\ndef first(xs):\n    return xs[0]\n"
TEST = "from shop.sums import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n"


def renaming_fix(tmp_path: Path) -> tuple[GitRepo, str, str]:
    """A repository whose fix moves shop/calc.py to shop/sums.py (a rename git detects) and adds a test."""
    repo = git_init(tmp_path / "repo")
    base = repo.commit({"shop/__init__.py": "", "shop/calc.py": OLD,
                        "tests/test_calc.py": TEST.replace("sums", "calc")}, "Initial")
    fix = repo.commit({"shop/calc.py": None, "shop/sums.py": OLD.replace("s += p", "s += round(p, 2)"),
                       "tests/test_calc.py": TEST + "\n\ndef test_round():\n    assert total([0.1, 0.2]) == 0.3\n"},
                      "Fix rounding of totals")
    assert "R0" in repo.git("diff", "--name-status", "-M", base, fix)  # git's own diff sees a rename
    return repo, base, fix


def test_the_miner_and_the_shared_rule_agree_on_a_rename(tmp_path: Path) -> None:
    repo, base, fix = renaming_fix(tmp_path)
    shared = patch_id(repo.path, base, fix)
    assert shared is not None and patch_ids_of(repo.path, [(fix, base)]) == {fix: shared}


def test_a_rejected_fix_that_renames_a_file_is_not_proposed_again(tmp_path: Path) -> None:
    repo, base, fix = renaming_fix(tmp_path)
    evals = tmp_path / "evals"
    (candidate,) = scan(ScanOptions(repo=repo.path, corpus=evals)).candidates
    corpus = Corpus.open(evals)
    assert run_cli(authoring_cli, "authoring", ["reject", candidate.case.id, "--reason", "not a bug",
                                                "--corpus", str(evals)]) == 0
    (rejection,) = corpus.rejections()
    assert rejection.patch_id == patch_id(repo.path, base, fix)
    # The same change again under another sha: a copy on a branch cut from the base.
    repo.git("checkout", "-q", "-b", "copy", base)
    repo.clock += 86400
    repo.git("cherry-pick", fix)
    again = scan(ScanOptions(repo=repo.path, corpus=evals, full=True))
    assert again.candidates == []
    assert again.stats.skipped["same-patch-as-rejected"] == 1
