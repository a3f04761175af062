"""The commit message, the miner's evidence, its setup and where it came from, and the SZZ / escape-window facts
of the selected candidate."""

from __future__ import annotations

from datetime import date

from rich.console import Group, RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from authoring.queue import QueueRow
from corpus import Case


class FactsView(VerticalScroll):
    """What the author needs to judge a candidate before reading its diff."""

    DEFAULT_CSS = """
    FactsView { height: 1fr; padding: 0 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="facts-text")

    def show(self, case: Case | None, row: QueueRow | None, today: date, error: str | None = None) -> None:
        """Show the facts of case (or the error that kept it from loading)."""
        self.query_one(Static).update(render_facts(case, row, today, error))
        self.scroll_home(animate=False)


def render_facts(case: Case | None, row: QueueRow | None, today: date, error: str | None) -> RenderableType:
    """The facts as one rich renderable."""
    if error is not None:
        return Text.assemble(("Cannot open this candidate\n", "bold red"), error)
    if case is None:
        return Text("The queue is empty.", style="dim")
    mined = case.mined
    head = Text(mined.subject if mined and mined.subject else case.title, style="bold")
    facts = Text()
    if mined:
        age = row.age_days(today) if row else None
        facts.append(f"score {mined.score:.2f}")
        if mined.authored:
            facts.append(f" · authored {mined.authored[:10]}" + (f" ({age} days ago)" if age is not None else ""))
        facts.append("\n")
    facts.append(f"base {case.base_commit[:12]} → fix {case.fix_commit[:12]}", style="dim")
    if mined and mined.merge:
        facts.append(" (merge; diff against the first parent)", style="dim")
    if mined and mined.branch_commits:
        shown = ", ".join(sha[:10] for sha in mined.branch_commits[:8])
        more = f" and {len(mined.branch_commits) - 8} more" if len(mined.branch_commits) > 8 else ""
        facts.append(f"\nbranch commits ({len(mined.branch_commits)}): {shown}{more}", style="dim")
    parts: list[RenderableType] = [head, facts]
    parts.append(_setup(case))
    if mined:
        parts.append(_szz(mined.introducing_commits, mined.escape_days))
        parts.extend(_list(title, items) for title, items in (
            ("Evidence", mined.evidence), ("Source files (oracle)", mined.source_files),
            ("Test files (grader)", mined.test_files), ("Left out of the oracle", mined.omitted_files)) if items)
        if mined.message.strip():
            parts.append(Text.assemble(("Commit message\n", "bold"), (mined.message.rstrip(), "italic")))
    if case.leak_override:
        parts.append(Text.assemble(("Leak override: ", "bold yellow"), case.leak_override))
    return Group(*parts)


def _setup(case: Case) -> Text:
    """The setup the case runs (interpreter, command) and, from the scan, where each came from."""
    setup = case.setup
    shown = [text for text in (setup.python and f"python {setup.python}", setup.command) if text]
    text = Text.assemble(("Setup: ", "bold"), " · ".join(shown) if shown else "none")
    for line in case.mined.setup_origin if case.mined else ():
        text.append(f"\n  {line}", style="dim")
    return text


def _szz(introducing: tuple[str, ...], escape_days: float | None) -> Text:
    if not introducing and escape_days is None:
        return Text("SZZ: not computed", style="dim")
    text = Text.assemble(("SZZ: ", "bold"))
    if introducing:
        text.append("introduced by " + ", ".join(sha[:10] for sha in introducing))
    if escape_days is not None:
        text.append(f"; escaped for {escape_days:g} days" if introducing else f"escaped for {escape_days:g} days")
    return text


def _list(title: str, items: tuple[str, ...]) -> Text:
    return Text.assemble((f"{title}: ", "bold"), ", ".join(items))
