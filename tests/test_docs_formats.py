"""docs/formats/ says what the code reads and writes: each page's field table names exactly the fields the schema
knows, the model defines and a real record holds, and every relative link of DESIGN.md, README.md and docs/
leads to a file that exists."""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corpus.model import Bait, Case, CorpusConfig, Invariant, Step, Trajectory
from corpus.reader import Reader
from corpus.schema import parse_case, parse_config, to_full_mapping
from corpus.yamlio import parse_yaml
from runner.behaviour.metrics import trial_metrics
from runner.behaviour.parse import parse
from runner.runs.behaviour_record import behaviour_document
from runner.runs.manifest import RunManifest
from runner.runs.merge import merge_runs
from runner.runs.result import TrialResult
from runner.sandbox.egress import NETWORK_LOG, Attempt
from runner.scorecard.card import Scorecard
from runner.settings import RecordedSettings, Settings
from tests.testing.helloserver import hello_server, name_host
from tests.testing.trialkit import FAST_GRADER, agent, graded_quickly, variants

ROOT = Path(__file__).resolve().parent.parent
FORMATS = ROOT / "docs" / "formats"

FREE = {
    "corpus.yaml": {"behaviour.directions"},
    "case.yaml": {"trajectory.max_calls", "trajectory.steps[].arguments", "http_fixture.routes[].headers"},
    "run.json": {"digests", "directions", "runtime.agent_commands", "resumed[].runtime",
                 "cases_meta.*.trajectory.max_calls", "cases_meta.*.trajectory.steps[].arguments"},
    "result.json": {"scorecard"},
    "behaviour.json": {"calls_by_tool", "record.tool_calls[].arguments"},
    "scorecard": set(),
    "network.json": set(),
    "checklist": set(),
}
"""Mappings whose keys are the user's or the data's (metric, tool, variant and header names, trial keys): the page
documents the mapping, not its keys. result.json's scorecard has a page of its own."""
KEYED = {"run.json": {"cases_meta"}}
"""Mappings keyed by case id whose values have fixed fields, written `cases_meta.*.title` on the page."""
NOT_MADE_HERE = {"run.json": {"triage."}}
"""Documented fields the test's records leave empty: a triage run's record (runner triage; tests/runner/gate)."""


# --- reading the pages ---------------------------------------------------------------------------------------


def page(name: str) -> str:
    return (FORMATS / name).read_text(encoding="utf-8")


def documented(text: str) -> set[str]:
    """The field names of every table whose first header cell is `field`."""
    names: set[str] = set()
    in_table = False
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if not line.startswith("|"):
            in_table = False
        elif cells[0] == "field":
            in_table = True
        elif in_table and not set(cells[0]) <= set("-: "):
            found = re.fullmatch(r"`([^`]+)`", cells[0])
            assert found, f"a field table's first cell must be one `name`: {line!r}"
            names.add(found.group(1))
    return names


def yaml_blocks(text: str) -> list[str]:
    return re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL)


# --- what the code holds ---------------------------------------------------------------------------------------


def flatten(value: Any, fmt: str, prefix: str = "") -> set[str]:
    """Every key path of a JSON-like value: `a.b`, `a.list[].c`, `map.*.c` for the KEYED maps."""
    keys: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            keyed = prefix.removesuffix(".") in KEYED.get(fmt, ())
            path = prefix + ("*" if keyed else str(key))
            if not keyed:
                keys.add(path)
            if path not in FREE[fmt]:
                keys |= flatten(item, fmt, path + ".")
    elif isinstance(value, list):
        for item in value:
            keys |= flatten(item, fmt, prefix.removesuffix(".") + "[].")
    return keys


def dataclass_keys(cls: type, prefix: str = "") -> set[str]:
    """Every field path a dataclass defines, through its nested dataclasses (optional, tuples of, maps of)."""
    if cls is RecordedSettings:  # written flat: the settings' fields beside the bubblewrap version
        return {prefix + item.name for item in dataclasses.fields(Settings)} | {prefix + "bwrap_version"}
    keys: set[str] = set()
    hints = typing.get_type_hints(cls)
    for item in dataclasses.fields(cls):
        path = prefix + item.name
        keys.add(path)
        inner = _dataclass_in(hints[item.name])
        if inner is not None:
            shape, sub = inner
            keys |= dataclass_keys(sub, path + {"one": ".", "list": "[].", "map": ".*."}[shape])
    return keys


def _dataclass_in(hint: Any) -> tuple[str, type] | None:
    args = typing.get_args(hint)
    origin = typing.get_origin(hint)
    if dataclasses.is_dataclass(hint):
        return "one", typing.cast(type, hint)
    if origin in (typing.Union, types.UnionType):
        return next((found for arg in args if (found := _dataclass_in(arg))), None)
    if origin is tuple and args and dataclasses.is_dataclass(args[0]):
        return "list", args[0]
    if origin is dict and len(args) == 2 and dataclasses.is_dataclass(args[1]):
        return "map", args[1]
    return None


def without_free(keys: set[str], fmt: str) -> set[str]:
    return {key for key in keys if not any(key.startswith((free + ".", free + "[]")) for free in FREE[fmt])}


def schema_keys(monkeypatch: pytest.MonkeyPatch, parse_document: Any) -> tuple[Any, set[str]]:
    """What parse_document returns, and every key the schema's readers knew at each place (`finish` rejects the
    keys no field read, so what a reader has seen then is every key it accepts)."""
    known: set[str] = set()
    finish = Reader.finish

    def recording(reader: Any) -> None:
        known.update(re.sub(r"\[\d+\]", "[]", reader.prefix) + key for key in reader.seen)
        finish(reader)

    monkeypatch.setattr(Reader, "finish", recording)
    return parse_document(), known


def assert_same(fmt: str, documented_keys: set[str], code_keys: set[str], what: str) -> None:
    missing = sorted(code_keys - documented_keys)
    stale = sorted(documented_keys - code_keys)
    assert not missing, f"{fmt}: {what} holds fields docs/formats does not document: {missing}"
    assert not stale, f"{fmt}: docs/formats documents fields {what} does not hold: {stale}"


# --- the YAML formats ------------------------------------------------------------------------------------------


def test_corpus_yaml_page_documents_what_the_schema_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    text = page("corpus-yaml.md")
    names = documented(text)
    example = parse_yaml(yaml_blocks(text)[0], Path("corpus.yaml"))
    config, known = schema_keys(monkeypatch, lambda: parse_config(Path("corpus.yaml"), example))
    assert isinstance(config, CorpusConfig)
    assert_same("corpus.yaml", names, without_free(known, "corpus.yaml"), "the schema (corpus.schema.parse_config)")
    assert_same("corpus.yaml", names, flatten(example, "corpus.yaml"), "the page's example")


def test_case_yaml_page_documents_what_the_schema_reads_and_the_model_defines(
        monkeypatch: pytest.MonkeyPatch) -> None:
    text = page("case-yaml.md")
    names = documented(text)
    example = parse_yaml(yaml_blocks(text)[0], Path("case.yaml"))
    case, known = schema_keys(monkeypatch, lambda: parse_case(Path("case.yaml"), example))
    assert isinstance(case, Case)
    assert_same("case.yaml", names, without_free(known, "case.yaml"), "the schema (corpus.schema.parse_case)")
    assert_same("case.yaml", names, flatten(example, "case.yaml"), "the page's example")
    assert_same("case.yaml", names, without_free(dataclass_keys(Case), "case.yaml"), "corpus.model.Case")
    assert_same("case.yaml", names, flatten(to_full_mapping(case), "case.yaml"), "the parsed example")


# --- the JSON records of a real run ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Two shards of a sandboxed agent run (an agent that fixes, reports a tool call, edits the grader's test
    file, adds a conftest.py and a frame lookup the grader's seal sees) on a case with every behaviour and scorecard field, their merge, a resume and a
    regrade: run.json, result.json, behaviour.json and the scorecard with every field filled that one can."""
    tmp = tmp_path_factory.mktemp("formats")
    bench = graded_quickly(tmp, trajectory=Trajectory(steps=(Step("shell"),), forbidden_tools=("Bash",)),
                           invariants=(Invariant("adds", FAST_GRADER),), allowed_paths=("calc.py",),
                           risk_flags=("payments",), max_turns=5, bait=Bait("tool_calls", 0))
    command = (agent("calls", shlex.quote('Bash:{"command": "pytest"}'))
               + " && echo '# edited' >> test_calc.py && echo 'x = 1' > conftest.py"
               + " && echo 'import sys; _here = sys._getframe(0)' >> calc.py")
    shards = [bench.run(variants=variants(caller=command), trials=2, shard=f"{i}/2", name="docs").directory
              for i in (1, 2)]
    merged = merge_runs(shards, tmp / "merged").directory
    bench.run(resume=shards[0])
    regraded = bench.run(mode="regrade", patch_from=merged).directory
    yield {"shard": shards[0], "merged": merged, "regraded": regraded}


def records(directories: list[Path], name: str) -> list[Any]:
    return [json.loads(path.read_text()) for directory in directories for path in directory.rglob(name)
            if ".staging" not in str(path)]


def json_page_matches(fmt: str, page_name: str, cls: type | None, written: list[Any]) -> None:
    names = documented(page(page_name))
    code = set().union(*(flatten(record, fmt) for record in written))
    if cls is not None:
        code |= without_free(dataclass_keys(cls), fmt)
    unmade = {name for name in names - code if any(name.startswith(p) for p in NOT_MADE_HERE.get(fmt, ()))}
    assert_same(fmt, names - unmade, code, "the code's record")


def test_run_json_page_documents_what_a_run_writes(real_run: dict[str, Path]) -> None:
    written = records(list(real_run.values()), "run.json")
    assert any(r["merged_from"] for r in written) and any(r["resumed"] for r in written)
    json_page_matches("run.json", "run-json.md", RunManifest, written)


def test_result_json_page_documents_what_a_trial_writes(real_run: dict[str, Path]) -> None:
    written = records([real_run["shard"], real_run["regraded"]], "result.json")
    assert any(r["regraded_from"] for r in written) and any(r["restored"] for r in written)
    assert all(r["trajectory"]["deviations"] and r["scorecard"] and r["behaviour"] for r in written)
    json_page_matches("result.json", "result-json.md", TrialResult, written)


def test_behaviour_json_page_documents_what_a_trial_writes(real_run: dict[str, Path]) -> None:
    written = records([real_run["shard"]], "behaviour.json")
    assert written and all(r["record"]["tool_calls"] for r in written)
    stream = '{"tool": "Read", "args": {"path": "a.py"}, "usage": {"input": 5, "output": 2}}\n'
    json_page_matches("behaviour.json", "behaviour-json.md", None,
                      [*written, behaviour_document(record := parse(stream, "generic"), trial_metrics(record))])


def test_scorecard_page_documents_what_a_trial_writes(real_run: dict[str, Path]) -> None:
    written = [r["scorecard"] for r in records([real_run["shard"]], "result.json")]
    assert written and all(card["invariants"] for card in written)
    json_page_matches("scorecard", "scorecard.md", Scorecard, written)


def test_network_json_page_documents_what_the_proxy_writes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with hello_server() as port:
        name_host(monkeypatch, "model.test", port)
        command = agent("egress", "connect:model.test:443", "get:http://model.test/", "connect:model.test:444",
                        "connect:github.com:443", f"direct:http://127.0.0.1:{port}/")
        run = graded_quickly(tmp_path).run(variants=variants(probe=command), agent_allow_hosts=(
            "model.test", "model.test:444", f"127.0.0.1:{port}"))
    (written,) = records([run.directory], NETWORK_LOG)
    kinds = {a["kind"] for a in written["attempts"]}
    assert kinds == {"connect", "http", "forward"} and written["forwarded"] and written["upstream_lookups"]
    assert any(a["error"] for a in written["attempts"]) and any(a["status"] is None for a in written["attempts"])
    example = json.loads(re.findall(r"```json\n(.*?)```", page("network-json.md"), flags=re.DOTALL)[0])
    keys = {f"attempts[].{f.name}" for f in dataclasses.fields(Attempt)}
    json_page_matches("network.json", "network-json.md", None, [written, example, {"attempts": [
        dict.fromkeys(k.removeprefix("attempts[].") for k in keys)]}])


# --- links ----------------------------------------------------------------------------------------------------


def markdown_files() -> list[Path]:
    return [ROOT / "DESIGN.md", ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("path", markdown_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file(path: Path) -> None:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        file = target.split("#", 1)[0]
        if not (path.parent / file).exists():
            broken.append(target)
    assert not broken, f"{path.relative_to(ROOT)}: links to nothing: {broken}"


def test_review_checklist_page_documents_what_sample_writes_and_report_reads(tmp_path: Path) -> None:
    from runner.report.review import VERDICTS, Entry, checklist_text

    text = checklist_text("r1", 3, [Entry("fixer/cart/1", "drawn at random", "wrong fix", "n")])
    written = parse_yaml(text, tmp_path / "checklist.yaml")
    example = parse_yaml(yaml_blocks(page("review-checklist.md"))[0], tmp_path / "example.yaml")
    for document in (written, example):
        assert documented(page("review-checklist.md")) == flatten(json.loads(json.dumps(document)), "checklist")
    assert all(f"`{verdict}`" in page("review-checklist.md") for verdict in VERDICTS)
