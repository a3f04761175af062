"""Cost from a price table the user supplies (``runner run --prices FILE``), for agents that report tokens but no
cost: ``cost_source: price_table``. A cost the agent reported is never replaced.

The file (YAML or JSON) maps a model name, as the transcript names it, to US dollars per million tokens::

    claude-sonnet-4-5: {input: 3.0, cache_read: 0.30, cache_write: 3.75, output: 15.0}
    gpt-5: {input: 1.25, cache_read: 0.125, output: 10.0}

``input`` and ``output`` are required; a cache price left out cannot price a trial that used that cache.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.yamlio import load_yaml
from runner.runs.behaviour_record import Behaviour

BUCKETS = ("input", "cache_read", "cache_write", "output")
"""The token buckets a price is given for (reasoning is inside output)."""


@dataclass(frozen=True)
class Price:
    """One model's prices in US dollars per million tokens (None: not given)."""

    input: float
    """Uncached prompt tokens."""
    output: float
    """Generated tokens, reasoning included."""
    cache_read: float | None = None
    """Prompt tokens read from a cache."""
    cache_write: float | None = None
    """Prompt tokens written to a cache."""


PriceTable = dict[str, Price]
"""Prices by model name."""


def _price(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise UsageError(f"{where}: expected a number of dollars per million tokens >= 0, got {value!r}")
    return float(value)


def price_table(data: Any, source: str) -> PriceTable:
    """A price table from its parsed file (UsageError naming the file and entry on anything else)."""
    if not isinstance(data, dict) or not data:
        raise UsageError(f"{source}: expected a mapping of model names to prices")
    table: PriceTable = {}
    for model, prices in data.items():
        where = f"{source}: {model}"
        if not isinstance(prices, dict):
            raise UsageError(f"{where}: expected {{input, cache_read, cache_write, output}}, got {prices!r}")
        unknown = [str(k) for k in prices if k not in BUCKETS]
        if unknown:
            raise UsageError(f"{where}: unknown key {unknown[0]!r} (expected {', '.join(BUCKETS)})")
        missing = [k for k in ("input", "output") if k not in prices]
        if missing:
            raise UsageError(f"{where}: {missing[0]} is required")
        table[str(model)] = Price(*(_price(prices[k], f"{where}.{k}") for k in ("input", "output")),
                                  *(None if prices.get(k) is None else _price(prices[k], f"{where}.{k}")
                                    for k in ("cache_read", "cache_write")))
    return table


def load_prices(path: Path) -> PriceTable:
    """The price table in a YAML or JSON file."""
    return price_table(load_yaml(path), str(path))


def lookup(table: PriceTable, model: str) -> Price | None:
    """A model's price: its exact name, else the name without a provider prefix (``anthropic/claude-x``)."""
    return table.get(model) or table.get(model.rsplit("/", 1)[-1])


def priced(record: Behaviour, table: PriceTable) -> Behaviour:
    """The record with its cost from the table when the agent reported none and the record names a priced model
    and has tokens; otherwise the record unchanged (a bucket with tokens but no price cannot be priced)."""
    if record.cost_source == "agent" or record.cost_usd is not None or record.model is None:
        return record
    if record.status in ("unparsed", "none"):
        return record
    price = lookup(table, record.model)
    tokens = record.tokens
    if price is None or tokens.total is None:
        return record
    total = Decimal(0)
    for bucket in BUCKETS:
        count = getattr(tokens, bucket)
        if not count:
            continue
        rate = getattr(price, bucket)
        if rate is None:
            return record
        total += Decimal(count) * Decimal(str(rate))
    return replace(record, cost_usd=float(total / Decimal(1_000_000)), cost_source="price_table")
