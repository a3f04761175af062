"""`authoring set`: the same fields set on many candidates (or approved cases) at once.

Each case.yaml is edited where the fields live and nowhere else (a person's comments, key order and other
fields survive), checked by loading it back, and replaced atomically. Every selected file is read and edited
in memory first: a bad selection or a file that does not load stops the command before anything is written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from authoring.decisions import with_setup_origin
from authoring.scorecardfields import (
    check_allowed_paths,
    check_risk_flags,
    parse_invariant,
    unique_invariants,
)
from corpus import Case, Corpus, UsageError
from corpus.fsutil import atomic_write_text
from corpus.layout import CASE_FILE, Kind
from corpus.model import POLICIES, Invariant, one_of
from corpus.schema import parse_case, to_mapping
from corpus.yamlio import dump_yaml, load_yaml, parse_yaml, to_yaml_value

PYTHON_VERSION = re.compile(r"^\d+\.\d+(\.\d+)?$")
TAG = re.compile(r"^[^\s,]+$")


@dataclass(frozen=True)
class Changes:
    """What to set; None leaves a field as it is."""

    setup_command: str | None = None
    """The setup command; "" removes it (nothing is run)."""
    setup_python: str | None = None
    """The interpreter version such as "3.11"; "" removes it (the harness's own)."""
    setup_timeout: int | None = None
    """Seconds before the setup is killed."""
    grader_timeout: int | None = None
    """Seconds before the grader is killed."""
    owner: str | None = None
    """Who answers for the case; "" removes it (the corpus default)."""
    policy: str | None = None
    """advisory or blocking."""
    critical: bool | None = None
    """Mark (True) or unmark (False) the cases as critical: any regression blocks the gate."""
    add_tags: tuple[str, ...] = ()
    """Tags added to each case's own (those it has already stay once)."""
    add_allowed_paths: tuple[str, ...] = ()
    """Globs added to each case's allowed_paths (after clearing them, with clear_allowed_paths)."""
    clear_allowed_paths: bool = False
    """Empty each case's allowed_paths first."""
    add_risk_flags: tuple[str, ...] = ()
    """Risk labels added to each case's own (after clearing them, with clear_risk_flags)."""
    clear_risk_flags: bool = False
    """Empty each case's risk_flags first."""
    add_invariants: tuple[str, ...] = ()
    """Invariants as typed (`NAME[@SECONDS]=COMMAND`): each replaces the case's one of that name, else is added."""
    clear_invariants: bool = False
    """Empty each case's invariants first."""
    invariant_policy: str | None = None
    """advisory or blocking (blocking needs policy blocking and an invariant)."""
    holdout: bool | None = None
    """Mark (True) or unmark (False) the cases as holdout: kept out of the views meant for tuning."""

    def invariants(self) -> tuple[Invariant, ...]:
        """add_invariants parsed (a UsageError naming --invariant when one cannot be)."""
        return unique_invariants((parse_invariant(text, f"--invariant {text!r}") for text in self.add_invariants),
                                 "--invariant")

    def check(self) -> None:
        """A UsageError naming the option when a value cannot be stored, or when nothing is to be set."""
        if self == Changes():
            raise UsageError("nothing to set: give at least one of --setup-command, --setup-python, "
                             "--setup-timeout, --grader-timeout, --owner, --policy, --critical, --tag, --allowed-path, "
                             "--risk-flag, --invariant, --invariant-policy, --holdout/--no-holdout or a --clear-... "
                             "option")
        check_allowed_paths(self.add_allowed_paths, "--allowed-path")
        check_risk_flags(self.add_risk_flags, "--risk-flag")
        self.invariants()
        if self.invariant_policy is not None:
            one_of(self.invariant_policy, POLICIES, "--invariant-policy")
        if self.setup_python and not PYTHON_VERSION.match(self.setup_python):
            raise UsageError(f"--setup-python {self.setup_python!r}: expected a version such as 3.11 "
                             f"('' for the harness's own)")
        for name, value in (("--setup-timeout", self.setup_timeout), ("--grader-timeout", self.grader_timeout)):
            if value is not None and value < 1:
                raise UsageError(f"{name} {value}: must be at least 1 second")
        if self.policy is not None:
            one_of(self.policy, POLICIES, "--policy")
        if self.owner is not None and "\n" in self.owner:
            raise UsageError("--owner: must be one line")
        for tag in self.add_tags:
            if not TAG.match(tag):
                raise UsageError(f"--tag {tag!r}: a tag is one word (no spaces or commas)")


@dataclass(frozen=True)
class Change:
    """One case whose fields a bulk set changed (or would change)."""

    id: str
    """The case (or candidate) id."""
    path: Path
    """Its case.yaml."""
    fields: tuple[tuple[str, Any, Any], ...]
    """(field, before, after) of every field that changed, e.g. ("setup.python", None, "3.11")."""


def select_ids(corpus: Corpus, kind: Kind, ids: Sequence[str], every: bool) -> list[str]:
    """The ids to edit: the given ones (all of them must exist) or, with every, all of kind."""
    noun = "candidate" if kind == "candidates" else "case"
    if every and ids:
        raise UsageError(f"give {noun} ids or --all, not both")
    existing = corpus.ids(kind)
    if every:
        return existing
    if not ids:
        raise UsageError(f"no {noun}s selected: give {noun} ids or --all")
    known = set(existing)
    unknown = [case_id for case_id in dict.fromkeys(ids) if case_id not in known]
    if unknown:
        raise UsageError(f"unknown {noun} id{'s' if len(unknown) > 1 else ''} in {kind}/: {', '.join(unknown)}")
    return list(dict.fromkeys(ids))


def apply_changes(case: Case, changes: Changes) -> Case:
    """The case with the changes made (the model only)."""
    setup = case.setup
    if changes.setup_command is not None:
        setup = replace(setup, command=changes.setup_command or None)
    if changes.setup_python is not None:
        setup = replace(setup, python=changes.setup_python or None)
    if changes.setup_timeout is not None:
        setup = replace(setup, timeout=changes.setup_timeout)
    grader = case.grader if changes.grader_timeout is None else replace(case.grader, timeout=changes.grader_timeout)
    owner = case.owner if changes.owner is None else (changes.owner.strip() or None)
    policy = case.policy if changes.policy is None else one_of(changes.policy, POLICIES, "--policy")
    tags = tuple(dict.fromkeys((*case.tags, *changes.add_tags)))
    allowed = () if changes.clear_allowed_paths else case.allowed_paths
    flags = () if changes.clear_risk_flags else case.risk_flags
    invariants = list(() if changes.clear_invariants else case.invariants)
    for invariant in changes.invariants():
        names = [existing.name for existing in invariants]
        if invariant.name in names:
            invariants[names.index(invariant.name)] = invariant
        else:
            invariants.append(invariant)
    invariant_policy = (case.invariant_policy if changes.invariant_policy is None
                        else one_of(changes.invariant_policy, POLICIES, "--invariant-policy"))
    critical = case.critical if changes.critical is None else changes.critical
    after = replace(case, setup=setup, grader=grader, owner=owner, policy=policy, critical=critical, tags=tags,
                    allowed_paths=tuple(dict.fromkeys((*allowed, *changes.add_allowed_paths))),
                    risk_flags=tuple(dict.fromkeys((*flags, *changes.add_risk_flags))), invariants=tuple(invariants),
                    invariant_policy=invariant_policy,
                    holdout=case.holdout if changes.holdout is None else changes.holdout)
    return with_setup_origin(case, after)


def check_consistent(case: Case, where: str) -> None:
    """A UsageError naming the options to give when the edited case's invariant policy cannot be stored."""
    if case.invariant_policy != "blocking":
        return
    if case.policy != "blocking":
        raise UsageError(f"{where}: invariant_policy blocking needs policy blocking (give --policy blocking, or "
                         f"--invariant-policy advisory)")
    if not case.invariants:
        raise UsageError(f"{where}: invariant_policy blocking needs at least one invariant (give --invariant, or "
                         f"--invariant-policy advisory)")


FIELDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("setup.command", ("setup", "command")), ("setup.python", ("setup", "python")),
    ("setup.timeout", ("setup", "timeout")), ("grader.timeout", ("grader", "timeout")),
    ("owner", ("owner",)), ("policy", ("policy",)), ("critical", ("critical",)),
    ("tags", ("tags",)),
    ("allowed_paths", ("allowed_paths",)), ("risk_flags", ("risk_flags",)), ("invariants", ("invariants",)),
    ("invariant_policy", ("invariant_policy",)), ("holdout", ("holdout",)),
)
DEFAULTS = frozenset({("invariant_policy", "advisory"), ("holdout", False), ("critical", False)})
"""(field, value) pairs that are the default: written by removing the key, so diffs stay small."""
LISTS = frozenset({"tags", "allowed_paths", "risk_flags", "invariants"})
"""Fields held as lists: items only appended are appended to the list as written (its comments stay)."""


def _value(case: Case, keys: tuple[str, ...]) -> Any:
    value: Any = case
    for key in keys:
        value = getattr(value, key)
    return value


def _edit(document: Any, keys: tuple[str, ...], value: Any) -> None:
    """Set document[keys...] to value in place (None removes the key, and a mapping left empty)."""
    parent = document
    for key in keys[:-1]:
        child = parent.get(key)
        if child is None or not hasattr(child, "get"):
            if value is None:
                return
            parent[key] = child = to_yaml_value({})
        parent = child
    last = keys[-1]
    if value is None:
        parent.pop(last, None)
        if len(keys) > 1 and not parent:
            document.pop(keys[0], None)
        return
    parent[last] = to_yaml_value(value)


def _edit_list(document: Any, key: str, before: tuple[Any, ...], after: tuple[Any, ...]) -> None:
    """Set the list under key: items appended to before are appended to the list as written; any other change
    replaces it, and an empty list removes the key."""
    current = document.get(key)
    if isinstance(current, list) and before and after[:len(before)] == before:
        current.extend(to_yaml_value(to_mapping(item)) for item in after[len(before):])
    elif after:
        document[key] = to_yaml_value([to_mapping(item) for item in after])
    else:
        document.pop(key, None)


def set_fields(corpus: Corpus, ids: Sequence[str], kind: Kind, changes: Changes, *,
               dry_run: bool = False) -> list[Change]:
    """Set changes on the cases of kind named by ids; returns the cases that changed (in ids' order).

    Every file is edited in memory and loaded back first; then, unless dry_run, each changed file is replaced
    atomically (a file edited on disk meanwhile is refused, naming it)."""
    changes.check()
    planned: list[tuple[Change, str, int]] = []
    for case_id in ids:
        path = corpus.root / kind / case_id / CASE_FILE
        stamp = path.stat().st_mtime_ns if path.exists() else 0
        document = load_yaml(path)
        before = parse_case(path, document, expected_id=case_id)
        after = apply_changes(before, changes)
        check_consistent(after, f"{kind}/{case_id}")
        if after == before:
            continue
        diffs = []
        for name, keys in FIELDS:
            old, new = _value(before, keys), _value(after, keys)
            if old != new:
                diffs.append((name, old, new))
                if name in LISTS:
                    _edit_list(document, name, old, new)
                else:
                    _edit(document, keys, None if (name, new) in DEFAULTS else new)
        if before.mined is not None and after.mined is not None \
                and before.mined.setup_origin != after.mined.setup_origin:  # where the setup came from: the author
            _edit(document, ("mined", "setup_origin"), list(after.mined.setup_origin))
        text = dump_yaml(document)
        if parse_case(path, parse_yaml(text, path), expected_id=case_id) != after:
            raise UsageError(f"{path}: the edit did not load back as written; nothing was written")
        planned.append((Change(case_id, path, tuple(diffs)), text, stamp))
    if not dry_run:
        for change, text, stamp in planned:
            if change.path.stat().st_mtime_ns != stamp:
                raise UsageError(f"{change.path}: changed on disk while the command ran; it was not written")
            atomic_write_text(change.path, text)
    return [change for change, _, _ in planned]
