"""The scorecard fields as an author types them: allowed paths, risk flags and invariants, checked before writing.

The corpus's own schema (`corpus.scorecardschema`) still validates every case.yaml written; these checks come
first so that a bad value is reported against the flag or form field it was typed in.

An invariant is typed on one line as `NAME: COMMAND` or `NAME=COMMAND`, with an optional timeout in seconds
after the name: `NAME@SECONDS: COMMAND`. A name has no `:`, `=` or `@`, so the first of them ends it whatever
the command holds. In the review form, one invariant per line; a line starting with whitespace continues the
command above (a multi-line command, shown indented by two spaces).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from corpus import UsageError
from corpus.model import DEFAULT_INVARIANT_TIMEOUT, POLICIES, Invariant, Policy, one_of
from corpus.scorecardschema import INVARIANT_NAME, RISK_FLAG

INVARIANT_LINE = re.compile(r"^\s*(?P<name>[^:=@]*?)\s*(?:@\s*(?P<timeout>[^:=]*?)\s*)?[:=](?P<command>.*)$")
CONTINUATION = "  "
"""What a continuation line of a multi-line invariant command starts with in the form."""
INVARIANT_SYNTAX = "NAME: COMMAND, NAME=COMMAND or NAME@SECONDS: COMMAND"


def parse_invariant(text: str, where: str) -> Invariant:
    """One invariant typed as `NAME[@SECONDS]: COMMAND` (or `=`); a UsageError starting with where otherwise."""
    match = INVARIANT_LINE.match(text)
    if match is None:
        raise UsageError(f"{where}: expected {INVARIANT_SYNTAX}, found {text!r}")
    name, command = match["name"], match["command"].strip()
    if not INVARIANT_NAME.match(name):
        raise UsageError(f"{where}: the name must be up to 64 letters, digits, '.', '_' or '-', found {name!r} "
                         f"(expected {INVARIANT_SYNTAX})")
    if not command:
        raise UsageError(f"{where}: invariant {name!r} has no command")
    timeout = DEFAULT_INVARIANT_TIMEOUT
    if match["timeout"] is not None:
        try:
            timeout = int(match["timeout"])
        except ValueError:
            raise UsageError(f"{where}: invariant {name!r}: the timeout after '@' must be a whole number of "
                             f"seconds, found {match['timeout']!r}") from None
        if timeout < 1:
            raise UsageError(f"{where}: invariant {name!r}: the timeout must be at least 1 second")
    return Invariant(name, command, timeout)


def unique_invariants(invariants: Iterable[Invariant], where: str) -> tuple[Invariant, ...]:
    """invariants, refusing a name given twice."""
    out: list[Invariant] = []
    for invariant in invariants:
        if any(existing.name == invariant.name for existing in out):
            raise UsageError(f"{where}: invariant {invariant.name!r} is given twice")
        out.append(invariant)
    return tuple(out)


def format_invariant(invariant: Invariant, separator: str = ": ") -> str:
    """The invariant as typed (`NAME: COMMAND`, the timeout after '@' when not the default)."""
    timeout = "" if invariant.timeout == DEFAULT_INVARIANT_TIMEOUT else f"@{invariant.timeout}"
    first, *rest = invariant.command.strip("\n").split("\n")
    return "\n".join([f"{invariant.name}{timeout}{separator}{first}", *(CONTINUATION + line for line in rest)])


def format_invariants(invariants: Iterable[Invariant]) -> str:
    """The form's text for invariants: one per line."""
    return "\n".join(format_invariant(invariant) for invariant in invariants)


def parse_invariants_text(text: str, where: str = "invariants") -> tuple[Invariant, ...]:
    """The form's text back into invariants; errors name the line (`invariants line 2: ...`)."""
    entries: list[tuple[int, list[str]]] = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        if line[0] in " \t":
            if not entries:
                raise UsageError(f"{where} line {number}: a continued command needs an invariant above it "
                                 f"(expected {INVARIANT_SYNTAX})")
            entries[-1][1].append(line.removeprefix(CONTINUATION) if line.startswith(CONTINUATION)
                                  else line.lstrip())
            continue
        entries.append((number, [line]))
    out: list[Invariant] = []
    for number, lines in entries:
        invariant = parse_invariant(lines[0], f"{where} line {number}")
        if len(lines) > 1:
            invariant = Invariant(invariant.name, "\n".join([invariant.command, *lines[1:]]).rstrip(),
                                  invariant.timeout)
        out.append(invariant)
    return unique_invariants(out, where)


def split_lines(text: str) -> tuple[str, ...]:
    """Items typed one per line (blank lines skipped, each stripped), in order, without duplicates."""
    return tuple(dict.fromkeys(line.strip() for line in text.split("\n") if line.strip()))


def check_allowed_paths(globs: Iterable[str], where: str) -> tuple[str, ...]:
    """The globs, each a gitignore-style path glob inside the repository (a leading `!` excludes)."""
    out = []
    for glob in globs:
        body = glob.strip().removeprefix("!")
        if not body or body.startswith("#"):
            raise UsageError(f"{where} {glob!r}: expected a path glob such as src/shop/ or '!src/shop/vendored/'")
        if any(part == ".." for part in body.split("/")):
            raise UsageError(f"{where} {glob!r}: must stay inside the repository")
        out.append(glob.strip())
    return tuple(dict.fromkeys(out))


def check_risk_flags(flags: Iterable[str], where: str) -> tuple[str, ...]:
    """The labels, each lowercase letters, digits, '-' or '_' (a repeated one is kept once)."""
    out = []
    for flag in flags:
        if not RISK_FLAG.match(flag):
            raise UsageError(f"{where} {flag!r}: expected a lowercase label of letters, digits, '-' or '_' "
                             f"(at most 40), such as payments")
        out.append(flag)
    return tuple(dict.fromkeys(out))


def check_invariant_policy(value: str, policy: str, invariants: tuple[Invariant, ...], where: str,
                           policy_where: str = "policy", invariants_where: str = "invariants") -> Policy:
    """value as a policy; a UsageError when it is none, or is blocking without a blocking case or any invariant."""
    checked = one_of(value, POLICIES, where)
    if value == "blocking" and policy != "blocking":
        raise UsageError(f"{where} blocking: needs the case's {policy_where} to be blocking (it is {policy})")
    if value == "blocking" and not invariants:
        raise UsageError(f"{where} blocking: needs at least one invariant ({invariants_where})")
    return checked
