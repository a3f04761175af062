"""Write new candidate directories fast, in exactly the corpus format `Corpus.load` reads.

A scan can propose hundreds of candidates; the round-trip YAML writer (built for editing a person's file
without losing comments) costs milliseconds per case. A new case has no comments to keep, so `Corpus.write`
and the miner emit it directly: block style, plain scalars only where they cannot be misread, literal blocks for
multi-line text, double quotes otherwise. Each directory is staged beside its final place and renamed in, so a
reader never sees half a candidate. Existing directories are never touched here.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.fsutil import DIR_MODE, staging_directory, write_staged
from corpus.layout import CASE_FILE, GRADER_DIR, HTTP_DIR, ORACLE_FILE, case_mapping, check_id, repo_path
from corpus.model import SHA, Case, CaseFiles

PLAIN = re.compile(r"^[A-Za-z0-9_/.][A-Za-z0-9 _./@+=,;:()-]*$")
# Starting with a digit or a dot is plain only when nothing could read it as a number, date or time.
NUMBERISH = re.compile(r"[0-9eE.+_:-]*|0x[0-9a-f_]*|0o[0-7_]*|0b[01_]*|\d{4}-\d{1,2}-\d{1,2}.*|\.(inf|nan)",
                       re.IGNORECASE)
RESERVED = frozenset({"null", "true", "false", "yes", "no", "on", "off", "y", "n"})
# Characters YAML cannot carry raw (or would read as line breaks): escaped in double quotes.
NON_PRINTABLE_CLASS = ("[^\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd"
                       "\U00010000-\U0010ffff]")


ASCII_NON_PRINTABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f]")


@functools.cache
def _non_printable() -> re.Pattern[str]:
    """Compiled on first use: the class spans most of Unicode and takes milliseconds to compile."""
    return re.compile(NON_PRINTABLE_CLASS)


def _has_non_printable(text: str) -> bool:
    """Whether text holds a character YAML cannot carry raw; ASCII text is checked without the big class."""
    pattern = ASCII_NON_PRINTABLE if text.isascii() else _non_printable()
    return pattern.search(text) is not None


ESCAPE = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r"}
NEEDS_ESCAPE = re.compile('[\\\\"\n\t\r]')


def _plain_ok(text: str) -> bool:
    if (text[:1].isdigit() or text[:1] == ".") and (NUMBERISH.fullmatch(text) or " " in text):
        return False
    return (PLAIN.fullmatch(text) is not None and text.lower() not in RESERVED and ": " not in text
            and not text.endswith((":", " ")) and "  " not in text)


def _quoted(text: str) -> str:
    if NEEDS_ESCAPE.search(text) is None and not _has_non_printable(text):
        return '"' + text + '"'  # the common case: nothing to escape
    out = []
    for char in text:
        if char in ESCAPE:
            out.append(ESCAPE[char])
        elif _has_non_printable(char):
            code = ord(char)
            out.append("\\ufffd" if 0xD800 <= code <= 0xDFFF else f"\\u{code:04x}" if code <= 0xFFFF
                       else f"\\U{code:08x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _literal(text: str, indent: int) -> str | None:
    """A literal block scalar for multi-line text, or None when one cannot hold it exactly."""
    body = text.removesuffix("\n")
    if body.endswith("\n") or not body.strip() or _has_non_printable(body) or "\r" in body:
        return None
    lines = body.split("\n")
    if any(line != line.rstrip() for line in lines):
        return None
    if next(line for line in lines if line)[:1] in (" ", "\t"):
        return None  # would need an indentation indicator; quoting is simpler and exact
    pad = " " * indent
    header = "|" if text.endswith("\n") else "|-"
    return header + "".join("\n" + (pad + line if line else "") for line in lines)


def scalar(value: Any, indent: int) -> str:
    """One YAML scalar that loads back to exactly value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    if "\n" in text:
        literal = _literal(text, indent)
        if literal is not None:
            return literal
        return _plain_or_quoted(text)
    return _one_line(text)


def _plain_or_quoted(text: str) -> str:
    return text if _plain_ok(text) else _quoted(text)


_one_line = functools.lru_cache(maxsize=4096)(_plain_or_quoted)
"""One-line scalars remembered: paths, commit fields and evidence recur from case to case in a scan (70%)."""


def emit(mapping: dict[str, Any], indent: int = 0) -> str:
    """A block-style YAML document for a mapping of scalars, lists of scalars and nested mappings."""
    pad = " " * indent
    out: list[str] = []
    for key, value in mapping.items():
        if isinstance(value, dict):
            out.append(f"{pad}{key}:\n{emit(value, indent + 2)}" if value else f"{pad}{key}: {{}}\n")
        elif isinstance(value, (list, tuple)):
            if not value:
                out.append(f"{pad}{key}: []\n")
            else:
                items = "".join(_item(item, indent) for item in value)
                out.append(f"{pad}{key}:\n{items}")
        else:
            out.append(f"{pad}{key}: {scalar(value, indent + 2)}\n")
    return "".join(out)


def _item(item: Any, indent: int) -> str:
    """One list item: a scalar, or a mapping whose first key follows the dash (a trajectory's steps)."""
    pad = " " * indent
    if isinstance(item, dict) and item:
        body = emit(item, indent + 4)
        return f"{pad}  - {body[indent + 4:]}"
    return f"{pad}  - {scalar(item, indent + 4)}\n"


def _check(case: Case) -> None:
    check_id(case.id, "candidate id")
    for field in ("base_commit", "fix_commit"):
        if not SHA.match(getattr(case, field)):
            raise UsageError(f"candidate {case.id}: {field} is not a full sha")
    if (case.grader.fail_to_pass or case.grader.pass_to_pass) and case.grader.junit is None:
        raise UsageError(f"candidate {case.id}: test ids need grader.junit")


def write_files(directory: str, case: Case, files: CaseFiles) -> None:
    """Write the case into an existing empty directory: oracle patch, grader files, case.yaml."""
    _check(case)
    write_staged(f"{directory}/{ORACLE_FILE}", files.oracle_patch)
    made: set[str] = set()
    for top, entries, what in ((GRADER_DIR, files.grader_files, "grader file path"),
                               (HTTP_DIR, files.http_files, "HTTP fixture file path")):
        for path, content in entries:
            relative = repo_path(path, what)
            folder = directory + "/" + top
            for part in (top, *relative.parts[:-1]):
                folder = folder if part == top else f"{folder}/{part}"
                if folder not in made:
                    os.mkdir(folder)
                    made.add(folder)
            write_staged(f"{folder}/{relative.name}", content)
    write_staged(f"{directory}/{CASE_FILE}", emit(case_mapping(case)).encode("utf-8"))


def rewrite_case_file(directory: str, case: Case) -> None:
    """Replace case.yaml in a directory that is still being staged (not yet visible to readers)."""
    _check(case)
    os.unlink(f"{directory}/{CASE_FILE}")
    write_staged(f"{directory}/{CASE_FILE}", emit(case_mapping(case)).encode("utf-8"))


def write_new(root: Path, case: Case, files: CaseFiles, kind: str = "candidates") -> Path:
    """Write a new case directory under root/kind atomically; refuses to replace an existing one."""
    _check(case)
    parent = root / kind
    target = parent / case.id
    if target.exists():
        raise UsageError(f"{target}: already exists; nothing was written")
    try:
        staged = Path(tempfile.mkdtemp(prefix=f".{case.id}.", suffix=".staging", dir=parent))
        staged.chmod(DIR_MODE)
    except FileNotFoundError:
        staged = staging_directory(parent, case.id)
    try:
        write_files(str(staged), case, files)
        os.rename(staged, target)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    return target
