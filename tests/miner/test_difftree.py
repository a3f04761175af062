"""One diff-tree process for many commits: pairs added while answers are read, empty diffs, flushes."""

from __future__ import annotations

from pathlib import Path

from corpus.patchid import patch_id
from miner.gitbatch import DiffTree
from tests.testing.minerrepos import base_repo, numbered_fix


def test_pairs_added_while_reading_are_answered_in_order_with_their_patch_ids(tmp_path: Path) -> None:
    repo = base_repo(tmp_path / "repo")
    base = repo.head()
    first = numbered_fix(repo, 1)
    second = numbered_fix(repo, 2)
    empty = repo.commit({}, "Nothing")
    ids: dict[str, str] = {}
    tree = DiffTree(repo.path, ids)
    try:
        tree.add(first, base)
        tree.add(empty, second)
        tree.flush()  # both are answered without more pairs after them
        answers = tree.results()
        got = [next(answers), next(answers)]
        assert [sha for sha, _ in got] == [first, empty]
        assert [s.path for s in got[0][1]] == [b"app/m1.py", b"tests/test_m1.py"]
        assert got[1][1] == []  # an empty diff is answered, with no sections
        tree.add(second, first)  # asked for after the first answers were read
        tree.close_input()
        rest = list(answers)
    finally:
        tree.close()
    assert [sha for sha, _ in rest] == [second]  # the flush's repeat of the last pair is not an answer
    assert ids == {first: patch_id(repo.path, base, first), second: patch_id(repo.path, first, second)}
