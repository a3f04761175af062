"""Check a --since/--until value the way `git log` will read it, so an unreadable date is an error, not "now"."""

from __future__ import annotations

import re
import tempfile

from corpus.errors import UsageError
from corpus.gitutil import git_env, run_git

# git's approxidate reads any text and falls back to the current time for what it cannot read: "not a date"
# means "now" to `git log --since`, and a scan would find nothing. Asked at two fixed current times, a date that
# git could not read comes back as that current time both times; a relative date moves with it, an absolute one
# stays put, and neither equals both fixed times.
_NOWS = (1_000_000_000, 1_300_000_000)
_MEANS_NOW = re.compile(r"\b(now|today|ago)\b", re.IGNORECASE)


def check_dates(**options: str | None) -> dict[str, int]:
    """Raise a UsageError naming the option (`--since`, `--until`) whose value git cannot read as a date;
    return each given option's value as git reads it now, in seconds since the epoch."""
    given = {name: value for name, value in options.items() if value is not None}
    if not given:
        return {}
    args = [f"--{'max-age' if name == 'since' else 'min-age'}" for name in given]
    seen: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="hindcast-date-") as scratch:
        run_git(["init", "-q", "--bare", scratch], scratch)
        flags = [f"--{name}={value}" for name, value in given.items()]
        for now in _NOWS:
            out = run_git(["rev-parse", *flags], scratch, env=git_env({"GIT_TEST_DATE_NOW": str(now)}))
            seen.append(out.stdout.decode().split())
        current = run_git(["rev-parse", *flags], scratch).stdout.decode().split()
    for index, (name, value) in enumerate(given.items()):
        unread = all(run[index] == f"{args[index]}={now}" for run, now in zip(seen, _NOWS, strict=False))
        if not value.strip() or (unread and not _MEANS_NOW.search(value)):
            raise UsageError(f"--{name} {value!r}: not a date git can read (e.g. 2024-01-31, \"2 weeks ago\")")
    return {name: int(flag.partition("=")[2]) for name, flag in zip(given, current, strict=False)}
