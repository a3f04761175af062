"""Behaviour against the baseline: the classification rule, directions from corpus.yaml, and runs whose trials'
behaviour.json files are written here (each vouched for by its result.json's digest, as trials record them)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from corpus import Corpus
from corpus.cli_support import run_cli
from corpus.errors import CorpusError
from runner.behaviour.metrics import Spread
from runner.cli import cli
from runner.gate.behaviour import DEFAULT_DIRECTIONS, METRICS, classify, directions_from
from runner.runs.load import load_run
from tests.testing.runbuilder import record_digests, write_corpus, write_run


def spread(median: float, trials: int = 3) -> Spread:
    return Spread(median, median, median, trials)


@pytest.mark.parametrize(("before", "after", "direction", "expected"), [
    (spread(4), spread(5), "lower", "regress"),        # +25%: exactly the threshold counts
    (spread(4), spread(4.9), "lower", "neutral"),      # +22.5%: under it
    (spread(4), spread(3), "lower", "improve"),        # -25%
    (spread(4), spread(3), "higher", "regress"),
    (spread(4), spread(8), "higher", "improve"),
    (spread(4), spread(8), "neutral", "neutral"),      # a neutral metric never improves or regresses
    (spread(0), spread(1), "lower", "regress"),        # any rise from 0 is an infinite change
    (spread(0), spread(0), "lower", "neutral"),
    (spread(4, trials=2), spread(9), "lower", "unknown"),  # fewer than 3 trials know it in the baseline
    (spread(4), spread(9, trials=2), "lower", "unknown"),
    (None, spread(9), "lower", "unknown"),
])
def test_classify(before: Spread | None, after: Spread | None, direction: str, expected: str) -> None:
    assert classify(before, after, direction) == expected  # type: ignore[arg-type]


def test_directions_override_the_defaults_and_set_unknown_names_aside() -> None:
    directions = directions_from({"tool_calls": "higher", "tool_call": "lower"}, "here")
    assert directions.by_metric == {**DEFAULT_DIRECTIONS, "tool_calls": "higher"}
    assert directions.unknown == ("tool_call",)
    assert set(DEFAULT_DIRECTIONS) == set(METRICS)
    assert [m for m in METRICS if DEFAULT_DIRECTIONS[m] == "neutral"] == [
        "env_assignments", "chain_segments", "max_chain_segments", "tool_edits", "longest_tool_streak"]


def test_corpus_yaml_behaviour_directions(tmp_path: Path) -> None:
    corpus = Corpus.init(tmp_path / "evals", "demo")
    config = corpus.root / "corpus.yaml"
    text = config.read_text()
    config.write_text(text + "behaviour:\n  directions:\n    tool_calls: higher\n    cost_usd: neutral\n")
    assert Corpus.open(corpus.root).config.behaviour_directions == (("tool_calls", "higher"), ("cost_usd", "neutral"))
    config.write_text(text + "behaviour:\n  directions:\n    tool_calls: fewer\n")
    with pytest.raises(CorpusError) as bad:
        Corpus.open(corpus.root)
    assert "behaviour.directions.tool_calls" in str(bad.value)
    assert "must be one of lower, higher, neutral, found 'fewer'" in str(bad.value)
    config.write_text(text + "behaviour:\n  direction:\n    tool_calls: lower\n")
    with pytest.raises(CorpusError, match=r"behaviour.direction"):
        Corpus.open(corpus.root)
    config.write_text(text + "behaviour:\n  directions:\n    Tool Calls: lower\n")
    with pytest.raises(CorpusError, match="expected a metric name"):
        Corpus.open(corpus.root)
    config.write_text(text + "behaviour:\n  directions: [tool_calls]\n")
    with pytest.raises(CorpusError, match="expected a mapping"):
        Corpus.open(corpus.root)


def add_behaviour(run_dir: Path, metrics: Mapping[str, Sequence[Mapping[str, float | None] | None]],
                  directions: Mapping[str, str] | None = None) -> Path:
    """Give trial t of each cell ("case" or "variant::case") the behaviour.json of metrics[key][t - 1] (None: no
    behaviour.json), with its digest in result.json as trials record it; record the run's directions."""
    for key, per_trial in metrics.items():
        variant, case_id = key.split("::", 1) if "::" in key else ("default", key)
        for trial, values in enumerate(per_trial, start=1):
            if values is None:
                continue
            folder = run_dir / variant / case_id / str(trial)
            document = {"format": 1, "record": {"tokens": {"input": 10, "cache_read": None, "cache_write": None,
                                                            "output": 5}},
                        "metrics": {**dict.fromkeys(METRICS), **values}, "calls_by_tool": {}}
            data = (json.dumps(document, indent=2, sort_keys=True) + "\n").encode()
            (folder / "behaviour.json").write_bytes(data)
            result = json.loads((folder / "result.json").read_text())
            result["behaviour"] = {"format": "generic", "status": "parsed",
                                   "sha256": hashlib.sha256(data).hexdigest()}
            (folder / "result.json").write_text(json.dumps(result, indent=2))
    if directions is not None:
        manifest = json.loads((run_dir / "run.json").read_text())
        manifest["directions"] = dict(directions)
        (run_dir / "run.json").write_text(json.dumps(manifest, indent=2))
    return record_digests(run_dir)


KINDS = {"a": "blocking", "b": "blocking", "c": "blocking"}


def calls(*values: float | None) -> list[dict[str, float | None]]:
    return [{"tool_calls": v} for v in values]


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    cells = {"a": "pppp", "b": "pppp", "c": "pppe"}
    base = write_run(root, "base", cells, kinds=KINDS)
    cand = write_run(root, "cand", cells, kinds=KINDS)
    add_behaviour(base, {"a": calls(4, 4, 4, 4), "b": calls(10, 10, 10, 10), "c": calls(2, 2, 2, 2)},
                  directions={"tool_calls": "lower"})
    # a: 4 -> 6 (+50%) counts; b: 10 -> 11 is under 25%; c: error trials are left out and the candidate's others
    # know the metric once (no behaviour.json, a None, a document without it), so c is unknown. Token buckets
    # count every trial with a behaviour.json, error trials included.
    add_behaviour(cand, {"a": calls(6, 6, 6, None), "b": calls(11, 11, 11, 11), "c": [*calls(2, None), None, {}],
                         }, directions={"tool_calls": "higher"})
    return root


def test_runs_with_written_behaviour(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert load_run(runs / "cand").trials[0].behaviour is not None
    assert run_cli(cli, "runner", ["compare", "--baseline", str(runs / "base"), "--candidate",
                                   str(runs / "cand")]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Behaviour ("))
    # The candidate's record is the one judged by: tool_calls is higher-is-better there.
    assert lines[start + 1:] == [
        "  directions: as run cand recorded them when it started",
        "  tool_calls (higher is better): 0 regress, 1 improve, 1 neutral, 1 unknown",
        "    improve  a: median 4 -> 6 (+50%) over 4 and 3 trials",
        "  54 metric x case pairs: 0 regress, 1 improve, 1 neutral, 52 unknown",
        "",
        "verdict: PASS (exit 0)"]
    assert "  tokens, input: 120 -> 110; per trial 10 -> 10 (+0.0%) over 12/11 trials" in lines
    assert "  tokens, output: 60 -> 55; per trial 5 -> 5 (+0.0%) over 12/11 trials" in lines
    assert not any(line.startswith(("  tokens, cache_read", "  tokens, cache_write")) for line in lines)


def test_baseline_record_when_the_candidate_has_none(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = json.loads((runs / "cand" / "run.json").read_text())
    del manifest["directions"]
    (runs / "cand" / "run.json").write_text(json.dumps(manifest))
    assert run_cli(cli, "runner", ["compare", "--baseline", str(runs / "base"), "--candidate",
                                   str(runs / "cand"), "--json"]) == 0
    behaviour = json.loads(capsys.readouterr().out)["behaviour"]
    assert behaviour["directions_source"] == "as run base recorded them when it started"
    assert [(c["key"], c["change"]) for c in behaviour["changes"] if c["metric"] == "tool_calls"] == [
        ("a", "regress"), ("b", "neutral"), ("c", "unknown")]
    assert [c["candidate"] for c in behaviour["changes"] if c["metric"] == "tool_calls"][2] == {
        "min": 2.0, "median": 2.0, "max": 2.0, "trials": 1}


def test_runs_without_behaviour_show_no_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_corpus(tmp_path / "evals", KINDS)
    for name in ("base", "cand"):
        write_run(tmp_path / "runs", name, {"a": "ppp", "b": "ppp", "c": "ppp"}, kinds=KINDS)
    assert run_cli(cli, "runner", ["compare", "--baseline", str(tmp_path / "runs" / "base"), "--candidate",
                                   str(tmp_path / "runs" / "cand")]) == 0
    out = capsys.readouterr().out
    assert "Behaviour (" not in out and "tokens, input" not in out
    assert run_cli(cli, "runner", ["compare", "--baseline", str(tmp_path / "runs" / "base"), "--candidate",
                                   str(tmp_path / "runs" / "cand"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["behaviour"]["directions_source"] == "the defaults (the runs recorded none)"
    assert {c["change"] for c in data["behaviour"]["changes"]} == {"unknown"}
    assert data["summary"]["tokens_by_bucket"]["input"] == [None, None]


def test_run_json_directions_must_be_names_and_directions(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = json.loads((runs / "cand" / "run.json").read_text())
    manifest["directions"] = {"tool_calls": 3}
    (runs / "cand" / "run.json").write_text(json.dumps(manifest))
    assert run_cli(cli, "runner", ["compare", "--baseline", str(runs / "base"), "--candidate",
                                   str(runs / "cand")]) == 3
    err = capsys.readouterr().err
    assert f"{runs / 'cand' / 'run.json'}: not a run manifest (ValueError: directions:" in err
    assert "Traceback" not in err


def test_a_changed_behaviour_file_is_bad_input(runs: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = runs / "cand" / "default" / "a" / "1" / "behaviour.json"
    path.write_text(path.read_text().replace('"tool_calls": 6', '"tool_calls": 1'))
    assert run_cli(cli, "runner", ["compare", "--baseline", str(runs / "base"), "--candidate",
                                   str(runs / "cand")]) == 3
    assert "does not match the digest its result.json recorded" in capsys.readouterr().err


def test_text_lists_five_changes_of_a_class_per_metric(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = [f"case{n}" for n in range(1, 8)]
    kinds = dict.fromkeys(names, "blocking")
    base = write_run(tmp_path / "runs", "base", dict.fromkeys(names, "ppp"), kinds=kinds)
    cand = write_run(tmp_path / "runs", "cand", dict.fromkeys(names, "ppp"), kinds=kinds)
    add_behaviour(base, {name: calls(2, 2, 2) for name in names})
    add_behaviour(cand, {name: calls(n, n, n) for n, name in enumerate(names, start=3)})
    assert run_cli(cli, "runner", ["compare", "--baseline", str(base), "--candidate", str(cand)]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("  tool_calls (lower is better): 7 regress, 0 improve, 0 neutral, 0 unknown")
    assert lines[start + 1:start + 8] == [
        "    regress  case1: median 2 -> 3 (+50%) over 3 and 3 trials",
        "    regress  case2: median 2 -> 4 (+100%) over 3 and 3 trials",
        "    regress  case3: median 2 -> 5 (+150%) over 3 and 3 trials",
        "    regress  case4: median 2 -> 6 (+200%) over 3 and 3 trials",
        "    regress  case5: median 2 -> 7 (+250%) over 3 and 3 trials",
        "    and 2 more regress (--json lists every case)",
        "  126 metric x case pairs: 7 regress, 0 improve, 0 neutral, 119 unknown"]
