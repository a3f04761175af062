from __future__ import annotations

from pathlib import Path

import pytest

from corpus import Case, CaseFiles, Corpus, CorpusError, Grader, Rejection, UsageError, corpus_fingerprint
from corpus.store import case_mapping

SHA_A = "a" * 40
SHA_B = "b" * 40

GOOD = f"""\
# A hand-written case.
id: cart-rounding   # the slug
title: Cart total loses cents
owner: alice
policy: blocking
critical: true
base_commit: {SHA_A}
fix_commit: {SHA_B}
prompt: |
  The cart total is off by a cent for some prices.
grader:
  command: python -m pytest -q tests/test_cart.py
  timeout: 60
  junit: .hindcast/junit.xml
  fail_to_pass: [tests/test_cart.py::test_rounding]
trigger_paths: [shop/cart.py]
tags: [money]
"""


def write_case(root: Path, text: str, case_id: str = "cart-rounding") -> Corpus:
    corpus = Corpus.init(root, "t") if not (root / "corpus.yaml").exists() else Corpus.open(root)
    directory = root / "cases" / case_id
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "case.yaml").write_text(text)
    (directory / "oracle.patch").write_bytes(b"")
    return corpus


def test_good_case_loads_with_every_field(tmp_path: Path) -> None:
    corpus = write_case(tmp_path, GOOD)
    case = corpus.load("cart-rounding").case
    assert case.policy == "blocking" and case.critical is True
    assert case.grader.fail_to_pass == ("tests/test_cart.py::test_rounding",)
    assert case.grader.timeout == 60 and case.grader.junit == ".hindcast/junit.xml"
    assert case.trigger_paths == ("shop/cart.py",) and case.tags == ("money",)
    assert case.prompt == "The cart total is off by a cent for some prices.\n"
    assert case.status == "active" and case.setup.command is None


BAD_CASES = [
    ("malformed yaml", GOOD.replace("tags: [money]", "tags: [money"), "malformed YAML", None),
    ("unknown field", GOOD + "colour: blue\n", "colour: unknown key 'colour'", 18),
    ("missing title", GOOD.replace("title: Cart total loses cents\n", ""), "title: missing required field", None),
    ("missing grader", GOOD.split("grader:")[0] + "tags: []\n", "grader: missing required field", None),
    ("missing grader command", GOOD.replace("  command: python -m pytest -q tests/test_cart.py\n", ""),
     "grader.command: missing required field", None),
    ("id with slash", GOOD.replace("id: cart-rounding", "id: ../etc"), "id: must be a slug", 2),
    ("id with dots", GOOD.replace("id: cart-rounding", "id: a..b"), "id: must be a slug", 2),
    ("id not matching directory", GOOD.replace("id: cart-rounding", "id: other"), "does not match", 2),
    ("bad policy", GOOD.replace("policy: blocking", "policy: strict"), "policy: must be one of", 5),
    ("bad sha", GOOD.replace(f"base_commit: {SHA_A}", "base_commit: HEAD~1"), "base_commit: expected a full", 7),
    ("critical not bool", GOOD.replace("critical: true", "critical: maybe"), "critical: expected true or false", 6),
    ("timeout not number", GOOD.replace("timeout: 60", "timeout: soon"), "grader.timeout: expected a whole", 13),
    ("timeout zero", GOOD.replace("timeout: 60", "timeout: 0"), "grader.timeout: must be at least 1", 13),
    ("tags not list", GOOD.replace("tags: [money]", "tags: money"), "tags: expected a list", 17),
    ("deprecated without reason", GOOD.replace("critical: true", "critical: true\nstatus: deprecated"),
     "deprecated_reason", None),
    ("junit escaping", GOOD.replace("junit: .hindcast/junit.xml", "junit: ../x.xml"), "grader.junit: must be a relative",
     None),
    ("not a mapping", "- just\n- a list\n", "expected a mapping", None),
]


@pytest.mark.parametrize(("name", "text", "message", "line"), BAD_CASES, ids=[c[0] for c in BAD_CASES])
def test_bad_case_names_file_field_and_line(tmp_path: Path, name: str, text: str, message: str,
                                            line: int | None) -> None:
    corpus = write_case(tmp_path, text)
    with pytest.raises(CorpusError) as info:
        corpus.load("cart-rounding")
    error = str(info.value)
    assert str(tmp_path / "cases" / "cart-rounding" / "case.yaml") in error
    assert message in error
    if line is not None:
        assert info.value.line == line
    assert "\n" not in error


def test_missing_oracle_patch_is_an_error(tmp_path: Path) -> None:
    corpus = write_case(tmp_path, GOOD)
    (tmp_path / "cases" / "cart-rounding" / "oracle.patch").unlink()
    with pytest.raises(CorpusError, match=r"oracle.patch: file not found"):
        corpus.load("cart-rounding")


@pytest.mark.parametrize("bad_id", ["../x", "a/b", "", "UPPER", ".hidden"])
def test_ids_that_are_paths_are_refused_before_touching_disk(tmp_path: Path, bad_id: str) -> None:
    corpus = Corpus.init(tmp_path, "t")
    with pytest.raises(UsageError, match="lowercase letters"):
        corpus.load(bad_id)
    case = Case(id=bad_id, title="t", prompt="p", base_commit=SHA_A, fix_commit=SHA_B, grader=Grader("true"))
    with pytest.raises(UsageError):
        corpus.write(case, CaseFiles.of(b"", {}))
    assert not (tmp_path / "cases").exists() or not any((tmp_path / "cases").iterdir())


def test_corpus_yaml_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="corpus directory not found"):
        Corpus.open(tmp_path / "nope")
    with pytest.raises(CorpusError, match=r"corpus.yaml: file not found"):
        Corpus.open(tmp_path)
    (tmp_path / "corpus.yaml").write_text("name: x\ndefaults:\n  policy: maybe\n")
    with pytest.raises(CorpusError, match=r"corpus.yaml:3: defaults.policy: must be one of"):
        Corpus.open(tmp_path)


def test_edit_keeps_comments_and_key_order(tmp_path: Path) -> None:
    corpus = write_case(tmp_path, GOOD)
    stored = corpus.load("cart-rounding")
    edited = Case(**{**stored.case.__dict__, "owner": "bob", "tags": ("money", "tax")})
    corpus.write(edited, stored.files, expect_mtime_ns=stored.mtime_ns)
    text = (tmp_path / "cases" / "cart-rounding" / "case.yaml").read_text()
    assert text.startswith("# A hand-written case.\nid: cart-rounding   # the slug\n")
    assert "owner: bob\n" in text and "tags: [money, tax]" in text
    assert text.index("title:") < text.index("owner:") < text.index("base_commit:") < text.index("prompt:")
    assert corpus.load("cart-rounding").case == edited


def test_write_refused_when_file_changed_on_disk(tmp_path: Path) -> None:
    corpus = write_case(tmp_path, GOOD)
    stored = corpus.load("cart-rounding")
    path = tmp_path / "cases" / "cart-rounding" / "case.yaml"
    path.write_text(GOOD.replace("owner: alice", "owner: carol"))
    import os

    os.utime(path, ns=(stored.mtime_ns + 10**9, stored.mtime_ns + 10**9))
    with pytest.raises(UsageError, match="changed on disk"):
        corpus.write(stored.case, stored.files, expect_mtime_ns=stored.mtime_ns)
    assert "owner: carol" in path.read_text()


def test_new_case_written_without_defaults_and_round_trips(tmp_path: Path) -> None:
    corpus = Corpus.init(tmp_path, "t")
    case = Case(id="x", title="t", prompt="one\ntwo\n", base_commit=SHA_A, fix_commit=SHA_B, grader=Grader("true"))
    files = CaseFiles.of(b"diff", {"tests/test_x.py": b"x = 1\n", "tests/deep/conftest.py": b""})
    corpus.write(case, files)
    text = (tmp_path / "cases" / "x" / "case.yaml").read_text()
    assert "policy" not in text and "critical" not in text and "timeout" not in text
    assert "prompt: |\n  one\n  two\n" in text
    loaded = corpus.load("x")
    assert loaded.case == case and loaded.files == files
    assert not [p for p in (tmp_path / "cases").iterdir() if p.name.startswith(".")]


def test_fingerprint_ignores_formatting_but_not_meaning(tmp_path: Path) -> None:
    corpus = write_case(tmp_path, GOOD)
    before = corpus_fingerprint([(s.case, s.files) for s in corpus.load_all()])
    path = tmp_path / "cases" / "cart-rounding" / "case.yaml"
    lines = GOOD.splitlines(keepends=True)
    reordered = "".join([lines[7], lines[6], *lines[:6], *lines[8:]]).replace("tags: [money]", "tags:\n  - money")
    path.write_text("# reformatted\n" + reordered)
    assert corpus_fingerprint([(s.case, s.files) for s in corpus.load_all()]) == before
    path.write_text(GOOD.replace("off by a cent", "off by one cent"))
    assert corpus_fingerprint([(s.case, s.files) for s in corpus.load_all()]) != before
    path.write_text(GOOD)
    (path.parent / "oracle.patch").write_bytes(b"changed")
    assert corpus_fingerprint([(s.case, s.files) for s in corpus.load_all()]) != before
    (path.parent / "oracle.patch").write_bytes(b"")
    (path.parent / "grader" / "tests").mkdir(parents=True)
    (path.parent / "grader" / "tests" / "test_cart.py").write_text("x")
    assert corpus_fingerprint([(s.case, s.files) for s in corpus.load_all()]) != before


def test_bytecode_caches_beside_grader_tests_are_not_grader_files(tmp_path: Path) -> None:
    corpus = write_case(tmp_path, GOOD)
    tests = tmp_path / "cases" / "cart-rounding" / "grader" / "tests"
    tests.mkdir(parents=True)
    (tests / "test_cart.py").write_text("def test_rounding():\n    pass\n")
    before = corpus_fingerprint([(s.case, s.files) for s in corpus.load_all()])
    (tests / "__pycache__").mkdir()
    (tests / "__pycache__" / "test_cart.cpython-311-pytest-8.3.4.pyc").write_bytes(b"\x00bytecode")
    stored = corpus.load("cart-rounding")
    assert [path for path, _ in stored.files.grader_files] == ["tests/test_cart.py"]
    assert corpus_fingerprint([(s.case, s.files) for s in corpus.load_all()]) == before


def test_deprecated_cases_are_not_fingerprinted(tmp_path: Path) -> None:
    corpus = write_case(tmp_path, GOOD)
    stored = corpus.load("cart-rounding")
    active = corpus_fingerprint([(stored.case, stored.files)])
    gone = Case(**{**stored.case.__dict__, "status": "deprecated", "deprecated_reason": "flaky upstream"})
    assert corpus_fingerprint([(gone, stored.files)]) != active
    assert corpus_fingerprint([(gone, stored.files)]) == corpus_fingerprint([])


def test_rejections_append_and_keep_comments(tmp_path: Path) -> None:
    corpus = Corpus.init(tmp_path, "t")
    (tmp_path / "rejected.yaml").write_text("# decisions\nrejected:\n  - fix_commit: " + SHA_A + "\n    reason: dup\n")
    corpus.add_rejection(Rejection(fix_commit=SHA_B, reason="not a bug", candidate_id="c-1"))
    text = (tmp_path / "rejected.yaml").read_text()
    assert text.startswith("# decisions\n")
    assert [r.fix_commit for r in corpus.rejections()] == [SHA_A, SHA_B]
    assert corpus.rejections()[1].rejected_at is not None


def test_case_mapping_orders_people_fields_first() -> None:
    case = Case(id="x", title="t", prompt="p", base_commit=SHA_A, fix_commit=SHA_B, grader=Grader("true"),
                owner="o", tags=("a",))
    assert list(case_mapping(case)) == ["id", "title", "owner", "base_commit", "fix_commit", "prompt", "grader",
                                        "tags"]


def test_published_files_get_ordinary_permissions(tmp_path: Path) -> None:
    import stat

    from corpus.fsutil import DIR_MODE, FILE_MODE

    corpus = Corpus.init(tmp_path, "t")
    case = Case(id="x", title="t", prompt="p", base_commit=SHA_A, fix_commit=SHA_B, grader=Grader("true"))
    files = CaseFiles.of(b"diff", {"tests/test_x.py": b"x = 1\n"})
    corpus.write(case, files)
    corpus.write(Case(**{**case.__dict__, "owner": "o"}), files)  # an edit goes through the round-trip path
    corpus.add_rejection(Rejection(fix_commit=SHA_A, reason="no"))
    for path in [tmp_path / "cases" / "x", tmp_path / "cases" / "x" / "grader" / "tests"]:
        assert stat.S_IMODE(path.stat().st_mode) == DIR_MODE, path
    for path in [tmp_path / "corpus.yaml", tmp_path / "rejected.yaml", tmp_path / "cases" / "x" / "case.yaml",
                 tmp_path / "cases" / "x" / "oracle.patch"]:
        assert stat.S_IMODE(path.stat().st_mode) == FILE_MODE, path



@pytest.mark.parametrize("path", ["/etc/passwd", "../x.py", "tests/../../x.py", "./tests/x.py", "tests//x.py"])
@pytest.mark.parametrize("existing", [False, True], ids=["new-writer", "round-trip-writer"])
def test_a_grader_path_that_steps_out_is_refused_by_both_writers(tmp_path: Path, path: str, existing: bool) -> None:
    corpus = Corpus.init(tmp_path / "evals", "t")
    case = Case(id="x", title="t", prompt="p\n", base_commit=SHA_A, fix_commit=SHA_B, grader=Grader("true"))
    if existing:  # a second write edits the existing case.yaml through the round-trip writer
        corpus.write(case, CaseFiles.of(b"", {"tests/test_x.py": b"x = 1\n"}))
    with pytest.raises(UsageError, match="escapes the repository"):
        corpus.write(case, CaseFiles.of(b"", {path: b"x"}))
    assert not (tmp_path / "x.py").exists() and not (tmp_path / "evals" / "x.py").exists()
    assert [p.name for p in (tmp_path / "evals" / "cases").iterdir()] == (["x"] if existing else [])
