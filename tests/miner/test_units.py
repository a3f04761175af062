"""Building blocks: classification, log parsing, diff splitting, test detection, prompts, YAML emission."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from corpus.languages import tests_changed as changed_tests
from corpus.languages.base import RepoHints
from corpus.languages.base import TestRef as Ref
from corpus.newcase import ASCII_NON_PRINTABLE, NON_PRINTABLE_CLASS, emit
from corpus.yamlio import parse_yaml
from miner.classify import (
    PathClassifier,
    is_formatting_message,
)
from miner.filediff import header_path, split_sections
from miner.gitlog import parse_log
from miner.grader_command import suggest
from miner.prompt import DRAFT_MARKER, candidate_id, draft_prompt


@pytest.mark.parametrize(("path", "category"), [
    ("tests/test_cart.py", "test"), ("test_cart.py", "test"), ("pkg/cart_test.py", "test"),
    ("src/conftest.py", "test"), ("contest.py", "source"), ("src/contest.py", "source"),
    ("web/src/__tests__/a.js", "test"), ("web/src/a.test.ts", "test"), ("web/src/a.spec.js", "test"),
    ("pkg/calc/sum_test.go", "test"), ("pkg/calc/testdata/in.txt", "test"),
    ("src/test/java/shop/CartTest.java", "test"), ("src/main/java/shop/Cart.java", "source"),
    ("tests/parse.rs", "test"), ("src/lib.rs", "source"), ("spec/cart_spec.rb", "test"),
    ("lib/cart.rb", "source"), ("docs/index.rst", "docs"), ("CHANGELOG.md", "docs"), ("HISTORY.rst", "docs"),
    ("setup.py", "build"), ("requirements-dev.txt", "build"), ("package.json", "build"),
    ("yarn.lock", "build"), (".github/workflows/ci.yml", "build"), ("vendor/x/y.go", "vendored"),
    ("web/node_modules/a/index.js", "vendored"), ("api/x_pb2.py", "generated"), ("web/app.min.js", "generated"),
    ("web/bun.lock", "build"), ("src/shop/data.yaml", "source"), ("latest/thing.py", "source"),
    ("testsuite/thing.py", "source"),
])
def test_builtin_classification(path: str, category: str) -> None:
    assert PathClassifier().category(path) == category


def test_test_globs_replace_the_builtins() -> None:
    classifier = PathClassifier(["checks/", "!checks/helpers.py"])
    assert classifier.category("checks/test_a.py") == "test"
    assert classifier.category("checks/helpers.py") == "source"
    assert classifier.category("tests/test_a.py") == "source"


@pytest.mark.parametrize(("message", "bulk"), [
    ("Reformat with black", True), ("Apply prettier", True), ("style: tidy imports", True),
    ("Fix flake8 errors", True), ("lint fixes", True), ("Fix black screen on resume", False),
    ("Fix whitespace handling in headers", False), ("Fix crash in linter config parsing", False),
])
def test_formatting_messages(message: str, bulk: bool) -> None:
    assert is_formatting_message(message) is bulk


def test_log_parser_handles_odd_paths_and_empty_commits() -> None:
    a, b, c, d = "a" * 40, "b" * 40, "c" * 40, "e" * 40
    one, two, zero = "1" * 40, "2" * 40, "0" * 40
    entries = (f"\n:100644 100644 {one} {two} M\0src/x y.py\0:000000 100644 {zero} {two} A\0".encode()
               + b"tests/t\xe9st.py\0")
    stream = (
        f"{a}\0{b} {c}\0001700000000\0001700000100\0002024-01-01T00:00:00+00:00\0Merge\n\nbody\n\0".encode() + entries
        + f"{b}\0{c}\0001700000000\0001700000100\0002024-01-01T00:00:00+00:00\0empty\n\0".encode()
        + f"{d}\0{c}\0001700000000\0001700000100\0002024-01-01T00:00:00+00:00\0same diff\n\0".encode() + entries
        + f"{c}\0\0001700000000\0001700000100\0002024-01-01T00:00:00+00:00\0root\n\0".encode()
        + f"\n:000000 100644 {zero} {one} A\0R100\0".encode()
    )
    # Feed it in awkward chunks: the parser must not care where reads end.
    chunks = [stream[i:i + 7] for i in range(0, len(stream), 7)]
    commits = list(parse_log(iter(chunks)))
    assert [c.sha for c in commits] == [a, b, d, c]
    assert commits[0].parents == (b, c) and commits[0].is_merge
    assert (commits[0].author_time, commits[0].commit_time) == (1700000000, 1700000100)
    assert [(ch.status, ch.path) for ch in commits[0].changes] == [("M", "src/x y.py"), ("A", "tests/t\udce9st.py")]
    assert commits[1].changes == ()
    assert commits[3].parents == () and [ch.path for ch in commits[3].changes] == ["R100"]
    # Equal raw diffs, equal keys; any other diff, another key.
    assert commits[0].diff_key == commits[2].diff_key
    assert len({commits[0].diff_key, commits[1].diff_key, commits[3].diff_key}) == 3


def test_diff_header_paths() -> None:
    assert header_path(b"diff --git a/src/x y.py b/src/x y.py\n") == b"src/x y.py"
    assert header_path(b'diff --git "a/t\\303\\251st \\"q\\".py" "b/t\\303\\251st \\"q\\".py"\n') == \
        't\u00e9st "q".py'.encode()


def test_split_sections_counts_lines_and_flags() -> None:
    patch = (
        b"diff --git a/a.py b/a.py\nindex 1111111111111111111111111111111111111111..2222222222222222222222222222222222222222"
        b" 100644\n--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n-x = 1\n+x = 2\n+++y = 3\n context\n"
        b"diff --git a/t.py b/t.py\ndeleted file mode 100644\nindex 3333333333333333333333333333333333333333.."
        b"0000000000000000000000000000000000000000\n--- a/t.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"
        b"diff --git a/img.png b/img.png\nindex 4444444444444444444444444444444444444444..5555555555555555555555555555555555555555"
        b" 100644\nGIT binary patch\nliteral 3\nKcmZ?wbN~PV\n\nliteral 3\nKcmZ?wbN~PV\n\n"
    )
    first, deleted, binary = split_sections(patch)
    assert (first.path, first.added_lines, first.deleted_lines, first.new_blob) == (b"a.py", 2, 1, "2" * 40)
    assert deleted.deleted and deleted.new_blob is None and deleted.deleted_lines == 1
    assert binary.binary and not binary.deleted
    assert b"".join(s.text for s in (first, deleted, binary)) == patch


def section(path: str, body: str) -> bytes:
    return f"--- a/{path}\n+++ b/{path}\n{body}".encode()


def test_python_tests_found_through_classes_decorators_and_docstrings() -> None:
    source = (
        "import pytest\n\n\nclass TestCart:\n    def helper(self):\n        return 1\n\n"
        "    @pytest.mark.parametrize('x', [1])\n    def test_total(self, x):\n        s = '''\nnot code\n'''\n"
        "        assert x\n\n\ndef test_free():\n    assert True\n"
    )
    diff = section("t.py", "@@ -12,1 +12,1 @@\n-        assert 0\n+        assert x\n"
                           "@@ -8,1 +8,1 @@\n-    @pytest.mark.parametrize('x', [2])\n+    @pytest.mark.parametrize('x', [1])\n")
    assert changed_tests("tests/t.py", source.encode(), diff) == [Ref("tests/t.py", "test_total", ("TestCart",), 9)]
    helper = section("t.py", "@@ -6,1 +6,1 @@\n-        return 2\n+        return 1\n")
    assert changed_tests("tests/t.py", source.encode(), helper) == []


def test_suggest_falls_back_to_a_failing_placeholder() -> None:
    suggestion = suggest(["tests/data/input.csv"], [])
    assert not suggestion.inferred
    assert suggestion.command.startswith("exit 1  # no grader command inferred")


def test_go_test_data_runs_its_package_whole() -> None:
    go = RepoHints(source_paths=("cmd/root.go",))
    only_data = suggest(["cmd/testdata/root.go.golden"], [], go)
    assert (only_data.command, only_data.inferred) == ("go test ./cmd", True)
    with_tests = suggest(["cmd/testdata/root.go.golden", "pkg/sum_test.go", "pkg/testdata/in.txt"],
                         [Ref("pkg/sum_test.go", "TestSum", (), 3)], go)
    assert with_tests.command == "go test ./pkg -run '^(TestSum)$' && go test ./cmd"
    top = suggest(["testdata/case.json"], [], go)
    assert top.command == "go test ."
    assert not suggest(["cmd/testdata/root.go.golden"], [], RepoHints(source_paths=("lib/x.py",))).inferred


def test_js_tests_of_an_unknown_runner_run_the_project_test_script() -> None:
    def hints(package: str) -> RepoHints:
        return RepoHints(file_content={"package.json": package.encode()}.get)

    tap = suggest(["test/parse.test.js"], [], hints('{"scripts": {"test": "tap test/*.js"}, "devDependencies": {"tap": "1"}}'))
    assert (tap.command, tap.inferred) == ("npm test", True)
    jest = suggest(["test/parse.test.js"], [], hints('{"devDependencies": {"jest": "29"}}'))
    assert jest.command == "npx jest test/parse.test.js"
    assert suggest(["test/parse.test.js"], []).command == "npx jest test/parse.test.js"  # no package.json seen
    for package in ('{"devDependencies": {"ava": "6"}}', '{"scripts": {"test": " "}}', "{not json"):
        assert not suggest(["test/parse.test.js"], [], hints(package)).inferred


def test_draft_prompt_scrubs_leaks() -> None:
    message = ("Fix rounding in totals (GH-41)\n\nThe test_total_rounding case in tests/test_cart.py broke in "
               "1a2b3c4d5e.\nSee https://example.com/org/repo/issues/41 for details.\n\nCloses #41\n"
               "Signed-off-by: Ada <ada@example.com>\n")
    prompt = draft_prompt(message, test_paths=["tests/test_cart.py"], test_names=["test_total_rounding"])
    assert prompt.startswith(DRAFT_MARKER + "\n\n")
    for leak in ("test_total_rounding", "tests/test_cart.py", "test_cart", "1a2b3c4d5e", "https://", "#41",
                 "GH-41", "Signed-off-by"):
        assert leak not in prompt
    assert "Fix rounding in totals" in prompt


def test_candidate_ids_are_slugs_and_unique() -> None:
    sha = "0123456789abcdef" * 2 + "01234567"
    first = candidate_id("Fix: the *weird* subject — with ünicode & a very long tail " * 3, sha)
    assert first.startswith("fix-the-weird-subject-with-nicode-a-very-long")
    assert len(first) <= 80 and first.endswith("-0123456")
    assert candidate_id("Fix", sha, {f"fix-{sha[:7]}"}) == f"fix-{sha[:8]}"
    assert candidate_id("!!!", sha) == f"fix-{sha[:7]}"


def test_the_ascii_check_agrees_with_the_full_class_of_unprintable_characters() -> None:
    full = re.compile(NON_PRINTABLE_CLASS)
    assert [c for c in map(chr, range(128)) if bool(full.match(c)) != bool(ASCII_NON_PRINTABLE.match(c))] == []


def test_emitted_yaml_loads_back_exactly() -> None:
    rng = random.Random(7)
    alphabet = [*list("abcXYZ019 :#-_/.,'\"\\\n\t[]{}|>&*!%@`?~=+();eExo"), "é", "—", "\x7f", "\x85", "\u2028", "\ufeff", "😀", "\x1b", "\r"]
    specials = ["true", "no", "null", "~", "1.0", "2024-01-01", "0x1f", "12:30", "-", "a: b", "a #b", "", " ",
                "a\n", "a\n\n", "  a\nb", "DRAFT — a\n\nb\n", "1e3", ".inf", ".hindcast/junit.xml", "7d8b87c"]
    samples = specials + ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12))) for _ in range(800)]
    for text in samples:
        loaded = parse_yaml(emit({"k": text, "m": {"l": [text, "x"], "n": text}, "f": 1.5, "b": False}), Path("x"))
        assert (loaded["k"], loaded["m"]["l"][0], loaded["m"]["n"]) == (text, text, text), repr(text)
        assert loaded["f"] == 1.5 and loaded["b"] is False
