"""case.yaml's behaviour fields (max_turns, bait, trajectory): validated with one line naming the file, field and
line; `runner validate` reports them; every writer keeps them."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import Corpus
from corpus.cli_support import run_cli
from corpus.errors import CorpusError, ExitCode
from corpus.fingerprint import case_fingerprint
from corpus.model import BEHAVIOUR_METRICS, Bait, Step, Trajectory
from corpus.newcase import write_new
from corpus.schema import parse_case, to_full_mapping
from corpus.yamlio import load_yaml
from runner.behaviour.metrics import COUNTED, TIMED
from runner.cli import cli
from tests.testing.casefactory import build_corpus

FIELDS = """max_turns: 12
bait:
  metric: shell_edits
  threshold: 0.5
trajectory:
  mode: unordered
  steps:
    - tool: Read
      arguments: {file_path: calc.py}
    - tool: shell
      arguments:
        command: ^python -m pytest
      match: regex
    - tool: Edit
      match: exact
  forbidden_tools: [web_fetch, WebSearch]
  max_calls: {Bash: 3, read: 0}
"""
TRAJECTORY = Trajectory((Step("Read", {"file_path": "calc.py"}), Step("shell", {"command": "^python -m pytest"},
                                                                      "regex"), Step("Edit", {}, "exact")),
                        "unordered", ("web_fetch", "WebSearch"), {"Bash": 3, "read": 0})


def case_file(tmp_path: Path, extra: str) -> Path:
    corpus, _, _ = build_corpus(tmp_path)
    path = corpus.root / "cases" / "calc-add" / "case.yaml"
    path.write_text(path.read_text() + extra)
    return path


def test_the_fields_load_into_the_case(tmp_path: Path) -> None:
    path = case_file(tmp_path, FIELDS)
    case = parse_case(path, load_yaml(path))
    assert case.max_turns == 12
    assert case.bait == Bait("shell_edits", 0.5)
    assert case.trajectory == TRAJECTORY


def test_bait_metrics_are_the_runner_s_metrics() -> None:
    assert (*COUNTED, *TIMED) == BEHAVIOUR_METRICS


def line_of(path: Path, text: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), start=1) if text in line)


@pytest.mark.parametrize(("extra", "anchor", "field", "message"), [
    ("max_turns: 0\n", "max_turns", "max_turns", "must be at least 1"),
    ("max_turns: many\n", "max_turns", "max_turns", "expected a whole number, found text"),
    ("bait: {metric: edits, threshold: 1}\n", "bait", "bait.metric",
     "must be a behaviour metric (shell_commands, "),
    ("bait:\n  metric: tool_edits\n", "metric: tool_edits", "bait.threshold", "missing required field"),
    ("bait:\n  metric: tool_edits\n  threshold: 1\n  limit: 2\n", "limit", "bait.limit",
     "unknown key 'limit'"),
    ("trajectory:\n  mode: loose\n  steps: [{tool: Read}]\n", "mode: loose", "trajectory.mode",
     "must be one of strict, unordered, subset, superset, found 'loose'"),
    ("trajectory:\n  steps:\n    - tool: Read\n    - arguments: {a: 1}\n", "arguments: {a: 1}",
     "trajectory.steps[1].tool", "missing required field"),
    ("trajectory:\n  steps:\n    - tool: Read\n      match: fuzzy\n", "match: fuzzy", "trajectory.steps[0].match",
     "must be one of exact, subset, regex, found 'fuzzy'"),
    ("trajectory:\n  steps:\n    - tool: Bash\n      match: regex\n      arguments: {command: 'py(test'}\n",
     "arguments:", "trajectory.steps[0].arguments", "command: not a regular expression ("),
    ("trajectory:\n  steps:\n    - tool: Bash\n      arguments: [command]\n", "arguments:",
     "trajectory.steps[0].arguments", "expected a mapping of argument names to values"),
    ("trajectory:\n  steps:\n    - Bash\n", "- Bash", "trajectory.steps[0]", "expected a step"),
    ("trajectory:\n  steps:\n    - tool: Bash\n      args: {}\n", "args:", "trajectory.steps[0].args",
     "unknown key 'args'"),
    ("trajectory:\n  forbidden_tools: [web_fetch, '']\n", "forbidden_tools", "trajectory.forbidden_tools[1]",
     "must not be empty"),
    ("trajectory:\n  max_calls: {Bash: -1}\n", "max_calls", "trajectory.max_calls.Bash", "must be at least 0"),
    ("trajectory:\n  mode: strict\n", "trajectory:", "trajectory", "needs steps, forbidden_tools or max_calls"),
    ("trajectory:\n  step: []\n", "step:", "trajectory.step", "unknown key 'step' (did you mean 'steps'?)"),
])
def test_bad_fields_are_one_line_naming_file_field_and_line(tmp_path: Path, extra: str, anchor: str, field: str,
                                                           message: str) -> None:
    path = case_file(tmp_path, extra)
    with pytest.raises(CorpusError) as raised:
        parse_case(path, load_yaml(path))
    text = str(raised.value)
    assert "\n" not in text
    assert text.startswith(f"{path}:{line_of(path, anchor)}: {field}: {message}"), text


def test_runner_validate_reports_them(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = case_file(tmp_path, "bait: {metric: edits, threshold: 1}\n")
    root = path.parent.parent.parent
    assert run_cli(cli, "runner", ["validate", "--corpus", str(root)]) == ExitCode.BAD_INPUT
    lines = capsys.readouterr().err.splitlines()
    assert re.match(rf"runner: error: {re.escape(str(path))}:\d+: bait.metric: must be a behaviour metric", lines[0])


def test_writers_keep_the_fields(tmp_path: Path) -> None:
    path = case_file(tmp_path, "# the budget\n" + FIELDS)
    corpus = Corpus.open(path.parent.parent.parent)
    stored = corpus.load("calc-add")
    # the round-trip writer: an edit elsewhere keeps the fields and the comment a person wrote
    corpus.write(replace(stored.case, title="add() is wrong"), stored.files)
    text = path.read_text()
    assert "# the budget" in text and "forbidden_tools:" in text
    again = corpus.load("calc-add").case
    assert (again.title, again.max_turns, again.bait, again.trajectory) == (
        "add() is wrong", 12, Bait("shell_edits", 0.5), TRAJECTORY)
    # the fast new-case writer emits them in block style, and they load back equal
    (tmp_path / "fresh").mkdir()
    Corpus.init(tmp_path / "fresh", "fresh")
    written = write_new(tmp_path / "fresh", again, stored.files, "cases") / "case.yaml"
    loaded = parse_case(written, load_yaml(written))
    assert (loaded.max_turns, loaded.bait, loaded.trajectory) == (12, again.bait, TRAJECTORY)
    assert "    - tool: Read\n" in written.read_text()


def test_the_fields_are_part_of_the_case_fingerprint_only_when_set(tmp_path: Path) -> None:
    corpus, _, case = build_corpus(tmp_path)
    (stored,) = corpus.load_all()
    plain = case_fingerprint(stored.case, stored.files)
    # a case without the fields keeps the fingerprint it had before they existed
    canonical = {"id": case.id, "prompt": case.prompt, "base_commit": case.base_commit,
                 "fix_commit": case.fix_commit, "setup": to_full_mapping(case.setup),
                 "grader": to_full_mapping(case.grader),
                 "oracle_patch": hashlib.sha256(stored.files.oracle_patch).hexdigest(),
                 "grader_files": {p: hashlib.sha256(c).hexdigest() for p, c in stored.files.grader_files}}
    assert plain == hashlib.sha256(json.dumps(canonical, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    changed = {case_fingerprint(replace(stored.case, **fields), stored.files) for fields in (
        {"max_turns": 12}, {"max_turns": 13}, {"bait": Bait("shell_edits", 0.5)}, {"trajectory": TRAJECTORY},
        {"trajectory": replace(TRAJECTORY, mode="strict")})}
    assert len(changed) == 5 and plain not in changed
