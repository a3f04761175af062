"""Validate a case's scorecard fields (allowed_paths, invariants, invariant_policy, risk_flags) with errors naming
the file, field and line."""

from __future__ import annotations

import re

from corpus.model import DEFAULT_INVARIANT_TIMEOUT, POLICIES, Invariant, Policy
from corpus.reader import Reader

INVARIANT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
RISK_FLAG = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")


def parse_allowed_paths(r: Reader) -> tuple[str, ...]:
    """allowed_paths: a list of non-empty gitignore-style globs (a leading `!` excludes)."""
    globs = r.strings("allowed_paths")
    for index, glob in enumerate(globs):
        body = glob.strip().removeprefix("!")
        if not body or body.startswith("#"):
            raise r.fail_item("allowed_paths", index, f"expected a path glob, found {glob!r}")
        if any(part == ".." for part in body.split("/")):
            raise r.fail_item("allowed_paths", index, f"must stay inside the repository, found {glob!r}")
    return tuple(glob.strip() for glob in globs)


def parse_invariants(r: Reader) -> tuple[Invariant, ...]:
    """invariants: a list of {name, command, timeout}, names unique."""
    items = r.data.get("invariants")
    r.seen.add("invariants")
    if items is None:
        return ()
    if not isinstance(items, list):
        raise r.fail("invariants", "expected a list of invariants ({name, command, timeout})")
    out: list[Invariant] = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise r.fail_item("invariants", index,
                              "expected an invariant: a mapping with name, command and timeout")
        entry = Reader(r.path, item, f"{r.prefix}invariants[{index}].")
        name = entry.text("name", required=True).strip()
        if not INVARIANT_NAME.match(name):
            raise entry.fail("name", f"expected up to 64 letters, digits, '.', '_' or '-', found {name!r}")
        if any(existing.name == name for existing in out):
            raise entry.fail("name", f"{name!r} names an earlier invariant too")
        command = entry.text("command", required=True)
        timeout = entry.integer("timeout", default=DEFAULT_INVARIANT_TIMEOUT)
        entry.finish()
        out.append(Invariant(name, command, timeout))
    return tuple(out)


def parse_invariant_policy(r: Reader, policy: str, invariants: tuple[Invariant, ...]) -> Policy:
    """invariant_policy: advisory or blocking; blocking needs `policy: blocking` and at least one invariant."""
    value: Policy = r.choice("invariant_policy", POLICIES, default="advisory")
    if value == "blocking":
        if policy != "blocking":
            raise r.fail("invariant_policy", "blocking invariants need the case's policy to be blocking")
        if not invariants:
            raise r.fail("invariant_policy", "blocking needs at least one entry under invariants")
    return value


def parse_risk_flags(r: Reader) -> tuple[str, ...]:
    """risk_flags: short lowercase labels (auth, payments, data-deletion), each once."""
    flags = r.strings("risk_flags")
    for index, flag in enumerate(flags):
        if not RISK_FLAG.match(flag):
            raise r.fail_item("risk_flags", index,
                              f"expected a lowercase label of letters, digits, '-' or '_', found {flag!r}")
        if flag in flags[:index]:
            raise r.fail_item("risk_flags", index, f"{flag!r} is listed twice")
    return flags

