"""Python distribution names as PEP 503 compares them: one rule for every reader of package names."""

from __future__ import annotations

import re


def normal_name(name: str) -> str:
    """PEP 503's normalized name: runs of `-`, `_` and `.` as one `-`, lower case (`Flask_SQLAlchemy` is
    `flask-sqlalchemy`)."""
    return re.sub(r"[-_.]+", "-", name).lower()
