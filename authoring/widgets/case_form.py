"""The case fields an author sets on approval: id, title, owner, policy, commands, scorecard fields and the rest."""

from __future__ import annotations

from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Checkbox, Input, Label, Select, TextArea

from authoring.draft import Draft, parse_timeout, split_list
from authoring.scorecardfields import split_lines
from corpus import UsageError

TEXT_FIELDS = (
    ("id", "Id"), ("title", "Title"), ("owner", "Owner"), ("tags", "Tags"), ("trigger_paths", "Trigger paths"),
    ("setup_command", "Setup command"), ("setup_python", "Python"), ("grader_command", "Grader command"), ("grader_timeout", "Timeout (s)"),
)


SCORECARD_HINTS = {
    "allowed_paths": "one glob per line, e.g. src/shop/ (none: anything outside the tests)",
    "invariants": "one per line: name: command (name@60: command for 60 s, 120 by default)",
}
"""The placeholders of the scorecard's multi-line fields: how to type them."""
POLICY_CHOICES = [("advisory", "advisory"), ("blocking", "blocking")]


class CaseForm(VerticalScroll):
    """A compact two-column form; `read` turns it back into a Draft (or a UsageError naming the field)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "screen.back", "Leave the form", key_display="Esc")]

    DEFAULT_CSS = """
    CaseForm { height: 1fr; layout: grid; grid-size: 2; grid-columns: 16 1fr; grid-rows: 1; grid-gutter: 0 1; }
    CaseForm > Label { width: 1fr; text-align: right; color: $text-muted; }
    CaseForm > Input, CaseForm > Select, CaseForm > Checkbox, CaseForm > TextArea { width: 1fr; }
    CaseForm > .-rows-2 { row-span: 2; }
    CaseForm > .-rows-3 { row-span: 3; }
    CaseForm > TextArea { height: 1fr; }
    CaseForm > .-invariant-policy { display: none; }
    CaseForm.-blocking > .-invariant-policy { display: block; }
    """

    def compose(self) -> ComposeResult:
        for key, label in TEXT_FIELDS[:3]:
            yield Label(label)
            yield Input(id=f"form-{key}", compact=True)
        yield Label("Policy")
        yield Select([("advisory", "advisory"), ("blocking", "blocking")], id="form-policy", allow_blank=False,
                     compact=True, value="advisory")
        yield Label("Critical")
        yield Checkbox("blocks on any regression", id="form-critical", compact=True)
        for key, label in TEXT_FIELDS[3:]:
            yield Label(label)
            yield Input(id=f"form-{key}", compact=True)
        yield Label("Allowed paths", classes="-rows-2")
        yield TextArea(id="form-allowed_paths", compact=True, classes="-rows-2",
                       placeholder=SCORECARD_HINTS["allowed_paths"])
        yield Label("Risk flags")
        yield Input(id="form-risk_flags", compact=True, placeholder="lowercase labels, e.g. payments, auth")
        yield Label("Invariants", classes="-rows-3")
        yield TextArea(id="form-invariants", compact=True, classes="-rows-3",
                       placeholder=SCORECARD_HINTS["invariants"])
        yield Label("Invariant policy", classes="-invariant-policy")
        yield Select(POLICY_CHOICES, id="form-invariant_policy", allow_blank=False, compact=True,
                     value="advisory", classes="-invariant-policy")

    @on(Select.Changed, "#form-policy")
    def _policy_changed(self, event: Select.Changed) -> None:
        """The invariant policy applies only to a blocking case: shown only then."""
        self.set_class(event.value == "blocking", "-blocking")

    def load(self, draft: Draft) -> None:
        """Fill the fields from draft."""
        values = {"id": draft.id, "title": draft.title, "owner": draft.owner, "tags": ", ".join(draft.tags),
                  "trigger_paths": ", ".join(draft.trigger_paths), "setup_command": draft.setup_command,
                  "setup_python": draft.setup_python, "grader_command": draft.grader_command, "grader_timeout": str(draft.grader_timeout)}
        for key, value in values.items():
            field = self.query_one(f"#form-{key}", Input)
            field.value = value
            field.cursor_position = 0
        self.query_one("#form-policy", Select).value = draft.policy
        self.set_class(draft.policy == "blocking", "-blocking")
        self.query_one("#form-critical", Checkbox).value = draft.critical
        self.query_one("#form-risk_flags", Input).value = ", ".join(draft.risk_flags)
        self.query_one("#form-risk_flags", Input).cursor_position = 0
        for key, text in (("allowed_paths", "\n".join(draft.allowed_paths)), ("invariants", draft.invariants)):
            area = self.query_one(f"#form-{key}", TextArea)
            if area.text != text:
                area.load_text(text)
        self.query_one("#form-invariant_policy", Select).value = draft.invariant_policy

    def read(self, prompt: str, fallback_timeout: int | None = None, wordings: str = "") -> Draft:
        """The draft the form describes, with the prompt and the wordings as typed; with fallback_timeout a bad
        timeout is kept as it was instead."""
        value = {key: self.query_one(f"#form-{key}", Input).value for key, _ in TEXT_FIELDS}
        try:
            timeout = parse_timeout(value["grader_timeout"])
        except UsageError:
            if fallback_timeout is None:
                raise
            timeout = fallback_timeout
        policy = self.query_one("#form-policy", Select).value
        invariant_policy = self.query_one("#form-invariant_policy", Select).value if policy == "blocking" else None
        return Draft(prompt=prompt, id=value["id"].strip(), title=value["title"], owner=value["owner"],
                     policy=str(policy), critical=self.query_one("#form-critical", Checkbox).value,
                     tags=split_list(value["tags"]), trigger_paths=split_list(value["trigger_paths"]),
                     setup_command=value["setup_command"], setup_python=value["setup_python"],
                     grader_command=value["grader_command"], grader_timeout=timeout,
                     allowed_paths=split_lines(self.query_one("#form-allowed_paths", TextArea).text),
                     risk_flags=split_list(self.query_one("#form-risk_flags", Input).value),
                     invariants=self.query_one("#form-invariants", TextArea).text.strip("\n"),
                     invariant_policy=str(invariant_policy or "advisory"), wordings=wordings)
