"""The README defines its words before the workflow uses them: a Concepts section ahead of the Workflow."""

from __future__ import annotations

from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
TERMS = ("**Candidate**", "**case**", "**grader**", "**oracle**", "`feature`", "**Policy**", "`advisory`",
         "`blocking`", "`critical`", "**Variant**", "**trial**", "pass@k", "pass^k", "**Verdicts**", "`error`",
         "VALID", "INVALID", "PASS, WARN or BLOCK", "STABLE_PASS", "reproduced", "**Exit codes**", "130 interrupted")


def test_the_concepts_come_before_the_workflow_and_define_its_words() -> None:
    concepts, workflow = README.index("\n## Concepts\n"), README.index("\n## Workflow\n")
    assert concepts < workflow
    section = README[concepts:workflow]
    assert [term for term in TERMS if term not in section] == []
