"""What a demo commit is made of: its author, message and operations, and the helpers that write them."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from datetime import UTC, datetime

START = datetime(2024, 1, 1, 10, 0, 0, tzinfo=UTC)

AUTHORS = {
    "dana": ("Dana Reyes", "dana@shop.example"),
    "sam": ("Sam Okafor", "sam@shop.example"),
    "lee": ("Lee Park", "lee@shop.example"),
}


@dataclass(frozen=True)
class Write:
    path: str
    text: str


@dataclass(frozen=True)
class Edit:
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Delete:
    path: str


Op = Write | Edit | Delete


@dataclass(frozen=True)
class Commit:
    message: str
    author: str
    ops: tuple[Op, ...] = field(default_factory=tuple)


MARGIN = " " * 12


def block(text: str) -> str:
    """File text written in HISTORY below: drop the leading newline and the 12-space source margin."""
    if not text.startswith("\n"):
        return text
    lines = text[1:].split("\n")
    for line in lines:
        if line.strip() and not line.startswith(MARGIN):
            raise ValueError(f"line is not indented by the margin: {line!r}")
    return "\n".join(line[len(MARGIN) :] if line.strip() else "" for line in lines)


def W(path: str, text: str) -> Write:
    return Write(path, block(text))


def E(path: str, old: str, new: str) -> Edit:
    return Edit(path, block(old), block(new))


def C(message: str, author: str, *ops: Op) -> Commit:
    return Commit(textwrap.dedent(message).strip() + "\n", author, ops)
