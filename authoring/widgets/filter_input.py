"""The queue filter field."""

from __future__ import annotations

from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.widgets import Input


class FilterInput(Input):
    """The queue filter; its footer says how to leave it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "screen.back", "Clear the filter", key_display="Esc")]
