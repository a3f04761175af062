"""The static hint beside the seal: what the lines a candidate added to its source files say.

Files are read by their real names (never parsed back out of git's quoted diff headers), after the patch, and
decoded as Python decodes them (the PEP 263 coding cookie, whatever codec it names); a file that does not
decode, or holds NUL bytes, is a binary file. Adjacent string literals are joined before the words are looked
for (`"_py" + "test"`, `"_py" "test"`, `"_py", "test"`), so a name assembled from fragments is still seen.
It is evidence, never the verdict: the seal observes what the code does.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from corpus.gitutil import run_git
from runner.workspace.inside import read_inside

TEST_AWARE = re.compile(r"\b(pytest|_pytest|PYTEST_\w*|unittest|conftest|sys\W+modules|JEST_WORKER_ID|VITEST\w*)\b")
"""Words a source line says when it looks at the test framework rather than doing its job."""
DYNAMIC = re.compile(r"(?<![\w.])(exec|compile|eval|__import__)\s*\(|\b(settrace|setprofile|meta_path|path_hooks|"
                     r"_getframe|f_back|f_locals|addaudithook|get_referrers)\b|\b__code__\s*=")
"""What a source line says when it runs code it does not show, or reaches into the interpreter's machinery."""
JOINED = re.compile(r"""(["'])\s*[+,]?\s*(["'])""")
"""The seam between two adjacent string literals."""
PLAIN_CODINGS = frozenset({"utf-8", "utf-8-sig", "ascii", "latin-1", "iso-8859-1", "iso-latin-1"})
Flag = Literal["test_aware_source", "dynamic_source", "binary_file"]


@dataclass(frozen=True)
class StaticHint:
    """One thing the scan found in a candidate's file."""

    path: str
    """The file (its real name)."""
    flag: Flag
    """test_aware_source (it names the test framework), dynamic_source (an unusual coding, code run from data,
    the interpreter's hooks) or binary_file (evidence only: it flags nothing alone, a payload needs code to run
    it)."""
    reason: str
    """What was found."""


def static_hints(workspace: Path, paths: Iterable[str], is_source: Callable[[str], bool]) -> list[StaticHint]:
    """The hints of every source file among paths (what a patch touched), as the patch left it in workspace
    (the grading workspace, whose HEAD is the base)."""
    paths = [p for p in paths if is_source(p)]
    base = base_contents(workspace, paths)
    hints: list[StaticHint] = []
    for path in paths:
        data = read_inside(workspace, path)
        if data is None:
            continue
        text, problem = decode_source(path, data)
        if problem:
            hints.append(StaticHint(path, "binary_file" if text is None else "dynamic_source", problem))
        if text is None:
            continue
        old = decode_source(path, base.get(path))[0] or ""
        before = set(old.splitlines())
        added = [line for line in text.splitlines() if line not in before]
        checks: tuple[tuple[Flag, re.Pattern[str], bool], ...] = (("test_aware_source", TEST_AWARE, True),
                                                                  ("dynamic_source", DYNAMIC, False))
        for flag, pattern, joined in checks:
            found = next((m for line in added if (m := pattern.search(JOINED.sub("", line) if joined else line))),
                         None)
            if found:
                hints.append(StaticHint(path, flag, f"adds {found.group(0).strip()!r}"))
    return hints


def decode_source(path: str, data: bytes | None) -> tuple[str | None, str | None]:
    """The text of a file as Python reads it (a .py file by its coding cookie, anything else as UTF-8), and what
    is unusual about it: binary (NUL bytes, undecodable) or a coding other than UTF-8 and Latin-1."""
    if data is None:
        return "", None
    if b"\0" in data:
        return None, "binary file"
    problem = None
    encoding = "utf-8"
    if path.endswith((".py", ".pyw", ".pyi")):
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError as exc:
            return None, f"unreadable coding declaration ({exc})"
        if encoding.lower() not in PLAIN_CODINGS:
            problem = f"declares coding {encoding}"
    try:
        return data.decode(encoding), problem
    except (UnicodeDecodeError, LookupError):
        return None, problem or "binary file"


def base_contents(workspace: Path, paths: list[str]) -> dict[str, bytes | None]:
    """Each path's content in the workspace's HEAD commit (None where HEAD has none), one git process."""
    names = [p for p in paths if "\n" not in p]
    if not names:
        return {}
    request = b"".join(b"HEAD:" + p.encode("utf-8", "surrogateescape") + b"\n" for p in names)
    proc = run_git(["cat-file", "--batch"], workspace, input=request, check=False)
    out: dict[str, bytes | None] = {}
    data, at = proc.stdout, 0
    for path in names:
        end = data.find(b"\n", at)
        if end < 0:
            break
        header = data[at:end].split()
        at = end + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            out[path] = data[at:at + size]
            at += size + 1
        else:
            out[path] = None
            if len(header) == 3:  # a tree or other object: skip its content
                at += int(header[2]) + 1
    return out
