"""case.yaml's http_fixture and the case's http/ files: validated with one line naming the file, field and line,
kept by every writer, and part of the case's fingerprint."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import CorpusError, ExitCode
from corpus.fingerprint import case_fingerprint
from corpus.model import HttpFixture
from runner.cli import cli
from tests.testing.httpcase import FIXTURE, build_http_corpus


def case_yaml(tmp_path: Path) -> Path:
    return tmp_path / "evals" / "cases" / "http-notify" / "case.yaml"


def test_the_fixture_and_its_files_survive_a_write_and_a_load(tmp_path: Path) -> None:
    corpus, _ = build_http_corpus(tmp_path)
    stored = corpus.load("http-notify")
    assert stored.case.http_fixture == FIXTURE
    assert [name for name, _ in stored.files.http_files] == ["users/42.json"]
    assert json.loads(dict(stored.files.http_files)["users/42.json"])["name"] == "Ada"
    text = case_yaml(tmp_path).read_text()
    assert "http_fixture:\n  routes:\n    - path: /v1/users/42\n      file: users/42.json\n" in text
    # Edited in place (the round-trip writer), the responses stay.
    corpus.write(replace(stored.case, title="notify() drops every message"), stored.files)
    again = corpus.load("http-notify")
    assert again.files.http_files == stored.files.http_files and again.case.http_fixture == FIXTURE


def test_the_responses_are_part_of_the_fingerprint(tmp_path: Path) -> None:
    corpus, _ = build_http_corpus(tmp_path)
    stored = corpus.load("http-notify")
    before = case_fingerprint(stored.case, stored.files)
    changed = replace(stored.files, http_files=(("users/42.json", b'{"name": "Bob"}'),))
    assert case_fingerprint(stored.case, changed) != before
    assert case_fingerprint(replace(stored.case, http_fixture=HttpFixture()), stored.files) != before
    # A case without a fixture does not hash files it never serves.
    bare = replace(stored.case, http_fixture=None)
    assert case_fingerprint(bare, stored.files) == case_fingerprint(bare, changed)


@pytest.mark.parametrize(("fixture", "field", "message"), [
    ("http_fixture:\n  routes:\n    - path: /x\n      file: missing.json\n", "http_fixture.routes[0].file",
     "no such file http/missing.json in the case directory"),
    ("http_fixture:\n  routes:\n    - path: x\n", "http_fixture.routes[0].path", "must start with '/'"),
    ("http_fixture:\n  routes:\n    - path: /x\n      method: FETCH\n", "http_fixture.routes[0].method",
     "must be one of GET"),
    ("http_fixture:\n  routes:\n    - path: /x\n      status: 700\n", "http_fixture.routes[0].status",
     "must be an HTTP status"),
    ("http_fixture:\n  routes:\n    - path: /x\n      file: ../x\n", "http_fixture.routes[0].file",
     "must be a path under the case's http/ directory"),
    ("http_fixture:\n  routes:\n    - path: /x\n      body: a\n      file: users/42.json\n",
     "http_fixture.routes[0].body", "give file or body, not both"),
    ("http_fixture:\n  routs: []\n", "http_fixture.routs", "unknown key 'routs' (did you mean 'routes'?)"),
    ("http_fixture: yes please\n", "http_fixture", "expected a mapping"),
])
def test_bad_fixtures_are_one_line_errors(tmp_path: Path, fixture: str, field: str, message: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _ = build_http_corpus(tmp_path)
    path = case_yaml(tmp_path)
    text = path.read_text()
    path.write_text(text[:text.index("http_fixture:")] + fixture)
    with pytest.raises(CorpusError) as caught:
        corpus.load("http-notify")
    assert caught.value.field == field and message in caught.value.message
    assert caught.value.path == path
    capsys.readouterr()
    assert run_cli(cli, "runner", ["validate", "--corpus", str(tmp_path / "evals")]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert f"{path}:" in err and field in err and "Traceback" not in err


def test_true_serves_the_files_and_needs_some(tmp_path: Path) -> None:
    corpus, _ = build_http_corpus(tmp_path)
    path = case_yaml(tmp_path)
    text = path.read_text()
    path.write_text(text[:text.index("http_fixture:")] + "http_fixture: true\n")
    assert corpus.load("http-notify").case.http_fixture == HttpFixture()
    (tmp_path / "evals" / "cases" / "http-notify" / "http" / "users" / "42.json").unlink()
    with pytest.raises(CorpusError, match="http_fixture: http_fixture has no routes and the case has no http/ files"):
        corpus.load("http-notify")
