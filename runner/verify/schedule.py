"""The order verify's attempts start in: while one attempt of a case builds the case's environment, a free slot
takes another case's attempt rather than wait on the same build."""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator, Sequence
from typing import Generic, TypeVar

J = TypeVar("J")
_AHEAD = object()
"""The builder of a group claimed from outside the jobs."""


class BuildersFirst(Generic[J]):
    """Jobs in groups (a case's attempts, which share one environment entry), handed out one at a time.

    A group is building from the moment its first job starts until that job is past its environment (`ready`) or
    has ended (`ended`); until then the group's other jobs would only wait on the entry's lock, holding a slot
    that could build another group's entry. So the next job is the first, in the given order, of a group that is
    not building; only when every waiting job's group is building does one start anyway (it waits, as it would
    have). A warm cache makes every group ready at once; the order is then the given one."""

    def __init__(self, jobs: Sequence[tuple[Hashable, J]]) -> None:
        self._waiting: list[tuple[Hashable, J]] = list(jobs)
        self._building: dict[Hashable, object] = {}
        self._ready: set[Hashable] = set()
        self._started: set[Hashable] = set()
        self._handed = 0
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)

    def __iter__(self) -> Iterator[J]:
        return self

    def __next__(self) -> J:
        with self._lock:
            if not self._waiting:
                raise StopIteration
            index = next((i for i, (group, _) in enumerate(self._waiting) if group not in self._building), 0)
            group, job = self._waiting.pop(index)
            self._started.add(group)
            self._handed += 1
            self._changed.notify_all()
            if group not in self._ready and group not in self._building:
                self._building[group] = job
            return job

    def wait_handed(self, count: int, stop: threading.Event) -> None:
        """Return once count jobs (or every job) were handed out, or stop is set."""
        with self._changed:
            while self._handed < count and self._waiting and not stop.is_set():
                self._changed.wait(0.1)

    def claim(self, group: Hashable) -> bool:
        """Take group's build for a builder outside the jobs (`runner.verify.ahead`): True when none of its jobs
        has started and nobody builds it; the group is then building until `release`."""
        with self._lock:
            if group in self._started or group in self._building or group in self._ready:
                return False
            self._building[group] = _AHEAD
            return True

    def release(self, group: Hashable) -> None:
        """The outside builder is done with group, whatever became of the build."""
        with self._lock:
            if self._building.get(group) is _AHEAD:
                del self._building[group]
                self._ready.add(group)

    def ready(self, job: J) -> None:
        """job is past its environment: its group's entry is there for the others."""
        with self._lock:
            for group, builder in list(self._building.items()):
                if builder is job:
                    del self._building[group]
                    self._ready.add(group)

    ended = ready
    """job ended, whatever became of its environment: its group's next job builds it if it must."""
