"""The README defines its words before the workflow uses them: a Concepts section ahead of the Workflow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
TERMS = ("**Candidate**", "**case**", "**grader**", "**oracle**", "`feature`", "**Policy**", "`advisory`",
         "`blocking`", "`critical`", "**Variant**", "**trial**", "pass@k", "pass^k", "**Verdicts**", "`error`",
         "VALID", "INVALID", "PASS, WARN or BLOCK", "STABLE_PASS", "reproduced", "**Exit codes**", "130 interrupted")


def test_the_concepts_come_before_the_workflow_and_define_its_words() -> None:
    concepts, workflow = README.index("\n## Concepts\n"), README.index("\n## Workflow\n")
    assert concepts < workflow
    section = README[concepts:workflow]
    assert [term for term in TERMS if term not in section] == []


PROSE = re.sub(r"```.*?```", "", README, flags=re.DOTALL)
"""The README without its code blocks (commands, not prose)."""
DEFINED = (("candidate", "**Candidate**"), ("case", "**case**"), ("grader", "hidden grader"), ("oracle", "the oracle:"),
           ("variant", "**Variant**"), ("trial", "**trial**"), ("gate", "**Gate**"), ("regression", "**regression**"),
           ("policy", "**Policy**"), ("advisory", "`advisory`"), ("blocking", "`blocking`"),
           ("criticality", "**criticality**"), ("verdict", "**Verdicts**"))
"""Each word of the README's concepts and where it is defined, in any case."""
EXACT = (("feature", "A `feature` case"), ("pass@k", "pass@k:"), ("pass^k", "pass^k:"), ("critical", "`critical`"),
         ("reproduced", "`reproduced`"), ("flaky", "`flaky`"), ("not reproduced", "`not reproduced`"))
"""Those whose case matters (FLAKY, the flakes verdict, is not triage's label)."""


@pytest.mark.parametrize(("word", "definition", "flags"),
                         [(w, d, re.IGNORECASE) for w, d in DEFINED] + [(w, d, 0) for w, d in EXACT],
                         ids=[w for w, _ in (*DEFINED, *EXACT)])
def test_no_line_uses_a_concept_before_it_is_defined(word: str, definition: str, flags: int) -> None:
    defined = PROSE.index(definition)
    first = re.search(rf"(?<![\w/.-]){re.escape(word)}s?(?!\w)", PROSE, flags)
    assert first is not None and first.start() >= defined - len(definition), (
        f"{word!r} is used before it is defined: ...{PROSE[max(0, first.start() - 60):first.start() + 20]!r}"
        if first else word)
