"""behaviour.json on disk: written with its digest in the result, trusted only while its bytes are the recorded
ones, read back as data."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from runner.runs.behaviour_record import (
    BEHAVIOUR_FILE,
    Behaviour,
    Metrics,
    Tokens,
    ToolCall,
    behaviour_problem,
    read_behaviour,
    write_behaviour,
)
from runner.runs.result import TrialResult

RECORD = Behaviour("generic", "parsed", session_id="s1", llm_calls=2,
                   tool_calls=(ToolCall("shell", "bash", {"command": "ls"}, "ls", 0, "ok"),),
                   tokens=Tokens(10, 100, None, 5, None), cost_usd=0.25, cost_source="agent")
METRICS = Metrics({"tool_calls": 1, "cost_usd": 0.25}, {"bash": 1})


def result(**changes: object) -> TrialResult:
    return TrialResult("cart", "agent", 1, "pass", "tests pass", "f" * 64, "2025-01-01T00:00:00+00:00",
                       **changes)  # type: ignore[arg-type]


def test_write_records_the_digest_and_fills_cost_and_tokens(tmp_path: Path) -> None:
    written = write_behaviour(tmp_path, result(), RECORD, METRICS)
    data = (tmp_path / BEHAVIOUR_FILE).read_bytes()
    assert written.behaviour == {"format": "generic", "status": "parsed",
                                 "sha256": hashlib.sha256(data).hexdigest()}
    assert (written.cost_usd, written.tokens) == (0.25, 115)
    document = json.loads(data)
    assert data.decode() == json.dumps(document, indent=2, sort_keys=True) + "\n"
    assert (document["format"], document["metrics"], document["calls_by_tool"]) == (
        1, {"tool_calls": 1, "cost_usd": 0.25}, {"bash": 1})
    assert document["record"]["tool_calls"][0] == {
        "name": "shell", "raw_name": "bash", "arguments": {"command": "ls"}, "command": "ls", "exit_code": 0,
        "status": "ok"}
    assert read_behaviour(tmp_path) == document
    assert behaviour_problem(tmp_path, written) is None


def test_cost_and_tokens_the_result_already_has_are_kept(tmp_path: Path) -> None:
    written = write_behaviour(tmp_path, result(cost_usd=1.5, tokens=7), RECORD, METRICS)
    assert (written.cost_usd, written.tokens) == (1.5, 7)


def test_a_changed_or_missing_file_is_a_problem(tmp_path: Path) -> None:
    written = write_behaviour(tmp_path, result(), RECORD, METRICS)
    path = tmp_path / BEHAVIOUR_FILE
    path.write_text(path.read_text().replace('"ls"', '"rm -rf /"'))
    assert behaviour_problem(tmp_path, written) == f"{path}: does not match the digest its result.json recorded"
    path.unlink()
    assert behaviour_problem(tmp_path, written) == f"{path}: recorded in result.json but missing"
    assert read_behaviour(tmp_path) is None


def test_a_result_without_behaviour_has_no_problem_and_a_non_object_reads_as_none(tmp_path: Path) -> None:
    assert behaviour_problem(tmp_path, result()) is None
    (tmp_path / BEHAVIOUR_FILE).write_text("[1, 2]\n")
    assert read_behaviour(tmp_path) is None
    (tmp_path / BEHAVIOUR_FILE).write_text("{not json")
    assert read_behaviour(tmp_path) is None
