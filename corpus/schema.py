"""Validate YAML mappings into the model, and turn the model back into minimal mappings."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from corpus.behaviourschema import parse_bait, parse_max_turns, parse_trajectory
from corpus.errors import CorpusError
from corpus.httpschema import parse_http_fixture
from corpus.model import (
    POLICIES,
    SHA,
    SLUG,
    STATUSES,
    Case,
    CorpusConfig,
    Defaults,
    Grader,
    Provenance,
    Rejection,
    Setup,
    SetupDefaults,
)
from corpus.scorecardschema import (
    parse_allowed_paths,
    parse_invariant_policy,
    parse_invariants,
    parse_risk_flags,
)
from corpus.yamlio import line_of


class _Reader:
    """Reads typed fields out of one mapping, raising CorpusError with file, field and line."""

    def __init__(self, path: Path, data: Any, prefix: str = "") -> None:
        self.path = path
        self.prefix = prefix
        if not isinstance(data, dict):
            raise CorpusError(path, f"expected a mapping, found {_kind(data)}", field=prefix.rstrip(".") or None,
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

    def text(self, key: str, *, required: bool = False, default: str | None = None) -> Any:
        value = self._get(key, required)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise self.fail(key, f"expected text, found {_kind(value)}")
        text = str(value)
        if required and not text.strip():
            raise self.fail(key, "must not be empty")
        return text

    def integer(self, key: str, *, default: int, minimum: int = 1) -> int:
        value = self._get(key, False)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"expected a whole number, found {_kind(value)}")
        if value < minimum:
            raise self.fail(key, f"must be at least {minimum}")
        return value

    def number(self, key: str, *, default: float | None) -> float | None:
        value = self._get(key, False)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(key, f"expected a number, found {_kind(value)}")
        return float(value)

    def boolean(self, key: str, *, default: bool = False) -> bool:
        value = self._get(key, False)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise self.fail(key, f"expected true or false, found {_kind(value)}")
        return value

    def choice(self, key: str, choices: tuple[str, ...], *, default: str) -> Any:
        value = self.text(key, default=default)
        if value not in choices:
            raise self.fail(key, f"must be one of {', '.join(choices)}, found {value!r}")
        return value

    def strings(self, key: str) -> tuple[str, ...]:
        value = self._get(key, False)
        if value is None:
            return ()
        if not isinstance(value, list):
            raise self.fail(key, f"expected a list of text, found {_kind(value)}")
        for index, item in enumerate(value):
            if isinstance(item, bool) or not isinstance(item, (str, int, float)):
                raise self.fail_item(key, index, f"expected a list of text, found an item of {_kind(item)}")
        return tuple(str(item) for item in value)

    def sha(self, key: str) -> str:
        value = self.text(key, required=True)
        if not SHA.match(value):
            raise self.fail(key, f"expected a full lowercase commit sha, found {value!r}")
        return value

    def child(self, key: str) -> _Reader | None:
        value = self._get(key, False)
        if value is None:
            return None
        if not isinstance(value, dict):
            raise self.fail(key, f"expected a mapping, found {_kind(value)}")
        return _Reader(self.path, value, f"{self.prefix}{key}.")

    def finish(self) -> None:
        """Reject the first key no field read: every known key at this place has been read by now."""
        for key in self.data:
            if key not in self.seen:
                raise self.fail(str(key), unknown_key_message(str(key), self.seen))


def unknown_key_message(key: str, known: Iterable[str]) -> str:
    """`unknown key 'promt' (did you mean 'prompt'?)`: the nearest known key, when one is close enough."""
    close = difflib.get_close_matches(key, sorted(known), n=1)
    return f"unknown key {key!r}" + (f" (did you mean {close[0]!r}?)" if close else "")


def _kind(value: Any) -> str:
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


def check_relative_path(path: Path, reader: _Reader, key: str, value: str, index: int | None = None) -> None:
    """A repository path: relative, no `..`, no empty parts (index: its place in the list under key)."""
    parts = value.replace("\\", "/").split("/")
    if value.startswith("/") or any(part in ("", ".", "..") for part in parts):
        message = f"must be a relative path inside the repository, found {value!r}"
        raise reader.fail(key, message) if index is None else reader.fail_item(key, index, message)


def parse_case(path: Path, data: Any, *, expected_id: str | None = None) -> Case:
    """Validate a case.yaml document into a Case."""
    r = _Reader(path, data)
    case_id = r.text("id", required=True)
    if not SLUG.match(case_id):
        raise r.fail("id", f"must be a slug of lowercase letters, digits and '-', found {case_id!r}")
    if expected_id is not None and case_id != expected_id:
        raise r.fail("id", f"{case_id!r} does not match its directory {expected_id!r}")
    title = r.text("title", required=True)
    if "\n" in title.strip():
        raise r.fail("title", "must be one line")
    prompt = r.text("prompt", required=True)
    base, fix = r.sha("base_commit"), r.sha("fix_commit")
    if base == fix:
        raise r.fail("fix_commit", "must differ from base_commit")
    status = r.choice("status", STATUSES, default="active")
    reason = r.text("deprecated_reason")
    if status == "deprecated" and not (reason and reason.strip()):
        raise CorpusError(path, "a deprecated case needs deprecated_reason", field="deprecated_reason",
                          line=line_of(data, "status"))
    grader_reader = r.child("grader")
    if grader_reader is None:
        raise CorpusError(path, "missing required field", field="grader", line=line_of(data))
    grader = _parse_grader(path, grader_reader)
    setup_reader = r.child("setup")
    setup = _parse_setup(setup_reader) if setup_reader else Setup()
    mined_reader = r.child("mined")
    policy = r.choice("policy", POLICIES, default="advisory")
    invariants = parse_invariants(r)
    case = Case(
        id=case_id,
        title=title.strip(),
        prompt=prompt,
        base_commit=base,
        fix_commit=fix,
        grader=grader,
        owner=r.text("owner"),
        policy=policy,
        critical=r.boolean("critical"),
        status=status,
        deprecated_reason=reason,
        holdout=r.boolean("holdout"),
        setup=setup,
        trigger_paths=r.strings("trigger_paths"),
        tags=r.strings("tags"),
        leak_override=r.text("leak_override"),
        mined=_parse_provenance(mined_reader) if mined_reader else None,
        max_turns=parse_max_turns(r),
        bait=parse_bait(r),
        trajectory=parse_trajectory(r),
        http_fixture=parse_http_fixture(r),
        allowed_paths=parse_allowed_paths(r),
        invariants=invariants,
        invariant_policy=parse_invariant_policy(r, policy, invariants),
        risk_flags=parse_risk_flags(r),
    )
    r.finish()
    return case


def _parse_grader(path: Path, r: _Reader) -> Grader:
    junit = r.text("junit")
    if junit is not None:
        check_relative_path(path, r, "junit", junit)
    deleted = r.strings("deleted")
    for index, item in enumerate(deleted):
        check_relative_path(path, r, "deleted", item, index)
    grader = Grader(
        command=r.text("command", required=True),
        timeout=r.integer("timeout", default=Grader.timeout),
        junit=junit,
        fail_to_pass=r.strings("fail_to_pass"),
        pass_to_pass=r.strings("pass_to_pass"),
        deleted=deleted,
        network=r.boolean("network"),
    )
    if (grader.fail_to_pass or grader.pass_to_pass) and grader.junit is None:
        raise r.fail("fail_to_pass", "test ids need grader.junit to be read")
    r.finish()
    return grader


def _parse_python(r: _Reader) -> str | None:
    python = r.text("python")
    if python is not None and not python.replace(".", "").isdigit():
        raise r.fail("python", f"expected a version such as 3.8, found {python!r}")
    return python


def _parse_setup(r: _Reader) -> Setup:
    python = _parse_python(r)
    setup = Setup(command=r.text("command"), python=python, timeout=r.integer("timeout", default=Setup.timeout))
    r.finish()
    return setup


def _parse_provenance(r: _Reader) -> Provenance:
    value = Provenance(
        score=r.number("score", default=0.0) or 0.0,
        evidence=r.strings("evidence"),
        subject=r.text("subject", default=""),
        message=r.text("message", default=""),
        authored=r.text("authored"),
        test_files=r.strings("test_files"),
        source_files=r.strings("source_files"),
        omitted_files=r.strings("omitted_files"),
        introducing_commits=r.strings("introducing_commits"),
        escape_days=r.number("escape_days", default=None),
        merge=r.boolean("merge"),
        branch_commits=_shas(r, "branch_commits"),
        setup_origin=r.strings("setup_origin"),
    )
    r.finish()
    return value


def _shas(r: _Reader, key: str) -> tuple[str, ...]:
    """A list of full commit shas."""
    values = r.strings(key)
    for index, value in enumerate(values):
        if not SHA.match(value):
            raise r.fail_item(key, index, f"expected full lowercase commit shas, found {value!r}")
    return values


def parse_config(path: Path, data: Any) -> CorpusConfig:
    """Validate a corpus.yaml document."""
    r = _Reader(path, data)
    name = r.text("name", required=True)
    defaults_reader = r.child("defaults")
    defaults = Defaults()
    if defaults_reader:
        setup_reader = defaults_reader.child("setup")
        defaults = Defaults(owner=defaults_reader.text("owner"),
                            policy=defaults_reader.choice("policy", POLICIES, default="advisory"),
                            setup=_parse_setup_defaults(setup_reader) if setup_reader else SetupDefaults())
        defaults_reader.finish()
    behaviour_reader = r.child("behaviour")
    directions: tuple[tuple[str, str], ...] = ()
    if behaviour_reader:
        directions = _parse_directions(behaviour_reader)
        behaviour_reader.finish()
    config = CorpusConfig(name=name, repo=r.text("repo"), defaults=defaults, test_globs=r.strings("test_globs"),
                          behaviour_directions=directions)
    r.finish()
    return config


DIRECTIONS = ("lower", "higher", "neutral")
"""What a behaviour metric's direction can be: lower or higher is better, or neither."""
METRIC_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _parse_directions(r: _Reader) -> tuple[tuple[str, str], ...]:
    """behaviour.directions: metric name -> lower | higher | neutral, in file order."""
    d = r.child("directions")
    if d is None:
        return ()
    out = []
    for key in list(d.data):
        name = str(key)
        if not METRIC_NAME.match(name):
            raise d.fail(name, f"expected a metric name (lowercase letters, digits and _), found {name!r}")
        out.append((name, d.choice(name, DIRECTIONS, default="")))
    d.finish()
    return tuple(out)


def _parse_setup_defaults(r: _Reader) -> SetupDefaults:
    """defaults.setup: an interpreter version and a command ("" for none), each optional."""
    if isinstance(r.data.get("python"), (int, float)) and not isinstance(r.data.get("python"), bool):
        raise r.fail("python", f"write the version as text, e.g. \"3.10\" (a YAML number such as "
                               f"{r.data['python']!r} loses trailing zeros)")
    python = _parse_python(r)
    setup = SetupDefaults(python=python, command=r.text("command"))
    r.finish()
    return setup


def parse_rejections(path: Path, data: Any) -> tuple[Rejection, ...]:
    """Validate rejected.yaml: a mapping with a `rejected` list."""
    if data is None:
        return ()
    r = _Reader(path, data)
    items = r._get("rejected", False) or []
    if not isinstance(items, list):
        raise r.fail("rejected", f"expected a list, found {_kind(items)}")
    out = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise r.fail_item("rejected", index, f"expected a mapping, found {_kind(item)}")
        entry = _Reader(path, item, f"rejected[{index}].")
        out.append(Rejection(fix_commit=entry.sha("fix_commit"), reason=entry.text("reason", required=True),
                             candidate_id=entry.text("candidate_id"), patch_id=entry.text("patch_id"),
                             rejected_at=entry.text("rejected_at")))
        entry.finish()
    r.finish()
    return tuple(out)


_NO_DEFAULT = object()
_SCALARS = (str, int, float, bool, type(None))


@functools.cache
def _defaults(cls: type) -> tuple[tuple[str, Any], ...]:
    """(field name, default value or _NO_DEFAULT) of a dataclass, worked out once per class."""
    out = []
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = _NO_DEFAULT
        out.append((f.name, default))
    return tuple(out)


def to_mapping(value: Any) -> Any:
    """A dataclass as a plain mapping without the fields that equal their defaults (small diffs)."""
    if isinstance(value, _SCALARS):
        return value
    if isinstance(value, tuple):
        return [to_mapping(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {}
        for name, default in _defaults(type(value)):
            item = getattr(value, name)
            if default is not _NO_DEFAULT and item == default:
                continue
            out[name] = to_mapping(item)
        return out
    return value


def to_full_mapping(value: Any) -> Any:
    """A dataclass as a plain mapping with every field, for canonical hashing and JSON."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_full_mapping(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple):
        return [to_full_mapping(item) for item in value]
    return value
