"""Cost from the user's price table: exact for each bucket, only where the agent reported none and the record
names a priced model; a bad table is one error naming the file and entry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.errors import UsageError
from runner.behaviour.prices import Price, load_prices, priced
from runner.runs.behaviour_record import Behaviour, Tokens

TABLE = {"claude-sonnet-4-5": Price(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
         "gpt-5": Price(input=1.25, output=10.0, cache_read=0.125)}


def record(model: str | None, tokens: Tokens, **kw: object) -> Behaviour:
    return Behaviour("codex", "parsed", tokens=tokens, model=model, **kw)  # type: ignore[arg-type]


def test_every_bucket_is_priced_exactly() -> None:
    b = priced(record("claude-sonnet-4-5", Tokens(2_000_000, 10_000_000, 400_000, 100_000, 40_000)), TABLE)
    # 2M*3 + 10M*0.3 + 0.4M*3.75 + 0.1M*15 = 6 + 3 + 1.5 + 1.5
    assert (b.cost_usd, b.cost_source) == (12.0, "price_table")
    b = priced(record("gpt-5", Tokens(11_035, 19_968, 0, 435, 180)), TABLE)
    assert b.cost_usd == 0.02063975  # (11035*1.25 + 19968*0.125 + 435*10) / 1e6 = 20639.75 / 1e6, no float drift


def test_a_provider_prefix_is_dropped_when_the_exact_name_is_not_in_the_table() -> None:
    b = priced(record("openai/gpt-5", Tokens(1_000_000, None, None, 0)), TABLE)
    assert (b.cost_usd, b.cost_source) == (1.25, "price_table")


@pytest.mark.parametrize("given", [
    record("gpt-5", Tokens(10, 0, 0, 10), cost_usd=0.5, cost_source="agent"),  # the agent's cost stays
    record(None, Tokens(10, 0, 0, 10)),  # no model named
    record("o3", Tokens(10, 0, 0, 10)),  # a model the table does not price
    record("gpt-5", Tokens()),  # no tokens
    record("gpt-5", Tokens(10, 0, 5, 10)),  # cache writes without a cache-write price
    Behaviour("gpt-5", "unparsed", "bad", model="gpt-5"),
])
def test_what_cannot_be_priced_is_left_alone(given: Behaviour) -> None:
    assert priced(given, TABLE) is given


def test_load_yaml_and_json(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text("claude-sonnet-4-5: {input: 3, cache_read: 0.3, cache_write: 3.75, output: 15}\n"
                                     "gpt-5:\n  input: 1.25\n  cache_read: 0.125\n  output: 10\n")
    (tmp_path / "p.json").write_text(json.dumps({"claude-sonnet-4-5": {"input": 3, "cache_read": 0.3,
                                                                       "cache_write": 3.75, "output": 15},
                                                 "gpt-5": {"input": 1.25, "cache_read": 0.125, "output": 10}}))
    assert load_prices(tmp_path / "p.yaml") == TABLE
    assert load_prices(tmp_path / "p.json") == TABLE


@pytest.mark.parametrize(("text", "message"), [
    ("[1]", "p.yaml: expected a mapping of model names to prices"),
    ("m: {input: 1}", "p.yaml: m: output is required"),
    ("m: {input: 1, output: -2}", "p.yaml: m.output: expected a number of dollars per million tokens >= 0, got -2"),
    ("m: {input: 1, output: 2, cached: 1}", "p.yaml: m: unknown key 'cached'"),
    ("m: 3", "p.yaml: m: expected {input, cache_read, cache_write, output}, got 3"),
    ("m: {input: 1", "malformed YAML"),
])
def test_a_bad_table_names_the_file_and_entry(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "p.yaml").write_text(text)
    with pytest.raises(UsageError, match=r"p.yaml") as info:
        load_prices(tmp_path / "p.yaml")
    assert message in str(info.value)
