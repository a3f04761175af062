"""Choosing a transcript's format (given, or detected by the registry's formats in order) and reading it into a
Behaviour; a transcript that cannot be read is an ``unparsed`` record with the reason, never an error of the
trial."""

from __future__ import annotations

import json

from runner.behaviour.formats import registry
from runner.behaviour.formats.base import TranscriptFormat
from runner.behaviour.jsonl import json_document, read_lines, starts_json
from runner.runs.behaviour_record import Behaviour, unparsed

FORMATS = (*(known.name for known in registry.REGISTRY), "none", "auto")
"""What --transcript-format accepts: a format, none (plain text) or auto (detect it)."""
DETECTED_OBJECTS = 20
"""A stream's first JSON objects that detection looks at (a long stream is not read whole to detect it)."""


def _document(text: str, documents: list[TranscriptFormat]) -> str | None:
    """The format of a transcript that is one JSON document (warnings around it allowed); None otherwise."""
    if "{" not in text:
        return None
    try:
        whole = json_document(text)
    except ValueError:
        return _cut_document(text, documents)
    if not isinstance(whole, dict):
        return None
    return next((known.name for known in documents if known.recognise(whole)), None)


def _cut_document(text: str, documents: list[TranscriptFormat]) -> str | None:
    """The format whose marks a pretty-printed document cut before its end still shows (it is then unparsed in
    that format, not plain text)."""
    lines = [line.strip() for line in text.splitlines() if line.strip().startswith(("{", "["))]
    if not lines or lines[0] != "{":
        return None  # not a pretty-printed document (a JSON-lines stream starts with a whole object)
    return next((known.name for known in documents if any(mark in text for mark in known.cut_marks)), None)


def detect(text: str) -> str:
    """The format of a transcript: the first document format that recognises it as a whole, else the first stream
    format that recognises one of its first JSON objects, earlier objects first (plain-text lines before them,
    such as a CLI's warnings, are passed over); ``none`` when nothing matches."""
    text = _array_as_lines(text)
    formats = registry.REGISTRY
    found = _document(text, [known for known in formats if known.document])
    if found is not None:
        return found
    streams = [known for known in formats if not known.document]
    for obj in read_lines(text, limit=DETECTED_OBJECTS).objects:
        found = next((known.name for known in streams if known.recognise(obj)), None)
        if found is not None:
            return found
    return "none"


def _array_as_lines(text: str) -> str:
    """A JSON array of events (``claude -p --output-format json --verbose`` prints the whole stream as one) as
    JSON lines; any other text as it is."""
    first = next((line.strip() for line in text.splitlines() if starts_json(line)), "")
    if not first.startswith("["):
        return text  # an object comes first: a stream or a document, not an array
    try:
        whole = json_document(text)
    except ValueError:
        return text
    if isinstance(whole, list) and whole and all(isinstance(item, dict) for item in whole):
        return "".join(json.dumps(item) + "\n" for item in whole)
    return text


def parse(text: str, format: str = "auto") -> Behaviour:
    """The behaviour record of a transcript in a format (``auto``: detected)."""
    named = {known.name: known for known in registry.REGISTRY}
    if format not in named and format not in ("none", "auto"):
        raise ValueError(f"unknown transcript format {format!r}")
    text = _array_as_lines(text)
    chosen = detect(text) if format == "auto" else format
    if chosen == "none":
        return Behaviour("none", "none", "plain text: no machine-readable transcript")
    reader = named[chosen]
    if not reader.document and not read_lines(text, limit=1).objects:
        return unparsed(chosen, f"no JSON lines in the transcript (expected {chosen})")
    try:
        return reader.parse(text)
    except (ValueError, TypeError, KeyError, AttributeError) as exc:
        return unparsed(chosen, f"{exc.__class__.__name__}: {exc}")
