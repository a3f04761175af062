"""A script: the steps a scripted model plays, one per model call, and the usage it reports for each call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

StepKind = Literal["shell", "read", "edit", "finish"]


@dataclass(frozen=True)
class Usage:
    """The tokens one model call reports, in disjoint buckets; each API spells them its own way."""

    input: int
    """Prompt tokens neither read from nor written to a cache."""
    cache_read: int
    """Prompt tokens read from the cache."""
    cache_write: int
    """Prompt tokens written to the cache."""
    output: int
    """Generated tokens, reasoning included."""
    reasoning: int
    """The part of output spent on reasoning."""

    @property
    def prompt(self) -> int:
        """Every prompt token: what OpenAI's and Gemini's prompt counts hold."""
        return self.input + self.cache_read + self.cache_write


@dataclass(frozen=True)
class Shell:
    """Run a command with the CLI's shell tool."""

    command: str
    """The shell command line."""
    expect: str = ""
    """Text the tool's result must hold (the server fails the next call otherwise); empty: anything."""
    kind: StepKind = field(default="shell", init=False)
    """The step's kind, for the per-CLI tool mapping."""


@dataclass(frozen=True)
class Read:
    """Read a file with the CLI's read tool (a shell `cat` where the CLI has none)."""

    path: str
    """The file, relative to the workspace."""
    expect: str = ""
    """Text the tool's result must hold; empty: anything."""
    kind: StepKind = field(default="read", init=False)
    """The step's kind, for the per-CLI tool mapping."""


@dataclass(frozen=True)
class Edit:
    """Replace one exact text in a file with the CLI's own edit tool."""

    path: str
    """The file, relative to the workspace."""
    old: str
    """The text to replace: whole lines, found once in the file."""
    new: str
    """What replaces it."""
    expect: str = ""
    """Text the tool's result must hold; empty: anything."""
    kind: StepKind = field(default="edit", init=False)
    """The step's kind, for the per-CLI tool mapping."""


@dataclass(frozen=True)
class Finish:
    """End the conversation with a text message (no tool call)."""

    text: str
    """The final message."""
    kind: StepKind = field(default="finish", init=False)
    """The step's kind, for the per-CLI tool mapping."""


Step = Shell | Read | Edit | Finish


@dataclass(frozen=True)
class Script:
    """What the scripted model answers: step i answers the conversation's i-th model call."""

    steps: tuple[Step, ...]
    """The steps, usually ending in a Finish (an aider run ends with its one edit reply)."""
    usage: tuple[Usage, ...]
    """The usage reported for each step's call (as many as steps)."""
    side_usage: Usage = Usage(input=11, cache_read=0, cache_write=0, output=3, reasoning=0)
    """The usage reported for a side request (a title, a router or a commit message request)."""
    side_text: str = "Fix add"
    """What a side request is answered with."""

    def __post_init__(self) -> None:
        if len(self.usage) != len(self.steps):
            raise ValueError(f"a script needs one usage per step: {len(self.steps)} steps, {len(self.usage)} usages")

    def total(self, calls: int | None = None) -> Usage:
        """The usage of the first `calls` steps (all of them by default), summed bucket by bucket."""
        played = self.usage[: len(self.steps) if calls is None else calls]
        return Usage(*(sum(getattr(u, name) for u in played)
                       for name in ("input", "cache_read", "cache_write", "output", "reasoning")))


def numbered_usage(steps: int) -> tuple[Usage, ...]:
    """Distinct, recognisable usage per call: call n (from 1) reports n*1000+100 uncached, n*1000+200 cache reads,
    n*10+3 cache writes, n*10+40 output of which n+4 reasoning, so any sum or mix-up shows in a test."""
    return tuple(Usage(input=n * 1000 + 100, cache_read=n * 1000 + 200, cache_write=n * 10 + 3, output=n * 10 + 40,
                       reasoning=n + 4) for n in range(1, steps + 1))
