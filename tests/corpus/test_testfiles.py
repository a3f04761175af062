"""The test-file rules and the glob translation that the miner and the runner share."""

from __future__ import annotations

import random
import subprocess
import sys

import pathspec
import pytest

from corpus.testfiles import builtin_test_globs, glob_matcher, matcher_for_tests
from miner.classify import DOCS_GLOBS, GENERATED_GLOBS, VENDORED_GLOBS, all_build_globs


def test_the_built_in_rules_do_without_pathspec() -> None:
    """Translating the built-in lists through pathspec would cost a scan a tenth of its start-up."""
    code = "import sys; from miner.classify import PathClassifier; PathClassifier(); print('pathspec' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


@pytest.mark.parametrize("lines", [
    builtin_test_globs(), VENDORED_GLOBS, GENERATED_GLOBS, DOCS_GLOBS, all_build_globs(),
    ("qa/", "*.check.py", "!qa/fixtures/", "!*_helper.check.py"),   # negations last: joined
    ("qa/", "!qa/slow/", "qa/slow/critical/"),                      # an inclusion after a negation: pathspec
    ("**/qa/**", "[ab].check.py", "/src/*_x.py", "!**/fixtures/**"),  # lines pathspec translates, joined
])
def test_joined_patterns_match_like_pathspec(lines: tuple[str, ...]) -> None:
    rng = random.Random(7)
    parts = ["docs", "doc", "tests", "test", "src", "vendor", "node_modules", "spec", "__tests__", "testdata",
             "__snapshots__", "dist", "gradle", ".github", "requirements", "qa", "slow", "critical", "fixtures", "a"]
    names = ["x.py", "test_x.py", "x_test.py", "conftest.py", "README.md", "CHANGELOG.rst", "requirements.txt",
             "requirements-dev.txt", "CMakeLists.txt", "notes.txt", "a.test.ts", "a.spec.js", "x_test.go",
             "FooTest.java", "tests.rs", "x_spec.rb", "package.json", "setup.cfg", "pyproject.toml", "x.min.js",
             "x_pb2.py", "Makefile", "yarn.lock", ".eslintrc.json", "HISTORY", "contest.py", "a.check.py",
             "b_helper.check.py", "a.generated.ts", "x_generated.go", "y.snap.orig", "Cargo.toml",
             "tsconfig.base.json", "CHANGES", "tests", "docker-compose.ci.yml", "rust-toolchain.toml", ".babelrc",
             "README.mdx", "setup.py.orig", "Makefile.am", "conftest.pyc"]
    paths = {"/".join(rng.choice(parts) for _ in range(rng.randrange(4))).strip("/") + "/" + rng.choice(names)
             for _ in range(3000)}
    expected = pathspec.GitIgnoreSpec.from_lines(list(lines))
    matcher = glob_matcher(lines)
    assert [p for p in sorted(paths) if matcher(p.lstrip("/")) != expected.match_file(p.lstrip("/"))] == []


AGREEMENT_PATHS = (
    "pkg/foo_test.go", "src/main/java/shop/FooTest.java", "spec/models/user_spec.rb", "lib/user_spec.rb",
    "tests/test_cart.py", "cart_test.py", "conftest.py", "testing/helpers.py", "src/a.test.ts", "web/b.spec.jsx",
    "crate/tests.rs", "test/unit/x.rb", "__tests__/a.js", "shop/cart.py", "main.go", "src/Foo.java", "README.md",
    "lib/user.rb", "contest.py", "docs/testing.md",
)


@pytest.mark.parametrize("test_globs", [(), ("qa/", "*.check.py")])
def test_the_miner_and_the_runner_agree_on_what_a_test_file_is(test_globs: tuple[str, ...]) -> None:
    from miner.classify import PathClassifier
    from runner.grading.failclosed import edited_test_files

    mined = {path for path in AGREEMENT_PATHS if PathClassifier(test_globs).category(path) == "test"}
    flagged = set(edited_test_files(AGREEMENT_PATHS, (), test_globs))
    assert mined == flagged
    if not test_globs:
        assert {"pkg/foo_test.go", "src/main/java/shop/FooTest.java", "spec/models/user_spec.rb"} <= flagged
        assert flagged.isdisjoint({"shop/cart.py", "main.go", "contest.py", "lib/user.rb"})


def test_a_corpus_s_globs_replace_the_built_in_rules() -> None:
    is_test = matcher_for_tests(("qa/",))
    assert is_test("qa/x.py") and not is_test("tests/test_x.py")
    assert matcher_for_tests(())("tests/test_x.py") and builtin_test_globs()
