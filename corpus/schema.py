"""Validate YAML mappings into the model, and turn the model back into minimal mappings."""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path
from typing import Any

from corpus.behaviourschema import parse_bait, parse_max_turns, parse_trajectory
from corpus.errors import CorpusError
from corpus.httpschema import parse_http_fixture
from corpus.model import (
    DIRECTIONS,
    POLICIES,
    SHA,
    SLUG,
    STATUSES,
    TAMPERING_POLICIES,
    Case,
    CorpusConfig,
    Defaults,
    Grader,
    Provenance,
    Rejection,
    Setup,
    SetupDefaults,
)
from corpus.reader import Reader, kind
from corpus.scorecardschema import (
    parse_allowed_paths,
    parse_invariant_policy,
    parse_invariants,
    parse_risk_flags,
)
from corpus.wordings import parse_prompts
from corpus.yamlio import line_of


def check_relative_path(path: Path, reader: Reader, key: str, value: str, index: int | None = None) -> None:
    """A repository path: relative, no `..`, no empty parts (index: its place in the list under key)."""
    parts = value.replace("\\", "/").split("/")
    if value.startswith("/") or any(part in ("", ".", "..") for part in parts):
        message = f"must be a relative path inside the repository, found {value!r}"
        raise reader.fail(key, message) if index is None else reader.fail_item(key, index, message)


def parse_case(path: Path, data: Any, *, expected_id: str | None = None) -> Case:
    """Validate a case.yaml document into a Case."""
    r = Reader(path, data)
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
        prompts=parse_prompts(r, prompt),
    )
    r.finish()
    return case


STAND_INS: dict[str, Any] = {"title": "title", "prompt": "prompt", "base_commit": "0" * 40,
                             "fix_commit": "f" * 40, "grader": {"command": "true"}, "grader.command": "true"}
"""Valid values for the required fields, put in place of a bad one so that checking goes on past it."""


def case_problems(path: Path, data: Any, *, expected_id: str | None = None, limit: int = 50) -> list[CorpusError]:
    """Every problem of a case.yaml document, not only the first that parse_case raises: each field that fails
    is mended (a required one given a valid stand-in, any other removed; a list as a whole) and the document
    parsed again, until it parses or a problem cannot be got past. data is changed in place."""
    found: list[CorpusError] = []
    mended: set[str] = set()
    while len(found) < limit:
        try:
            parse_case(path, data, expected_id=expected_id)
            return found
        except CorpusError as error:
            found.append(error)
            if error.field is None or error.field in mended or not _mend(data, error, expected_id):
                return found
            mended.add(error.field)
    return found


def _mend(data: Any, error: CorpusError, expected_id: str | None) -> bool:
    """Put a stand-in at the error's field of data, or remove it (a misspelt key is renamed to the key it
    suggests); False when neither can be done."""
    parts = re.sub(r"\[\d+\].*$", "", error.field or "").split(".")
    node = data
    for part in parts[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    if not isinstance(node, dict):
        return False
    dotted, key = ".".join(parts), parts[-1]
    suggested = re.search(r"unknown key .* \(did you mean '([^']+)'\?\)$", str(error))
    if suggested and key in node and suggested.group(1) not in node:
        node[suggested.group(1)] = node.pop(key)
    elif dotted == "id" and expected_id is not None:
        node[key] = expected_id
    elif dotted in STAND_INS:
        node[key] = STAND_INS[dotted]
    elif key in node:
        del node[key]
    else:
        return False
    return True


def _parse_grader(path: Path, r: Reader) -> Grader:
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


def _parse_python(r: Reader) -> str | None:
    python = r.text("python")
    if python is not None and not python.replace(".", "").isdigit():
        raise r.fail("python", f"expected a version such as 3.8, found {python!r}")
    return python


def _parse_setup(r: Reader) -> Setup:
    python = _parse_python(r)
    setup = Setup(command=r.text("command"), python=python, timeout=r.integer("timeout", default=Setup.timeout))
    r.finish()
    return setup


def _parse_provenance(r: Reader) -> Provenance:
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


def _shas(r: Reader, key: str) -> tuple[str, ...]:
    """A list of full commit shas."""
    values = r.strings(key)
    for index, value in enumerate(values):
        if not SHA.match(value):
            raise r.fail_item(key, index, f"expected full lowercase commit shas, found {value!r}")
    return values


def parse_config(path: Path, data: Any) -> CorpusConfig:
    """Validate a corpus.yaml document."""
    r = Reader(path, data)
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
                          behaviour_directions=directions,
                          grader_tampering=r.choice("grader_tampering", TAMPERING_POLICIES, default="fail"))
    r.finish()
    return config


"""What a behaviour metric's direction can be: lower or higher is better, or neither."""
METRIC_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


def _parse_directions(r: Reader) -> tuple[tuple[str, str], ...]:
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


def _parse_setup_defaults(r: Reader) -> SetupDefaults:
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
    r = Reader(path, data)
    items = r.raw("rejected") or []
    if not isinstance(items, list):
        raise r.fail("rejected", f"expected a list, found {kind(items)}")
    out = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise r.fail_item("rejected", index, f"expected a mapping, found {kind(item)}")
        entry = Reader(path, item, f"rejected[{index}].")
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
