"""A case's wordings of its task: the prompt and the further `prompts`, their schema, and which one a trial gets."""

from __future__ import annotations

import hashlib
import re

from corpus.errors import UsageError
from corpus.model import Case, Wording
from corpus.reader import Reader, kind

PRIMARY = "prompt"
"""The id of the wording the case's `prompt` field holds."""
WORDING_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")
"""A wording's id: a short slug (it names a row of the report)."""


def wordings(case: Case) -> tuple[Wording, ...]:
    """Every wording of the case: its prompt (id `prompt`) first, then its `prompts` in file order."""
    return (Wording(PRIMARY, case.prompt), *case.prompts)


def rotated_ids(case: Case) -> tuple[str, ...]:
    """The ids of the wordings a trial is drawn from; () for a case with one wording (nothing is drawn)."""
    return tuple(w.id for w in wordings(case)) if case.prompts else ()


def draw(ids: tuple[str, ...], case_id: str, seed: int, trial: int) -> str:
    """The wording trial (1-based) of a case gets, from the run's seed alone.

    Trials come in blocks of len(ids): each block gives every wording once, in an order fixed by the sha256 of
    (seed, case, block, wording), so a case's wordings share its trials within one of each other and two runs
    with one seed give each trial the same wording (their trials stay paired). Not the variant: the variants of
    a matrix see the same wording on the same trial.
    """
    block, place = divmod(trial - 1, len(ids))
    order = sorted(ids, key=lambda wid: hashlib.sha256(f"{seed}\0{case_id}\0{block}\0{wid}".encode()).hexdigest())
    return order[place]


def draw_for(case: Case, seed: int, trial: int) -> str | None:
    """The id of the wording a trial of case gets; None when the case has one wording."""
    ids = rotated_ids(case)
    return draw(ids, case.id, seed, trial) if ids else None


def wording_text(case: Case, wording_id: str | None) -> str:
    """The text of a wording of case (None: its prompt); UsageError when the case has no such wording."""
    if wording_id is None:
        return case.prompt
    for wording in wordings(case):
        if wording.id == wording_id:
            return wording.text
    raise UsageError(f"case {case.id}: no wording {wording_id!r} (it has {', '.join(rotated_ids(case))})")


def check_wording(case: Case, wording_id: str, text: str, what: str = "wording") -> Wording:
    """A new wording for case: a free slug id and a text no other wording of the case has; UsageError naming what."""
    if not WORDING_ID.match(wording_id) or wording_id == PRIMARY:
        raise UsageError(f"{what} id {wording_id!r}: use up to 40 lowercase letters, digits and '-' "
                         f"(and not {PRIMARY!r}, the prompt's)")
    for existing in wordings(case):
        if existing.id == wording_id:
            raise UsageError(f"{what} id {wording_id!r}: case {case.id} has that wording already")
        if existing.text.strip() == text.strip():
            raise UsageError(f"{what} {wording_id!r}: the same text as the wording {existing.id!r}")
    if not text.strip():
        raise UsageError(f"{what} {wording_id!r}: the text is empty")
    return Wording(wording_id, text if text.endswith("\n") else text + "\n")


def next_id(case: Case) -> str:
    """The first free id of the form `wN` (w2 for a case with only its prompt)."""
    taken = {w.id for w in wordings(case)}
    number = len(taken) + 1
    while f"w{number}" in taken:
        number += 1
    return f"w{number}"


def parse_prompts(r: Reader, prompt: str) -> tuple[Wording, ...]:
    """prompts: a list of {id, text}, ids slugs other than `prompt` and unique, texts non-empty and unlike each
    other and the prompt."""
    items = r.data.get("prompts")
    r.seen.add("prompts")
    if items is None:
        return ()
    if not isinstance(items, list):
        raise r.fail("prompts", f"expected a list of wordings ({{id, text}}), found {kind(items)}")
    out: list[Wording] = []
    texts = {prompt.strip(): PRIMARY}
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise r.fail_item("prompts", index, f"expected a wording: a mapping with id and text, found {kind(item)}")
        entry = Reader(r.path, item, f"{r.prefix}prompts[{index}].")
        wording_id = entry.text("id", required=True)
        if not WORDING_ID.match(wording_id) or wording_id == PRIMARY:
            raise entry.fail("id", f"expected up to 40 lowercase letters, digits and '-' (not {PRIMARY!r}), "
                                   f"found {wording_id!r}")
        if any(existing.id == wording_id for existing in out):
            raise entry.fail("id", f"{wording_id!r} names an earlier wording too")
        text = entry.text("text", required=True)
        if text.strip() in texts:
            raise entry.fail("text", f"the same text as the wording {texts[text.strip()]!r}")
        texts[text.strip()] = wording_id
        entry.finish()
        out.append(Wording(wording_id, text))
    return tuple(out)
