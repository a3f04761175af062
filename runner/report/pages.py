"""What the report's and compare's HTML pages share: the Jinja environment (autoescaping every value) and the
page's atomic write."""

from __future__ import annotations

from pathlib import Path

from jinja2 import Environment, PackageLoader, select_autoescape

from corpus.fsutil import atomic_write_text
from runner.behaviour.metrics import Spread
from runner.report.artifacts import ARTIFACT_CAP, seconds
from runner.report.behaviour import count, dollars, tokens


def rate(value: float | None) -> str:
    """A rate as a whole percentage, or a dash when there is none."""
    return "—" if value is None else f"{value:.0%}"


def at(values: dict[int, float], k: int) -> str:
    """An estimator at k with two decimals, or a dash when it is not defined at k."""
    return f"{values[k]:.2f}" if k in values else "—"


def size(value: int | None) -> str:
    """A byte count for a person: 812 B, 14.2 KB, 3.1 MB."""
    if value is None:
        return ""
    if value < 1000:
        return f"{value} B"
    return f"{value / 1000:.1f} KB" if value < 1_000_000 else f"{value / 1_000_000:.1f} MB"


SHOWN = {"figure": count, "tokens": tokens, "dollars": dollars, "seconds": seconds}
"""How a spread's values are shown, by kind."""


def spread_text(value: Spread | None, kind: str = "figure") -> str:
    """A spread as its median, with its min–max when they show differently: "2", "2 (1–3)"; a dash when unknown."""
    if value is None:
        return "—"
    show = SHOWN[kind]
    low, high = show(value.minimum), show(value.maximum)
    return show(value.median) if low == high else f"{show(value.median)} ({low}–{high})"


def environment() -> Environment:
    """The templates under runner/report/templates, every value escaped (untrusted text is never marked safe)."""
    env = Environment(loader=PackageLoader("runner.report", "templates"),
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.filters["pct"] = rate
    env.filters["at"] = at
    env.filters["seconds"] = seconds
    env.filters["size"] = size
    env.filters["figure"] = count
    env.filters["tokens"] = tokens
    env.filters["dollars"] = dollars
    env.filters["spread"] = spread_text
    env.globals["artifact_cap"] = ARTIFACT_CAP
    return env


def write_page(path: Path, text: str) -> None:
    """Write a page atomically."""
    atomic_write_text(path, text)
