"""What a running verify is doing: each attempt's step as it starts one (environment, setup, baseline, oracle) and
its end, counted for a progress line with a moving estimate of the time left."""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

StepName = Literal["environment", "setup", "baseline", "oracle", "done"]
STEPS: tuple[StepName, ...] = ("environment", "setup", "baseline", "oracle")
"""The steps of an attempt, in order: its workspace and interpreter environment (from the cache, or built), the
setup command (when the environment was built now), the side's grading."""


@dataclass(frozen=True)
class Step:
    """One attempt starting a step, or ending (`done`)."""

    case_id: str
    """The case (or candidate)."""
    side: str
    """baseline or oracle."""
    repeat: int
    """1-based repeat number."""
    step: StepName
    """The step it starts, or done."""
    outcome: str | None = None
    """With done: pass, fail or error."""
    seconds: float | None = None
    """With done: how long the attempt took."""

    @property
    def attempt(self) -> str:
        """`calc-add: baseline #1`."""
        return f"{self.case_id}: {self.side} #{self.repeat}"


class Tracker:
    """The attempts of one verify as their steps arrive (from the attempts' threads): how many ended, which step
    the running ones are in, and the time left."""

    def __init__(self, total: int, jobs: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.total = total
        self.jobs = max(jobs, 1)
        self.clock = clock
        self._lock = threading.Lock()
        self._running: dict[str, tuple[StepName, float]] = {}
        self._took: list[float] = []

    def on(self, step: Step) -> None:
        """Take one step into account."""
        with self._lock:
            if step.step == "done":
                started = self._running.pop(step.attempt, None)
                self._took.append(step.seconds if step.seconds is not None
                                  else self.clock() - started[1] if started else 0.0)
            else:
                _, started_at = self._running.get(step.attempt, (step.step, self.clock()))
                self._running[step.attempt] = (step.step, started_at)

    @property
    def done(self) -> int:
        """Attempts ended."""
        with self._lock:
            return len(self._took)

    def phases(self) -> str:
        """The running attempts by step (`environment 2, baseline 1`); `done` once all ended, else `waiting`."""
        with self._lock:
            counts = Counter(step for step, _ in self._running.values())
            ended = len(self._took) >= self.total
        return ", ".join(f"{name} {counts[name]}" for name in STEPS if counts[name]) or ("done" if ended else "waiting")

    def eta(self) -> float | None:
        """Seconds left: the mean attempt so far for each attempt not started, less what each running one has
        spent already, spread over the jobs; it goes down while attempts run. None before one has ended."""
        now = self.clock()
        with self._lock:
            if not self._took:
                return None
            mean = sum(self._took) / len(self._took)
            running = [max(mean - (now - started), 0.0) for _, started in self._running.values()]
            queued = max(self.total - len(self._took) - len(running), 0)
        return (sum(running) + queued * mean) / min(self.jobs, max(len(running) + queued, 1))


def eta_text(seconds: float | None) -> str:
    """`ETA 3m05s`, `ETA 12s`, or `ETA ?` before an attempt has ended."""
    if seconds is None:
        return "ETA ?"
    whole = round(seconds)
    return f"ETA {whole // 60}m{whole % 60:02d}s" if whole >= 60 else f"ETA {whole}s"
