"""The order verify's attempts start in: while one attempt of a case builds the case's environment, a free slot
takes another case's attempt rather than wait on the same build."""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator, Sequence
from typing import Generic, TypeVar

J = TypeVar("J")


class BuildersFirst(Generic[J]):
    """Jobs in groups (a case's attempts, which share one environment entry), handed out one at a time.

    A group is building from the moment its first job starts until that job is past its environment (`ready`) or
    has ended (`ended`); until then the group's other jobs would only wait on the entry's lock, holding a slot
    that could build another group's entry. So the next job is the first, in the given order, of a group that is
    not building; only when every waiting job's group is building does one start anyway (it waits, as it would
    have). A warm cache makes every group ready at once; the order is then the given one."""

    def __init__(self, jobs: Sequence[tuple[Hashable, J]]) -> None:
        self._waiting: list[tuple[Hashable, J]] = list(jobs)
        self._building: dict[Hashable, J] = {}
        self._ready: set[Hashable] = set()
        self._lock = threading.Lock()

    def __iter__(self) -> Iterator[J]:
        return self

    def __next__(self) -> J:
        with self._lock:
            if not self._waiting:
                raise StopIteration
            index = next((i for i, (group, _) in enumerate(self._waiting) if group not in self._building), 0)
            group, job = self._waiting.pop(index)
            if group not in self._ready and group not in self._building:
                self._building[group] = job
            return job

    def ready(self, job: J) -> None:
        """job is past its environment: its group's entry is there for the others."""
        with self._lock:
            for group, builder in list(self._building.items()):
                if builder is job:
                    del self._building[group]
                    self._ready.add(group)

    ended = ready
    """job ended, whatever became of its environment: its group's next job builds it if it must."""
