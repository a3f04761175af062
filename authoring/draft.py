"""The author's edits to a candidate: prefilled from the candidate and corpus defaults, applied to a Case."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from authoring.scorecardfields import (
    check_allowed_paths,
    check_invariant_policy,
    check_risk_flags,
    format_invariants,
    parse_invariants_text,
)
from authoring.wordingtext import format_wordings, parse_wordings
from corpus import Case, Defaults, Grader, UsageError
from corpus.model import POLICIES, SLUG, one_of


@dataclass(frozen=True)
class Draft:
    """The editable fields of a case, as the author typed them."""

    prompt: str
    """The task the agent will receive."""
    id: str
    """Case id (slug); defaults to the candidate id."""
    title: str
    """One-line label."""
    owner: str = ""
    """Owner; empty means the corpus default."""
    policy: str = "advisory"
    """advisory or blocking."""
    critical: bool = False
    """Blocks the gate on any regression."""
    tags: tuple[str, ...] = ()
    """Free-form labels."""
    trigger_paths: tuple[str, ...] = ()
    """Globs of the source files the fix touched."""
    setup_command: str = ""
    """Shell command that prepares the workspace; empty runs nothing."""
    setup_python: str = ""
    """Interpreter version (e.g. 3.8) whose venv setup, agent and grader run in; empty uses the harness's."""
    grader_command: str = ""
    """Shell command that runs the hidden test."""
    grader_timeout: int = Grader.timeout
    """Seconds before the grader is killed."""
    allowed_paths: tuple[str, ...] = ()
    """Gitignore-style globs of the paths a fix may touch; empty allows every path outside the test tree."""
    risk_flags: tuple[str, ...] = ()
    """Lowercase labels of what the code at stake guards (payments, auth)."""
    invariants: str = ""
    """The invariants as typed, one `NAME[@SECONDS]: COMMAND` per line (`authoring.scorecardfields`)."""
    invariant_policy: str = "advisory"
    """blocking (only with policy blocking): a failed invariant fails a trial the grader passed."""
    wordings: str = ""
    """The further wordings as typed, each under a `=== ID` line (`authoring.wordingtext`)."""


def draft_from(case: Case, defaults: Defaults) -> Draft:
    """A draft prefilled from a candidate (or case) and the corpus defaults."""
    source_files = case.mined.source_files if case.mined else ()
    return Draft(
        prompt=case.prompt,
        id=case.id,
        title=case.title,
        owner=case.owner or defaults.owner or "",
        policy=case.policy if case.policy != "advisory" else defaults.policy,
        critical=case.critical,
        tags=case.tags,
        trigger_paths=case.trigger_paths or source_files,
        setup_command=case.setup.command or "",
        setup_python=case.setup.python or "",
        grader_command=case.grader.command,
        grader_timeout=case.grader.timeout,
        allowed_paths=case.allowed_paths,
        risk_flags=case.risk_flags,
        invariants=format_invariants(case.invariants),
        invariant_policy=case.invariant_policy,
        wordings=format_wordings(case.prompts),
    )


def split_list(text: str) -> tuple[str, ...]:
    """Items typed as `a, b c` (commas or spaces), in order, without duplicates."""
    return tuple(dict.fromkeys(item for item in re.split(r"[,\s]+", text) if item))


def parse_timeout(text: str) -> int:
    """A timeout typed in a form: a whole number of seconds, at least 1."""
    try:
        value = int(text.strip())
    except ValueError:
        raise UsageError(f"grader timeout: expected a whole number of seconds, found {text!r}") from None
    if value < 1:
        raise UsageError("grader timeout: must be at least 1 second")
    return value


def apply_draft(case: Case, draft: Draft) -> Case:
    """case with the draft's fields; a field that cannot be stored is a UsageError naming it."""
    if not SLUG.match(draft.id):
        raise UsageError(f"id {draft.id!r}: must be lowercase letters, digits and '-' (at most 80)")
    title = draft.title.strip()
    if not title or "\n" in title:
        raise UsageError("title: must be one non-empty line")
    if not draft.prompt.strip():
        raise UsageError("prompt: must not be empty")
    policy = one_of(draft.policy, POLICIES, "policy")
    if not draft.grader_command.strip():
        raise UsageError("grader command: must not be empty")
    if draft.grader_timeout < 1:
        raise UsageError("grader timeout: must be at least 1 second")
    python = draft.setup_python.strip()
    if python and not re.fullmatch(r"\d+(\.\d+)*", python):
        raise UsageError(f"python: expected a version such as 3.8, found {python!r}")
    invariants = parse_invariants_text(draft.invariants)
    invariant_policy = check_invariant_policy(draft.invariant_policy, policy, invariants, "invariant policy")
    prompt = draft.prompt if draft.prompt.endswith("\n") else draft.prompt + "\n"
    prompts = parse_wordings(draft.wordings, replace(case, prompt=prompt))
    return replace(
        case,
        id=draft.id,
        title=title,
        prompt=prompt,
        owner=draft.owner.strip() or None,
        policy=policy,
        critical=draft.critical,
        tags=draft.tags,
        trigger_paths=draft.trigger_paths,
        setup=replace(case.setup, command=draft.setup_command.strip() or None, python=python or None),
        grader=replace(case.grader, command=draft.grader_command.strip(), timeout=draft.grader_timeout),
        allowed_paths=check_allowed_paths(draft.allowed_paths, "allowed path"),
        risk_flags=check_risk_flags(draft.risk_flags, "risk flag"),
        invariants=invariants,
        invariant_policy=invariant_policy,
        prompts=prompts,
    )

