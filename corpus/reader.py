"""The typed reader of one YAML mapping that every schema module validates with: each error names file, field and
line."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal, overload

from corpus.errors import CorpusError
from corpus.model import SHA, Choice
from corpus.yamlio import line_of


class Reader:
    """Reads typed fields out of one mapping, raising CorpusError with file, field and line."""

    def __init__(self, path: Path, data: Any, prefix: str = "") -> None:
        self.path = path
        self.prefix = prefix
        if not isinstance(data, dict):
            raise CorpusError(path, f"expected a mapping, found {kind(data)}", field=prefix.rstrip(".") or None,
                              line=line_of(data))
        self.data = data
        self.seen: set[str] = set()

    def fail(self, key: str, message: str) -> CorpusError:
        return CorpusError(self.path, message, field=self.prefix + key, line=line_of(self.data, key))

    def fail_item(self, key: str, index: int, message: str) -> CorpusError:
        """An error in item index of the list under key, at that item's own line (`field: key[index]`)."""
        items = self.data.get(key)
        line = line_of(items, index) if getattr(items, "lc", None) is not None else line_of(self.data, key)
        return CorpusError(self.path, message, field=f"{self.prefix}{key}[{index}]", line=line)

    def _get(self, key: str, required: bool) -> Any:
        self.seen.add(key)
        if key not in self.data or self.data[key] is None:
            if required:
                # A misspelt required key is reported as the unknown key it is, with the suggestion.
                typo = difflib.get_close_matches(key, [str(k) for k in self.data if k not in self.seen], n=1,
                                                 cutoff=0.75)
                if typo:
                    raise self.fail(typo[0], unknown_key_message(typo[0], [key]))
                raise CorpusError(self.path, "missing required field", field=self.prefix + key,
                                  line=line_of(self.data))
            return None
        return self.data[key]

    def raw(self, key: str) -> Any:
        """The value under key as YAML gave it (None when absent), marked as read."""
        return self._get(key, False)

    @overload
    def text(self, key: str, *, required: Literal[True]) -> str: ...
    @overload
    def text(self, key: str, *, default: str) -> str: ...
    @overload
    def text(self, key: str, *, required: bool = False, default: str | None = None) -> str | None: ...

    def text(self, key: str, *, required: bool = False, default: str | None = None) -> str | None:
        value = self._get(key, required)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(key, f"expected text, found {kind(value)}")
        text = str(value)
        if required and not text.strip():
            raise self.fail(key, "must not be empty")
        return text

    def integer(self, key: str, *, default: int, minimum: int = 1) -> int:
        value = self._get(key, False)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected a whole number, found {kind(value)}")
        if value < minimum:
            raise self.fail(key, f"must be at least {minimum}")
        return value

    def number(self, key: str, *, default: float | None) -> float | None:
        value = self._get(key, False)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, f"expected a number, found {kind(value)}")
        return float(value)

    def boolean(self, key: str, *, default: bool = False) -> bool:
        value = self._get(key, False)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, found {kind(value)}")
        return value

    def choice(self, key: str, choices: tuple[Choice, ...], *, default: Choice) -> Choice:
        value = self.text(key, default=default)
        for choice in choices:
            if choice == value:
                return choice
        raise self.fail(key, f"must be one of {', '.join(choices)}, found {value!r}")

    def strings(self, key: str) -> tuple[str, ...]:
        value = self._get(key, False)
        if value is None:
            return ()
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list of text, found {kind(value)}")
        for index, item in enumerate(value):
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                raise self.fail_item(key, index, f"expected a list of text, found an item of {kind(item)}")
        return tuple(str(item) for item in value)

    def sha(self, key: str) -> str:
        value = self.text(key, required=True)
        if not SHA.match(value):
            raise self.fail(key, f"expected a full lowercase commit sha, found {value!r}")
        return value

    def child(self, key: str) -> Reader | None:
        value = self._get(key, False)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a mapping, found {kind(value)}")
        return Reader(self.path, value, f"{self.prefix}{key}.")

    def finish(self) -> None:
        """Reject the first key no field read: every known key at this place has been read by now."""
        for key in self.data:
            if key not in self.seen:
                raise self.fail(str(key), unknown_key_message(str(key), self.seen))


def unknown_key_message(key: str, known: Iterable[str]) -> str:
    """`unknown key 'promt' (did you mean 'prompt'?)`: the nearest known key, when one is close enough."""
    close = difflib.get_close_matches(key, sorted(known), n=1)
    return f"unknown key {key!r}" + (f" (did you mean {close[0]!r}?)" if close else "")


def kind(value: Any) -> str:
    """What a YAML value is, in the words of an error message (`a mapping`, `text`, `nothing`)."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, (int, float)):
        return "a number"
    return "text"
