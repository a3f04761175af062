"""The demo shop's history, commit by commit: what each commit writes, edits or deletes.

Data for `build_app.py`; a Commit's message, author and operations fully determine its sha given the fixed
dates and identity the builder uses. One module per chapter of the history, oldest first; `model` holds what a
commit is made of.
"""

from __future__ import annotations

from . import checkout, coupons, fixes, founding, receipts, release
from .model import AUTHORS, START, Commit, Delete, Edit, Op, Write

HISTORY: tuple[Commit, ...] = (
    *founding.COMMITS,
    *checkout.COMMITS,
    *coupons.COMMITS,
    *receipts.COMMITS,
    *fixes.COMMITS,
    *release.COMMITS,
)

__all__ = ["AUTHORS", "HISTORY", "START", "Commit", "Delete", "Edit", "Op", "Write"]
