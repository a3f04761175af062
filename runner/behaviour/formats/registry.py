"""Every transcript format, in detection order: the first that recognises a transcript reads it.

The formats that are one JSON document come first, because a whole document is recognised before its lines are
looked at: a pretty-printed trajectory file has lines that look like events of a stream. The stream formats
follow: for each of a stream's first JSON objects in turn, the first format here that recognises it decides, so
where two formats could take one object the one with the narrower test comes first, and generic, which takes any
``{"tool", "args"}`` line, comes last."""

from __future__ import annotations

from runner.behaviour.formats import (
    aider,
    atif,
    claude,
    codex,
    gemini,
    gemini_json,
    generic,
    mini_swe_agent,
    opencode,
    swe_agent,
)
from runner.behaviour.formats.base import TranscriptFormat

REGISTRY: list[TranscriptFormat] = [
    mini_swe_agent.FORMAT,
    atif.FORMAT,
    swe_agent.FORMAT,
    gemini_json.FORMAT,
    codex.FORMAT,
    opencode.FORMAT,
    claude.FORMAT,
    gemini.FORMAT,
    aider.FORMAT,
    generic.FORMAT,
]
"""The formats in detection order (documents, then streams)."""
