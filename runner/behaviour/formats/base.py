"""What a transcript format declares: its name, how it recognises itself and how it is read."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from runner.runs.behaviour_record import Behaviour


@dataclass(frozen=True)
class TranscriptFormat:
    """One transcript format, as the registry lists it."""

    name: str
    """The word behaviour.json records and ``--transcript-format`` takes (codex, mini-swe-agent, ...)."""
    recognise: Callable[[dict[str, Any]], bool]
    """Whether a JSON object is this format's: the whole document of a document format, else one event among a
    stream's first JSON objects."""
    parse: Callable[[str], Behaviour]
    """The record of a transcript in this format; ValueError, TypeError, KeyError or AttributeError when it cannot
    be read (the record is then unparsed with the reason)."""
    document: bool = False
    """The transcript is one JSON document (any number of lines), not one JSON object per line."""
    session: Callable[[Behaviour, str], Behaviour] | None = None
    """The record completed from the session file the CLI keeps beside its stream (the trial's session.jsonl:
    Codex's rollout, with its model and each model call's usage), when the format has one."""
    answered: Callable[[str], bool] | None = None
    """Whether the agent's stdout shows a model call answered, for a format read from a file the agent's
    commands could rewrite: such a file may say the model was never reached only when stdout shows none."""
    cut_marks: tuple[str, ...] = ()
    """Text a pretty-printed document of this format still shows when cut before its end (it is then unparsed in
    this format, not plain text); documents only."""


def event_type(event: dict[str, Any]) -> str | None:
    """An event's ``type`` when it is a string; None otherwise (an odd value never breaks detection)."""
    kind = event.get("type")
    return kind if isinstance(kind, str) else None
