"""Ground truth: exactly which commits a scan proposes, and what each candidate holds."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from corpus.store import Corpus
from corpus.yamlio import load_yaml
from miner.prompt import DRAFT_MARKER
from miner.scan import ScanOptions, ScanResult, scan
from tests.testing.gitrepo import git_env
from tests.testing.minerrepos import Truth, changed_paths, paths_of_tests, polyglot, tree_after_oracle


@pytest.fixture(scope="module")
def truth(tmp_path_factory: pytest.TempPathFactory) -> Truth:
    return polyglot(tmp_path_factory.mktemp("polyglot") / "repo")


@pytest.fixture(scope="module")
def scanned(truth: Truth, tmp_path_factory: pytest.TempPathFactory) -> ScanResult:
    return scan(ScanOptions(repo=truth.repo.path, corpus=tmp_path_factory.mktemp("corpus") / "evals"))


def by_fix(result: ScanResult) -> dict[str, object]:
    return {candidate.case.fix_commit: candidate for candidate in result.candidates}


def test_exactly_the_expected_commits_are_proposed(truth: Truth, scanned: ScanResult) -> None:
    assert set(by_fix(scanned)) == set(truth.expected.values())


def test_skip_reasons_are_counted(scanned: ScanResult) -> None:
    skipped = scanned.stats.skipped
    assert skipped["root-commit"] == 1
    assert skipped["bulk-formatting"] == 1
    assert skipped["bulk-lockfile"] == 1
    assert skipped["bulk-vendored"] == 1
    assert skipped["bulk-binary"] == 1
    assert skipped["too-many-files"] == 1
    # discount module, contest helper, and the merge branch's source-only commit
    assert skipped["no-test-change"] == 3
    # more cart tests, and the merge branch's tests-only commit
    assert skipped["no-source-change"] == 2
    assert scanned.stats.commits_scanned == 20
    assert scanned.stats.candidates == len(scanned.candidates) == 9


def test_candidates_are_written_and_load_back(truth: Truth, scanned: ScanResult, tmp_path: Path) -> None:
    assert scanned.corpus is not None
    corpus = Corpus.open(scanned.corpus)
    assert corpus.config.name == "repo"
    stored = {s.case.fix_commit: s for s in corpus.load_all("candidates")}
    assert set(stored) == set(truth.expected.values())
    # A dry run holds the files it would write; the written scan holds none once they are on disk.
    dry = {c.case.fix_commit: c for c in scan(ScanOptions(repo=truth.repo.path, corpus=tmp_path / "dry",
                                                            write=False)).candidates}
    assert set(dry) == set(stored)
    for candidate in scanned.candidates:
        loaded = stored[candidate.case.fix_commit]
        assert loaded.case == candidate.case == dry[candidate.case.fix_commit].case
        assert candidate.files is None and dry[candidate.case.fix_commit].files is not None
        assert loaded.files == dry[candidate.case.fix_commit].files == candidate.read_files()


def test_python_candidate_contents(truth: Truth, scanned: ScanResult) -> None:
    candidate = by_fix(scanned)[truth.expected["python"]]
    case = candidate.case  # type: ignore[attr-defined]
    assert case.id.startswith("fix-cart-total-rounding-error-12-")
    assert case.base_commit == truth.repo.git("rev-parse", f"{truth.expected['python']}^")
    assert case.grader.command == ("python -m pytest -q -p no:cacheprovider --junitxml=.hindcast/junit.xml "
                                   "tests/test_cart.py::TestCart::test_rounding")
    assert case.grader.junit == ".hindcast/junit.xml"
    assert case.grader.fail_to_pass == ("tests/test_cart.py::TestCart::test_rounding",)
    assert case.trigger_paths == ("src/shop/cart.py",)
    assert case.mined.source_files == ("src/shop/cart.py",)
    assert case.mined.test_files == ("tests/test_cart.py",)
    assert case.mined.omitted_files == ("CHANGELOG.md",)
    assert case.mined.merge is False
    evidence = " | ".join(case.mined.evidence)
    assert "fix words in message: error, fix" in evidence
    assert "issue references: #12" in evidence
    assert "1 test function added or changed" in evidence
    assert b"CHANGELOG" not in candidate.read_files().oracle_patch  # type: ignore[attr-defined]
    assert case.prompt.startswith(DRAFT_MARKER)
    for leak in ("test_rounding", "tests/test_cart.py", "#12", truth.expected["python"][:7]):
        assert leak not in case.prompt
    assert "Fix cart total rounding error" in case.prompt


@pytest.mark.parametrize(("label", "command"), [
    ("go", "go test ./pkg/calc -run '^(TestSumOverflow)$'"),
    ("js", "npx jest web/src/__tests__/price.test.js -t 'formats\\ nothing\\ as\\ zero'"),
    ("java", "mvn -q test -Dtest='CartTest#totalIncludesTax' -DfailIfNoTests=false"),
    ("rust", "cargo test --test parse -- parses_empty"),
    ("ruby", "bundle exec rspec spec/cart_spec.rb:8"),
    ("python-deleted-test",
     "python -m pytest -q -p no:cacheprovider --junitxml=.hindcast/junit.xml tests/test_parse.py::test_parse_empty"),
])
def test_grader_command_per_language(truth: Truth, scanned: ScanResult, label: str, command: str) -> None:
    case = by_fix(scanned)[truth.expected[label]].case  # type: ignore[attr-defined]
    assert case.grader.command == command
    if not label.startswith("python"):
        assert case.grader.junit is None and case.grader.fail_to_pass == ()


def test_deleted_test_paths_are_recorded(truth: Truth, scanned: ScanResult) -> None:
    case = by_fix(scanned)[truth.expected["python-deleted-test"]].case  # type: ignore[attr-defined]
    assert case.grader.deleted == ("tests/test_old_parse.py",)
    assert "tests/test_old_parse.py" in case.mined.test_files


def test_merge_candidate_uses_first_parent(truth: Truth, scanned: ScanResult) -> None:
    case = by_fix(scanned)[truth.expected["merge"]].case  # type: ignore[attr-defined]
    assert case.mined.merge is True
    assert case.base_commit == truth.repo.git("rev-parse", f"{truth.expected['merge']}^1")
    assert case.title == "Fix negative discount crash"
    assert case.mined.source_files == ("src/shop/discount.py",)
    assert "Merge pull request" not in case.prompt


def test_feature_with_tests_scores_below_fixes(truth: Truth, scanned: ScanResult) -> None:
    scores = {c.case.fix_commit: c.case.mined.score for c in scanned.candidates}  # type: ignore[union-attr]
    feature = scores[truth.expected["feature-with-tests"]]
    assert all(scores[truth.expected[label]] > feature for label in ("python", "go", "java", "rust", "ruby"))
    assert scanned.candidates[-1].case.fix_commit == truth.expected["feature-with-tests"]


def test_oracle_reproduces_the_fix_tree(truth: Truth, scanned: ScanResult, tmp_path: Path) -> None:
    for number, candidate in enumerate(scanned.candidates):
        case, files = candidate.case, candidate.read_files()
        scratch = tmp_path / str(number)
        scratch.mkdir()
        tree = tree_after_oracle(truth.repo.path, case.base_commit, files.oracle_patch, dict(files.grader_files),
                                 case.grader.deleted, scratch)
        differing = changed_paths(truth.repo.path, tree, case.fix_commit)
        assert differing == list(case.mined.omitted_files), case.id


def test_grader_files_equal_the_fix_test_files(truth: Truth, scanned: ScanResult) -> None:
    for candidate in scanned.candidates:
        case = candidate.case
        tests = paths_of_tests(changed_paths(truth.repo.path, case.base_commit, case.fix_commit))
        grader = dict(candidate.read_files().grader_files)
        assert sorted([*grader, *case.grader.deleted]) == sorted(tests)
        for path, content in grader.items():
            shown = subprocess.run(["git", "show", f"{case.fix_commit}:{path}"], cwd=truth.repo.path,
                                   env=git_env(), capture_output=True, check=True).stdout
            assert content == shown


def test_no_merges_drops_the_merge(truth: Truth, tmp_path: Path) -> None:
    result = scan(ScanOptions(repo=truth.repo.path, corpus=tmp_path / "evals", merges=False))
    proposed = {c.case.fix_commit for c in result.candidates}
    assert proposed == set(truth.expected.values()) - {truth.expected["merge"]}
    assert result.stats.commits_scanned == 19


def test_max_candidates_keeps_the_best(truth: Truth, tmp_path: Path) -> None:
    result = scan(ScanOptions(repo=truth.repo.path, corpus=tmp_path / "evals", max_candidates=3))
    assert len(result.candidates) == 3
    assert result.stats.skipped["over-max-candidates"] == 6
    best = sorted(result.candidates, key=lambda c: -c.case.mined.score)  # type: ignore[union-attr]
    assert result.candidates == best
    assert len(Corpus.open(tmp_path / "evals").ids("candidates")) == 3


def test_rev_range_limits_the_walk(truth: Truth, tmp_path: Path) -> None:
    go = truth.expected["go"]
    result = scan(ScanOptions(repo=truth.repo.path, corpus=tmp_path / "evals", rev=f"{go}^..{go}"))
    assert [c.case.fix_commit for c in result.candidates] == [go]
    assert result.stats.commits_scanned == 1
    state = load_yaml(tmp_path / "evals" / "scan-state.yaml")["repositories"][str(truth.repo.path.resolve())]
    parent = truth.repo.git("rev-parse", f"{go}^")
    assert [entry["revs"] for entry in state["covered"]] == [[go, f"^{parent}"]]


def test_dry_run_writes_nothing(truth: Truth, tmp_path: Path) -> None:
    result = scan(ScanOptions(repo=truth.repo.path, corpus=tmp_path / "evals", write=False))
    assert len(result.candidates) == 9
    assert not (tmp_path / "evals").exists()


def test_custom_test_globs_replace_the_builtins(truth: Truth, tmp_path: Path) -> None:
    corpus = Corpus.init(tmp_path / "evals", name="shop", repo=str(truth.repo.path))
    (corpus.root / "corpus.yaml").write_text(f"name: shop\nrepo: {truth.repo.path}\ntest_globs: ['spec/']\n")
    result = scan(ScanOptions(repo=truth.repo.path, corpus=corpus.root))
    assert [c.case.fix_commit for c in result.candidates] == [truth.expected["ruby"]]


def test_each_candidate_allows_the_directories_of_its_fix(scanned: ScanResult) -> None:
    assert scanned.corpus is not None
    corpus = Corpus.open(scanned.corpus)
    for candidate in scanned.candidates:
        assert candidate.case.mined is not None
        sources = candidate.case.mined.source_files
        expected = sorted({p.rsplit("/", 1)[0] + "/" if "/" in p else p for p in sources})
        assert expected and list(candidate.case.allowed_paths) == expected
        # Written to case.yaml, and nothing the oracle changes lies outside it.
        assert corpus.load(candidate.case.id, "candidates").case.allowed_paths == tuple(expected)
        assert all(any(p == a or p.startswith(a) for a in expected) for p in sources)
