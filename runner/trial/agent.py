"""The agent command of a trial: its placeholders, its environment without the hidden paths, and how its end is read."""

from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil

from runner.grading.grader import NOT_RUNNABLE
from runner.process import ProcessResult

PLACEHOLDERS = ("workspace", "prompt_file", "case_id", "trial", "output_dir")
MARKER_VAR = "HINDCAST_TRIAL_MARK"

# A placeholder is {identifier}; `${...}` is the shell's parameter expansion, and inside single quotes (awk, jq,
# python -c programs) only the known names are placeholders, so other braces there are the program's own.
_BRACED = re.compile(r"\$?\{([A-Za-z_][A-Za-z0-9_]*)\}")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# bash builtins and keywords a command may start with; they are never looked up on PATH.
SHELL_WORDS = frozenset((
    ".", ":", "[", "[[", "!", "{", "(", "alias", "bg", "bind", "break", "builtin", "caller", "case", "cd",
    "command", "compgen", "complete", "continue", "coproc", "declare", "dirs", "disown", "echo", "enable", "eval",
    "exec", "exit", "export", "false", "fc", "fg", "for", "function", "getopts", "hash", "help", "history", "if",
    "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read", "readarray",
    "readonly", "return", "select", "set", "shift", "shopt", "source", "suspend", "test", "time", "times", "trap",
    "true", "type", "typeset", "ulimit", "umask", "unalias", "unset", "until", "wait", "while",
))


def _placeholders(template: str) -> list[tuple[int, int, str, str]]:
    """Every placeholder of template as (start, end, name, quoting), quoting being '', "'" or '"'.

    Known names count everywhere but inside ${...}; other {identifier} forms only outside single quotes.
    """
    quote_at: list[str] = []
    state, escaped = "", False
    for ch in template:
        quote_at.append(state)
        if escaped:
            escaped = False
        elif ch == "\\" and state != "'":
            escaped = True
        elif ch in "'\"" and state in ("", ch):
            state = "" if state == ch else ch
    found = []
    for m in _BRACED.finditer(template):
        name, quoting = m.group(1), quote_at[m.start()]
        if m.group(0).startswith("$") and quoting != "'":
            continue
        start = m.start() + (1 if m.group(0).startswith("$") else 0)
        if name in PLACEHOLDERS or quoting != "'":
            found.append((start, m.end(), name, quoting))
    return found


def render_command(template: str, values: dict[str, str]) -> str:
    """Replace {workspace}, {prompt_file}, {case_id}, {trial} and {output_dir} by shell-quoted values; other braces
    stay.

    Inside quotes the quoting is closed around the value, so each value stays one literal piece of the word.
    """
    out, last = [], 0
    for start, end, name, quoting in _placeholders(template):
        if name not in PLACEHOLDERS:
            continue
        out += [template[last:start], f"{quoting}{shlex.quote(values[name])}{quoting}"]
        last = end
    return "".join([*out, template[last:]])


def command_problem(template: str) -> str | None:
    """Why an agent command cannot run, found before any trial: an unknown or misspelt placeholder, an empty or
    unparsable command, or a command (the first word of each part between `&&`, `||`, `;`, `|` and `&`) that is
    no builtin, no program on PATH and no executable file; None if none.

    A leading VAR=value assignment (or `env VAR=value`) is skipped, and so are the shell's keywords (`then`,
    `do`, ...). A word that the shell expands ($, `, globs), that holds a placeholder, or that is a relative path
    (resolved in the trial's workspace) is not checked, nor is anything from a `case` on.
    """
    misspelt = _misspelt(template)
    if misspelt:
        return misspelt
    unknown = [name for _, _, name, _ in _placeholders(template) if name not in PLACEHOLDERS]
    if unknown:
        close = difflib.get_close_matches(unknown[0], PLACEHOLDERS, n=1)
        hint = f": did you mean {{{close[0]}}}?" if close else ""
        return (f"unknown placeholder {{{unknown[0]}}}{hint} (the placeholders are "
                f"{', '.join('{' + p + '}' for p in PLACEHOLDERS)})")
    if not template.strip():
        return "the agent command is empty"
    # A value with "$" in it: a word holding a placeholder is never looked up.
    lexer = shlex.shlex(render_command(template, dict.fromkeys(PLACEHOLDERS, "$value")), posix=True,
                        punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError as exc:
        return f"the agent command cannot be parsed: {exc}"
    segments: list[list[str]] = [[]]
    for word in words:
        if word in _SEPARATORS:
            segments.append([])
        else:
            segments[-1].append(word)
    for number, segment in enumerate(segments):
        if segment[:1] == ["case"]:
            break
        while segment and segment[0] in _LEADING_KEYWORDS:
            segment.pop(0)
        while segment and _ASSIGNMENT.match(segment[0]):
            segment.pop(0)
        if segment[:1] == ["env"]:
            segment.pop(0)
            while segment and _ASSIGNMENT.match(segment[0]):
                segment.pop(0)
            if not segment or segment[0].startswith("-"):
                continue
        if not segment:
            if len(segments) == 1 and number == 0:
                return "the agent command only sets variables: no command to run"
            continue
        problem = _program_problem(segment[0])
        if problem:
            return problem
    return None


_SEPARATORS = frozenset(("&&", "||", ";", "|", "&", "|&", ";;", ";&", ";;&"))
"""What ends one command of a shell line and starts the next."""
_LEADING_KEYWORDS = frozenset(("if", "then", "elif", "else", "while", "until", "do", "!", "{", "time"))
"""Keywords a command may follow."""
_ENDING_KEYWORDS = frozenset(("fi", "done", "esac", "}", "]]", "in"))
# {case-id}, { workspace }, {{workspace}}, ${workspace}: a placeholder written the way another tool spells one.
_NEAR_MISS = re.compile(r"\$?\{+\s*([A-Za-z][A-Za-z0-9_-]*)\s*\}+")


def _misspelt(template: str) -> str | None:
    """The first placeholder of template spelt wrong (a hyphen, spaces, doubled braces, a shell `$`), said with
    the right spelling; None if none. `${trial}` is the shell's own when the command sets `trial`."""
    for match in _NEAR_MISS.finditer(template):
        text, name = match.group(0), match.group(1)
        right = "{" + name.lower().replace("-", "_") + "}"
        if right[1:-1] not in PLACEHOLDERS or text == right:
            continue
        if text.startswith("$") and re.search(rf"(^|[\s;&|(]){re.escape(name)}=|\b(for|read)\s+{re.escape(name)}\b",
                                              template):
            continue
        shell = " (the shell would expand it as a variable)" if text.startswith("$") else ""
        return f"{text} is not a placeholder{shell}: did you mean {right}?"
    return None


def _program_problem(word: str) -> str | None:
    if word in SHELL_WORDS or word in _ENDING_KEYWORDS or any(c in word for c in "$`*?[") or word[0] in "(;&|<>":
        return None
    if "/" not in word:
        return None if shutil.which(word) else f"{word!r} is not a program on PATH"
    if not os.path.isabs(word):
        return None
    if not os.path.isfile(word):
        return f"{word}: no such file" if not os.path.exists(word) else f"{word}: not a file"
    return None if os.access(word, os.X_OK) else f"{word}: not executable"


def mentions(value: str, path: str) -> bool:
    """True when value contains path as a whole path (or a prefix of a deeper one), not as part of a longer name."""
    return bool(path) and re.search(re.escape(path) + r"(?![^/\s:;,'\"=])", value) is not None


def agent_environment(env: dict[str, str], hidden: tuple[str, ...], marker: str) -> dict[str, str]:
    """The trial environment with no mention of a hidden path, plus the trial's marker.

    In a list of paths (PATH and the like) only the entries that mention one are removed; any other variable
    that mentions one is dropped.
    """
    clean = {}
    for key, value in env.items():
        if not any(mentions(value, h) for h in hidden):
            clean[key] = value
            continue
        entries = value.split(os.pathsep)
        kept = [e for e in entries if not any(mentions(e, h) for h in hidden)]
        if len(entries) > 1 and kept:
            clean[key] = os.pathsep.join(kept)
    name, _, value = marker.partition("=")
    return {**clean, name: value}


def agent_error(ran: ProcessResult) -> str | None:
    """The error reason for an agent that could not start or exited non-zero (its last line of stderr, else of
    stdout); None otherwise."""
    last = ((ran.stderr_tail.strip() or ran.tail.strip()).splitlines() or [""])[-1][:200]
    detail = f": {last}" if last else ""
    if ran.start_error:
        return f"agent command could not start: {ran.start_error}"
    if ran.timed_out:
        return None
    if ran.exit_code in NOT_RUNNABLE:
        return f"agent command could not start (exit {ran.exit_code}){detail}"
    if ran.exit_code != 0:
        return f"agent exited {ran.exit_code}{detail}"
    return None
