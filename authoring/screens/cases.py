"""The review screen over approved cases."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.screen import Screen

from authoring.screens.review import ReviewScreen


class CaseEditScreen(ReviewScreen, inherit_bindings=False):
    """The same screen over approved cases: `a` saves edits in place; there is nothing to reject."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Save"),
        *(b for b in ReviewScreen.BINDINGS if isinstance(b, Binding) and b.key not in ("a", "r")),
        *Screen.BINDINGS,
    ]
    APPROVE_WORD = "save"

    def action_reject(self) -> None:
        """Cases are deprecated by editing their status, never rejected."""
