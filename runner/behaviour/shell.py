"""Shell commands as agents run them: wrappers removed, split into chain segments, and sorted into the kinds the
behaviour metrics count. A quote-aware token scan (the standard library's shlex), not a shell parser; the rules
are data so results stay reproducible."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Sequence

SHELLS = frozenset({"bash", "sh", "zsh", "dash"})
SHELL_FLAGS = frozenset({"-c", "-lc", "-ic", "-cl", "-li", "-il"})
SEPARATORS = frozenset({";", "&&", "||", "|", "&", "|&", "\n"})
HEREDOC = re.compile(r"<<-?\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\1")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")

SEARCH_PROGRAMS = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "ls", "tree", "locate"})
NETWORK_PROGRAMS = frozenset({"curl", "wget", "ssh", "scp", "sftp", "nc", "ncat", "telnet", "rsync", "ftp", "http"})
NETWORK_SUBCOMMANDS = {
    "pip": {"install", "download"}, "pip3": {"install", "download"}, "npm": {"install", "i", "ci", "add"},
    "yarn": {"add", "install"}, "pnpm": {"add", "install", "i"}, "apt-get": {"install", "update"},
    "apt": {"install", "update"}, "git": {"clone", "fetch", "pull", "push", "ls-remote"},
    "go": {"get", "install"}, "cargo": {"install", "fetch"}, "gem": {"install"}, "uv": {"pip", "add", "sync"},
}
EDIT_PROGRAMS = frozenset({"tee", "patch", "truncate"})


def unwrap(command: str | Sequence[str]) -> str:
    """The command a shell wrapper runs: ``bash -lc 'ls -a'``, ``["bash", "-lc", "ls -a"]`` and the unquoted
    join ``bash -lc ls -a`` are ``ls -a``. Anything else is returned as it is (an argv joined with shell
    quoting)."""
    if isinstance(command, str):
        try:
            argv = shlex.split(command)
        except ValueError:
            return command
        if len(argv) >= 3 and os.path.basename(argv[0]) in SHELLS and argv[1] in SHELL_FLAGS:
            if len(argv) == 3:
                return argv[2]
            rest = command.strip().split(None, 2)[2]
            if not any(quote in rest for quote in "'\""):
                return rest  # an argv joined with spaces, unquoted (Codex's experimental JSON): the words after
        return command
    argv = [str(word) for word in command]
    if len(argv) >= 3 and os.path.basename(argv[0]) in SHELLS and argv[1] in SHELL_FLAGS:
        return argv[2]
    return shlex.join(argv)


def _without_heredocs(command: str) -> str:
    """The command with every heredoc body removed (its lines are data, not commands)."""
    lines = command.split("\n")
    kept: list[str] = []
    ending: list[str] = []
    for line in lines:
        if ending:
            if line.strip() == ending[0]:
                ending.pop(0)
            continue
        kept.append(line)
        ending.extend(match.group(2) for match in HEREDOC.finditer(line))
    return "\n".join(kept)


HIDDEN = {";": "\x02", "&": "\x03", "|": "\x04", "\n": "\x05"}
"""Separator characters inside a command substitution, hidden from the lexer while it splits the chain."""
SHOWN = {hidden: char for char, hidden in HIDDEN.items()} | {"\x01": "&"}


def _hide_substitutions(text: str) -> str:
    """The text with the separators inside ``$( ... )`` and backticks, and escaped ones, hidden: they belong to
    a word or to the inner command."""
    out: list[str] = []
    depth = 0
    backtick = single = double = inner_single = False
    i = 0
    while i < len(text):
        c = text[i]
        inside = depth > 0 or backtick
        if c == "\\" and i + 1 < len(text) and not single:
            out.append("\\" + HIDDEN.get(text[i + 1], text[i + 1]))  # an escaped separator is a word's
            i += 2
            continue
        if single:
            single = c != "'"
        elif inside and inner_single:
            inner_single = c != "'"
        elif inside and c == "'":
            inner_single = True
        elif not inside and c == "'" and not double:
            single = True
        elif not inside and c == '"':
            double = not double
        elif c == "$" and text[i + 1:i + 2] == "(":
            depth += 1
            out.append("$(")
            i += 2
            continue
        elif depth and c == "(":
            depth += 1
        elif depth and c == ")":
            depth -= 1
        elif c == "`":
            backtick = not backtick
        elif inside and c in HIDDEN:
            c = HIDDEN[c]
        out.append(c)
        i += 1
    return "".join(out)


def segments(command: str) -> list[list[str]]:
    """The simple commands of a chain, split at ``;``, ``&&``, ``||``, ``|``, ``&`` and newlines outside quotes,
    heredocs and command substitutions; each is its words with their quotes kept. An unbalanced quote makes the
    whole command one segment."""
    text = _hide_substitutions(_without_heredocs(command))
    # `2>&1` and `&> file` are redirections, not `&` separators: hide their `&` from the lexer
    text = text.replace(">&", ">\x01").replace("&>", "\x01>")
    lexer = shlex.shlex(text, posix=False, punctuation_chars=";&|\n")
    lexer.whitespace = " \t\r"
    lexer.whitespace_split = True
    found: list[list[str]] = []
    words: list[str] = []
    try:
        for token in lexer:
            if token in SEPARATORS or (token and set(token) <= set(";&|\n")):
                if words:
                    found.append(words)
                words = []
            else:
                words.append(_shown(token))
    except ValueError:
        plain = _shown(text).split()
        return [plain] if plain else []
    if words:
        found.append(words)
    return found


def _shown(text: str) -> str:
    return "".join(SHOWN.get(c, c) for c in text)


def _bare(word: str) -> str:
    return word.strip("'\"")


def program(words: list[str]) -> str:
    """The program a segment runs: the first word after variable assignments and ``env``/``sudo``, basename."""
    rest = list(words)
    while rest and (ASSIGNMENT.match(rest[0]) or _bare(rest[0]) in ("env", "sudo", "command", "exec", "time")):
        rest = rest[1:]
    return os.path.basename(_bare(rest[0])) if rest else ""


def _args(words: list[str]) -> list[str]:
    rest = list(words)
    while rest and (ASSIGNMENT.match(rest[0]) or _bare(rest[0]) in ("env", "sudo", "command", "exec", "time")):
        rest = rest[1:]
    return [_bare(w) for w in rest[1:]]


def has_assignment(words: list[str]) -> bool:
    """The segment sets an environment variable: ``X=1 cmd``, ``env X=1 cmd`` or ``export X=1``."""
    if words and ASSIGNMENT.match(words[0]):
        return True
    return bool(words) and _bare(words[0]) in ("env", "export") and any(ASSIGNMENT.match(w) for w in words[1:])


def is_network(words: list[str]) -> bool:
    """The segment reaches the network: curl, wget, ssh, ...; package installs; git clone/fetch/pull/push."""
    name, args = program(words), _args(words)
    if name in NETWORK_PROGRAMS:
        return True
    if name in ("python", "python3") and args[:2] in (["-m", "pip"],):
        return len(args) > 2 and args[2] in NETWORK_SUBCOMMANDS["pip"]
    wanted = NETWORK_SUBCOMMANDS.get(name)
    return wanted is not None and any(a in wanted for a in args[:2])


def is_search(words: list[str]) -> bool:
    """The segment searches or lists files: grep, rg, find, ls, ..."""
    return program(words) in SEARCH_PROGRAMS


def is_shell_edit(words: list[str]) -> bool:
    """The segment writes a file: sed -i, perl -i, tee, patch, git apply, or an output redirection to a file."""
    name, args = program(words), _args(words)
    if name in EDIT_PROGRAMS:
        return True
    if name == "sed" and any(a.startswith("-i") or a == "--in-place" for a in args):
        return True
    if name == "perl" and any(a.startswith("-") and "i" in a[1:] for a in args):
        return True
    if name == "git" and args[:1] == ["apply"]:
        return True
    for i, word in enumerate(words):
        if word[:1] in "'\"" or ">" not in word:
            continue  # quoted: data, not a redirection
        before, _, after = word.partition(">")
        target = after.lstrip(">") or (_bare(words[i + 1]) if i + 1 < len(words) else "")
        if before in ("2", "&") or target.startswith("&") or target in ("", "/dev/null"):
            continue
        return True
    return False
