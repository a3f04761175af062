"""The score weighs what a diff shows over a fix word every subject carries: in a history titled "Fix #N: ..."
throughout, a changed condition with a test now asserting another value ranks above an added function."""

from __future__ import annotations

from pathlib import Path

from miner.diffsignals import assertion_lines, behaviour_lines
from miner.gitlog import LogCommit
from miner.scan import ScanOptions, scan
from miner.score import MIN_SUBJECTS, SubjectWords, score_commit
from tests.testing.gitrepo import git_init

COUNT = 11
"""Fixes, and as many features: with the first commit, more subjects than MIN_SUBJECTS."""


def module(n: int) -> str:
    return f"def limit{n}(x):\n    if x > {n}:\n        return 1\n    return 0\n"


def checks_of(n: int, expected: int) -> str:
    return f"from shop.m{n} import limit{n}\n\n\ndef test_limit{n}():\n    assert limit{n}({n}) == {expected}\n"


def test_fixes_rank_above_features_when_every_subject_says_fix(tmp_path: Path) -> None:
    repo = git_init(tmp_path / "repo")
    files: dict[str, str | bytes | None] = {"shop/__init__.py": ""}
    for n in range(2 * COUNT):
        files[f"shop/m{n}.py"] = module(n)
        files[f"tests/test_m{n}.py"] = checks_of(n, 0)
    repo.commit(files, "Fix #1: start the shop")
    fixes, features = set(), set()
    for n in range(COUNT):  # interleaved, so the newest first would mix them
        features.add(repo.commit({
            f"shop/m{n}.py": module(n) + f"\n\ndef double{n}(x):\n    return 2 * x\n",
            f"tests/test_m{n}.py": checks_of(n, 0).replace(f"import limit{n}", f"import double{n}, limit{n}")
            + f"\n\ndef test_double{n}():\n    assert double{n}(2) == 4\n",
        }, f"Fix #{2 * n + 2}: add double{n}"))
        fixed = COUNT + n
        fixes.add(repo.commit({
            f"shop/m{fixed}.py": module(fixed).replace(f"if x > {fixed}:", f"if x >= {fixed}:"),
            f"tests/test_m{fixed}.py": checks_of(fixed, 1),
        }, f"Fix #{2 * n + 3}: limit{fixed} at its bound"))
    result = scan(ScanOptions(repo=repo.path, corpus=tmp_path / "evals", write=False))
    ranked = [c.case.fix_commit for c in result.candidates]
    assert set(ranked) == fixes | features
    assert set(ranked[:COUNT]) == fixes and set(ranked[COUNT:]) == features
    for candidate in result.candidates:
        assert candidate.case.mined is not None
        evidence = candidate.case.mined.evidence
        assert evidence[0] == "fix words in message: fix (common in this history's subjects: fix in 100%; +0)"
        assert "1 test function added or changed" in evidence
        if candidate.case.fix_commit in fixes:
            assert "behaviour change in source: 2 condition or return lines changed" in evidence
            assert "test asserts a changed value: 1 assertion line changed" in evidence
        else:
            assert not any(line.startswith(("behaviour change", "test asserts")) for line in evidence)


def commit_titled(subject: str) -> LogCommit:
    return LogCommit("a" * 40, ("b" * 40,), 0, 0, "", subject, (), b"")


def test_a_word_in_at_most_half_the_subjects_keeps_its_weight() -> None:
    words = SubjectWords()
    for n in range(MIN_SUBJECTS):
        words.observe(commit_titled(f"Fix crash number {n}" if n % 2 else f"Add feature {n}"))
    assert (words.share("fix"), words.weight("fix"), words.weight("crash")) == (0.5, 1.0, 1.0)
    words.observe(commit_titled("Fix crash again"))
    assert 0.9 < words.weight("fix") < 1.0
    scored, evidence = score_commit(commit_titled("Fix a crash"), oracle_lines=5, test_lines=4, test_functions=1,
                                    words=words)
    assert scored == round(2.0 * words.weight("fix") + 1.0 + 0.75, 2)
    assert evidence[0] == ("fix words in message: crash, fix (common in this history's subjects: crash in 52%, "
                           "fix in 52%; +1.9)")


def test_a_short_history_says_nothing_of_how_common_a_word_is() -> None:
    words = SubjectWords()
    for n in range(MIN_SUBJECTS - 1):
        words.observe(commit_titled(f"Fix #{n}: something"))
    assert words.weight("fix") == 1.0
    plain = score_commit(commit_titled("Fix #3: x"), oracle_lines=5, test_lines=4, test_functions=1)
    assert score_commit(commit_titled("Fix #3: x"), oracle_lines=5, test_lines=4, test_functions=1,
                        words=words) == plain


def section(body: str) -> bytes:
    return f"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,4 +1,4 @@ def f():\n{body}".encode()


def test_conditions_and_returns_changed_are_behaviour_a_new_function_is_not() -> None:
    assert behaviour_lines([section("-    if x > 1:\n+    if x >= 1:\n     return 1\n")]) == 2
    assert behaviour_lines([section("+    if not x:\n+        return []\n     return x.split()\n")]) == 2  # a guard
    assert behaviour_lines([section("+def g(x):\n+    if x:\n+        return 2\n+\n")]) == 0  # a new function
    assert behaviour_lines([section("-    total = 1\n+    total = 2\n")]) == 0
    assert behaviour_lines([section("-    return_code = 1\n+    return_code = 2\n")]) == 0
    assert behaviour_lines([section("-    } else if (a) {\n+    } else if (b) {\n")]) == 2
    # a new method beside a rewritten return: the rewrite counts, the new method's lines do not
    assert behaviour_lines([section("+    def discounted(self):\n+        return self.subtotal() - 1\n+\n"
                                    "     def total(self):\n-        return self.subtotal()\n"
                                    "+        return self.discounted()\n")]) == 2
    assert behaviour_lines([section("-def old(x):\n-    return x\n")]) == 1  # a function removed: what it did


def test_an_assertion_changed_is_a_changed_value_an_assertion_added_is_not() -> None:
    assert assertion_lines([section("-    assert f(1) == 0\n+    assert f(1) == 1\n")]) == 1
    assert assertion_lines([section("-    self.assertEqual(f(1), 0)\n+    self.assertEqual(f(1), 1)\n")]) == 1
    assert assertion_lines([section('-  expect(format(1)).toBe("1")\n+  expect(format(1)).toBe("0.01")\n')]) == 1
    assert assertion_lines([section("+def test_new():\n+    assert g(2) == 4\n")]) == 0
    assert assertion_lines([section("-    x = make(1)\n+    x = make(2)\n     assert x\n")]) == 0
    assert assertion_lines([section("-    assert f(1) == 0\n+    assert f(1) == 1\n+\n+def test_new():\n"
                                    "+    assert g(2) == 4\n+    assert g(3) == 6\n")]) == 1
    assert assertion_lines([section("-    assert f(1) == 0\n-    assert f(2) == 0\n")]) == 0  # only removed
