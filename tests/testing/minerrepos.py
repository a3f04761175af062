"""Generated repositories with known ground truth for the miner: fixes in several languages and look-alikes."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from corpus.store import Corpus
from miner import extract
from miner.classify import PathClassifier
from tests.testing.gitrepo import GitRepo, git_env, git_init

CART = "def total(prices):\n    return sum(prices)\n"
CART_FIXED = "def total(prices):\n    return round(sum(prices), 2)\n"
CART_TEST = """from shop.cart import total


class TestCart:
    def test_empty(self):
        assert total([]) == 0
"""
CART_TEST_FIXED = CART_TEST + """
    def test_rounding(self):
        assert total([0.1, 0.2]) == 0.3
"""
PARSE = "def parse(text):\n    return text.split(',')\n"
PARSE_FIXED = "def parse(text):\n    if not text:\n        return []\n    return text.split(',')\n"
PARSE_TEST = "from shop.parse import parse\n\n\ndef test_parse_two():\n    assert parse('a,b') == ['a', 'b']\n"
PARSE_TEST_FIXED = PARSE_TEST + "\n\ndef test_parse_empty():\n    assert parse('') == []\n"
GO_SUM = "package calc\n\nfunc Sum(a, b int32) int32 {\n\treturn a + b\n}\n"
GO_SUM_FIXED = "package calc\n\nfunc Sum(a, b int32) int64 {\n\treturn int64(a) + int64(b)\n}\n"
GO_TEST = 'package calc\n\nimport "testing"\n\nfunc TestSum(t *testing.T) {\n\tif Sum(1, 2) != 3 {\n\t\tt.Fatal("sum")\n\t}\n}\n'
GO_TEST_FIXED = GO_TEST + (
    '\nfunc TestSumOverflow(t *testing.T) {\n\tif Sum(2147483647, 1) != 2147483648 {\n\t\tt.Fatal("overflow")\n'
    "\t}\n}\n"
)
JS_PRICE = "export function format(cents) {\n  return (cents / 100).toFixed(2);\n}\n"
JS_PRICE_FIXED = "export function format(cents) {\n  return ((cents || 0) / 100).toFixed(2);\n}\n"
JS_TEST = 'import { format } from "../price";\n\ndescribe("format", () => {\n  it("formats cents", () => {\n' \
    '    expect(format(150)).toBe("1.50");\n  });\n});\n'
JS_TEST_FIXED = JS_TEST.replace("});\n});\n", '});\n\n  it("formats nothing as zero", () => {\n'
                                '    expect(format(undefined)).toBe("0.00");\n  });\n});\n')
JAVA_CART = "package shop;\n\npublic class Cart {\n    public int total(int a) {\n        return a;\n    }\n}\n"
JAVA_CART_FIXED = JAVA_CART.replace("return a;", "return a + a / 5;")
JAVA_TEST = "package shop;\n\nimport org.junit.jupiter.api.Test;\n\npublic class CartTest {\n    @Test\n" \
    "    void totalOfZero() {\n        assert new Cart().total(0) == 0;\n    }\n}\n"
JAVA_TEST_FIXED = JAVA_TEST.replace("    }\n}\n", "    }\n\n    @Test\n    void totalIncludesTax() {\n"
                                    "        assert new Cart().total(100) == 120;\n    }\n}\n")
RUST_LIB = "pub fn parse(s: &str) -> Vec<&str> {\n    s.split(',').collect()\n}\n"
RUST_LIB_FIXED = "pub fn parse(s: &str) -> Vec<&str> {\n    s.split(',').filter(|p| !p.is_empty()).collect()\n}\n"
RUST_TEST = "use shop::parse;\n\n#[test]\nfn parses_two() {\n    assert_eq!(parse(\"a,b\"), vec![\"a\", \"b\"]);\n}\n"
RUST_TEST_FIXED = RUST_TEST + "\n#[test]\nfn parses_empty() {\n    assert!(parse(\"\").is_empty());\n}\n"
RUBY_CART = "class Cart\n  def total(prices)\n    prices.sum\n  end\nend\n"
RUBY_CART_FIXED = "class Cart\n  def total(prices)\n    prices.sum.round(2)\n  end\nend\n"
RUBY_SPEC = 'require "cart"\n\nRSpec.describe Cart do\n  it "sums" do\n    expect(Cart.new.total([1])).to eq(1)\n' \
    "  end\nend\n"
RUBY_SPEC_FIXED = RUBY_SPEC.replace("  end\nend\n", '  end\n\n  it "rounds totals" do\n'
                                    "    expect(Cart.new.total([0.1, 0.2])).to eq(0.3)\n  end\nend\n")


@dataclass
class Truth:
    """A generated repository and which of its commits the miner must propose."""

    repo: GitRepo
    expected: dict[str, str] = field(default_factory=dict)
    """label -> sha of every commit that must be proposed."""
    others: dict[str, str] = field(default_factory=dict)
    """label -> sha of look-alikes and non-fixes that must not be."""


def polyglot(path: Path) -> Truth:
    """Fixes in Python, Go, JavaScript, Java, Rust and Ruby, a merge-landed fix, and look-alikes."""
    repo = git_init(path)
    truth = Truth(repo)
    truth.others["root"] = repo.commit({
        "README.md": "# shop\n", "setup.py": "from setuptools import setup\nsetup()\n",
        "src/shop/__init__.py": "", "src/shop/cart.py": CART, "src/shop/parse.py": PARSE,
        "tests/test_cart.py": CART_TEST, "tests/test_parse.py": PARSE_TEST,
        "tests/test_old_parse.py": "def test_old():\n    pass\n",
        "pkg/calc/sum.go": GO_SUM, "pkg/calc/sum_test.go": GO_TEST, "go.mod": "module example.com/shop\n",
        "package.json": '{"devDependencies": {"jest": "^29"}}\n', "web/src/price.js": JS_PRICE,
        "web/src/__tests__/price.test.js": JS_TEST, "pom.xml": "<project/>\n",
        "src/main/java/shop/Cart.java": JAVA_CART, "src/test/java/shop/CartTest.java": JAVA_TEST,
        "Cargo.toml": "[package]\nname = \"shop\"\n", "src/lib.rs": RUST_LIB, "tests/parse.rs": RUST_TEST,
        "lib/cart.rb": RUBY_CART, "spec/cart_spec.rb": RUBY_SPEC,
    }, "Initial import")
    truth.expected["python"] = repo.commit({
        "src/shop/cart.py": CART_FIXED, "tests/test_cart.py": CART_TEST_FIXED,
        "CHANGELOG.md": "- total keeps cents\n",
    }, "Fix cart total rounding error (#12)\n\nThe total of 0.1 and 0.2 was 0.30000000000000004;\n"
       "see test_rounding in tests/test_cart.py.\n\nFixes #12\n")
    truth.others["feature-no-tests"] = repo.commit(
        {"src/shop/discount.py": "def apply(p):\n    return p\n"}, "Add discount module")
    truth.others["tests-only"] = repo.commit(
        {"tests/test_cart.py": CART_TEST_FIXED + "\n    def test_one(self):\n        assert total([1]) == 1\n"},
        "Add more cart tests")
    truth.others["formatting"] = repo.commit(
        {"src/shop/cart.py": CART_FIXED + "\n", "tests/test_cart.py": CART_TEST_FIXED + "\n"},
        "Reformat with black")
    truth.others["contest-not-a-test"] = repo.commit(
        {"src/shop/contest.py": "def winner():\n    return None\n"}, "Add contest helper")
    truth.expected["go"] = repo.commit(
        {"pkg/calc/sum.go": GO_SUM_FIXED, "pkg/calc/sum_test.go": GO_TEST_FIXED},
        "pkg/calc: fix overflow in Sum")
    truth.expected["js"] = repo.commit(
        {"web/src/price.js": JS_PRICE_FIXED, "web/src/__tests__/price.test.js": JS_TEST_FIXED},
        "Fix NaN when formatting a missing price")
    truth.expected["java"] = repo.commit(
        {"src/main/java/shop/Cart.java": JAVA_CART_FIXED, "src/test/java/shop/CartTest.java": JAVA_TEST_FIXED},
        "Fix incorrect cart total: tax was missing (SHOP-7)")
    truth.expected["rust"] = repo.commit(
        {"src/lib.rs": RUST_LIB_FIXED, "tests/parse.rs": RUST_TEST_FIXED}, "Fix parse crash on empty input")
    truth.expected["ruby"] = repo.commit(
        {"lib/cart.rb": RUBY_CART_FIXED, "spec/cart_spec.rb": RUBY_SPEC_FIXED}, "Fix rounding bug in Cart#total")
    truth.others["lockfile"] = repo.commit({"package-lock.json": '{"lockfileVersion": 3}\n'}, "Update lockfile")
    truth.others["vendored"] = repo.commit(
        {f"vendor/lib/{name}.js": f"// {name}\n" for name in "abc"} | {"tests/test_vendor.py": "def test_v():\n"
                                                                      "    pass\n"},
        "Vendor lib 1.2")
    truth.others["binary-only"] = repo.commit(
        {"assets/logo.png": b"\x89PNG\r\n\x1a\n\x00\x01", "tests/fixtures/logo.png": b"\x89PNG\r\n\x1a\n\x00\x02"},
        "Fix logo colours")
    truth.others["too-many-files"] = repo.commit(
        {f"src/shop/gen/m{index}.py": f"X = {index}\n" for index in range(60)} | {"tests/test_gen.py": "X = 1\n"},
        "Fix generated modules")
    truth.expected["python-deleted-test"] = repo.commit(
        {"src/shop/parse.py": PARSE_FIXED, "tests/test_parse.py": PARSE_TEST_FIXED, "tests/test_old_parse.py": None},
        "Fix parser crash on empty input")
    truth.expected["feature-with-tests"] = repo.commit(
        {"src/shop/coupon.py": "def code():\n    return 'X'\n",
         "tests/test_coupon.py": "from shop.coupon import code\n\n\ndef test_code():\n    assert code() == 'X'\n"},
        "Add coupon codes")
    # A fix landed as a merge: neither branch commit qualifies alone, the merge's first-parent diff does.
    repo.git("checkout", "-q", "-b", "fix-discount")
    repo.commit({"src/shop/discount.py": "def apply(p):\n    return max(p, 0)\n"}, "Clamp discount")
    repo.commit({"tests/test_discount.py": "from shop.discount import apply\n\n\ndef test_negative():\n"
                 "    assert apply(-1) == 0\n"}, "Test discount clamp")
    repo.git("checkout", "-q", "main")
    repo.clock += 86400
    env = git_env(repo.clock)
    subprocess.run(["git", "merge", "-q", "--no-ff", "fix-discount", "-m",
                    "Merge pull request #7 from dev/fix-discount\n\nFix negative discount crash"],
                   cwd=repo.path, env=env, check=True, capture_output=True)
    truth.expected["merge"] = repo.head()
    return truth


def tree_after_oracle(repo: Path, base: str, oracle: bytes, grader: dict[str, bytes], deleted: tuple[str, ...],
                      scratch: Path) -> str:
    """The tree of base + oracle patch + grader files - deleted tests, built in a private index."""
    env = {**os.environ, **git_env(), "GIT_INDEX_FILE": str(scratch / "index")}

    def git(*args: str, data: bytes | None = None) -> str:
        proc = subprocess.run(["git", *args], cwd=repo, env=env, input=data, capture_output=True, check=False)
        assert proc.returncode == 0, proc.stderr.decode()
        return proc.stdout.decode().strip()

    git("read-tree", base)
    if oracle:
        git("apply", "--cached", "--binary", "-", data=oracle)
    for path, content in grader.items():
        blob = git("hash-object", "-w", "--stdin", data=content)
        git("update-index", "--add", "--cacheinfo", f"100644,{blob},{path}")
    for path in deleted:
        git("update-index", "--force-remove", path)
    return git("write-tree")


def changed_paths(repo: Path, base: str, fix: str) -> list[str]:
    """Paths whose content differs between two trees or commits (mode-only changes do not count: a grader file
    on disk carries no mode)."""
    proc = subprocess.run(["git", "diff", "--no-renames", "--raw", "--abbrev=40", "-z", base, fix], cwd=repo,
                          env=git_env(), capture_output=True, check=True)
    tokens = proc.stdout.split(b"\0")
    out = []
    for meta, path in zip(tokens[0::2], tokens[1::2], strict=False):
        fields = meta.split()
        if len(fields) >= 4 and fields[2] != fields[3]:
            out.append(path.decode())
    return out


def paths_of_tests(paths: list[str]) -> list[str]:
    """The paths the built-in rules call tests."""
    classifier = PathClassifier()
    return [path for path in paths if classifier.category(path) == "test"]


def open_corpus(path: Path) -> Corpus:
    """Open a corpus the scan created."""
    return Corpus.open(path)


SRC = "def f(x):\n    return x\n"
"""The source of the small one-function repositories the miner tests build."""
TEST = "from app import f\n\n\ndef test_f():\n    assert f(1) == 1\n"
"""Its test file."""


def one_fix_repo(path: Path) -> tuple[Path, str]:
    """Three commits: the initial code with a test, a fix with a new test, a docs change. Returns (repo, fix)."""
    repo = git_init(path)
    repo.commit({"app/__init__.py": SRC, "tests/test_app.py": TEST}, "Initial")
    fix = repo.commit({"app/__init__.py": SRC.replace("x\n", "abs(x)\n"),
                       "tests/test_app.py": TEST + "\n\ndef test_negative():\n    assert f(-1) == 1\n"},
                      "Fix f for negative numbers (#3)")
    repo.commit({"README.md": "docs\n"}, "Docs")
    return repo.path, fix


def base_repo(path: Path) -> GitRepo:
    """One commit: the one-function source and its test."""
    repo = git_init(path)
    repo.commit({"app/__init__.py": SRC, "tests/test_app.py": TEST}, "Initial")
    return repo


def small_fix(path: Path) -> GitRepo:
    """base_repo, then a fix of f with a new test ("Fix f for two")."""
    repo = base_repo(path)
    repo.commit({"app/__init__.py": SRC.replace("x\n", "x + 0\n"),
                 "tests/test_app.py": TEST + "\n\ndef test_g():\n    assert f(2) == 2\n"}, "Fix f for two")
    return repo


def numbered_fix(repo: GitRepo, number: int, message: str | None = None) -> str:
    """A small fix commit touching one source and one test file of their own; the sha."""
    return repo.commit({
        f"app/m{number}.py": f"def f{number}(x):\n    return x + {number}\n",
        f"tests/test_m{number}.py": f"def test_f{number}():\n    assert {number}\n",
    }, message or f"Fix bug {number}")


def merge_no_ff(repo: GitRepo, branch: str, message: str) -> str:
    """Merge branch into the checked-out branch with a merge commit, a day after the last commit; the sha."""
    repo.clock += 86400
    repo.git("merge", "-q", "--no-ff", branch, "-m", message)
    return repo.head()


def finished_extractions(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The fix commits the second pass extracts (`miner.extract._finish`), in order, from now on."""
    finished: list[str] = []
    real_finish = extract._finish

    def spy(repo: object, split: object, blobs: object) -> object:
        finished.append(split.survivor.commit.sha)  # type: ignore[attr-defined]
        return real_finish(repo, split, blobs)  # type: ignore[arg-type]

    monkeypatch.setattr(extract, "_finish", spy)
    return finished
