"""Processes fed without waiting: a pipe widened to a megabyte, and a thread that writes behind the caller."""

from __future__ import annotations

import contextlib
import fcntl
import os
import queue
import threading
from collections.abc import Iterator
from typing import IO

PIPE_SIZE = 1 << 20


def widen_pipe(stream: int | IO[bytes] | None) -> None:
    """Let the writer run up to a megabyte ahead of the reader (Linux); elsewhere the default pipe stays.
    Takes a file object or a descriptor (None: no pipe, nothing to do)."""
    if stream is None:
        return
    with contextlib.suppress(OSError):
        fcntl.fcntl(stream if isinstance(stream, int) else stream.fileno(), getattr(fcntl, "F_SETPIPE_SZ", 1031),
                    PIPE_SIZE)


class Pump:
    """Bytes written to a stream by a thread, in order: the caller hands them over and goes on.

    The thread holds the interpreter lock only between writes and closes the stream once `end` has been
    called and everything before it is written, so the reader sees end of input. A write that fails (the
    reader is gone) stops the pump; `broken` says so and the rest is dropped. `queued` says how many bytes
    were handed over that no one has started on yet, so a caller can keep that bounded.
    """

    def __init__(self, stream: IO[bytes], name: str) -> None:
        self.stream = stream
        self.items: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self.broken = False
        self.ended = False
        self.queued = 0
        """Bytes put and not yet taken, by the thread or by `take_one`."""
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True, name=name)
        self.thread.start()

    def _run(self) -> None:
        fd = self.stream.fileno()
        while (item := self.items.get()) is not None:
            with self.lock:
                self.queued -= len(item)
            if self.broken:
                continue
            view = memoryview(item)
            try:
                while view:
                    view = view[os.write(fd, view):]
            except OSError:
                self.broken = True
        with contextlib.suppress(OSError):
            self.stream.close()

    def put(self, data: bytes) -> None:
        """Queue data to be written."""
        with self.lock:
            self.queued += len(data)
        self.items.put(data)

    def take_one(self) -> bytes | None:
        """One item the thread has not started on yet, for the caller to deal with itself; None when there
        is none (the thread keeps writing meanwhile: each item goes to one of them)."""
        try:
            item = self.items.get_nowait()
        except queue.Empty:
            return None
        if item is None:  # ended: the thread must still see it
            self.items.put(None)
            return None
        with self.lock:
            self.queued -= len(item)
        return item

    def take(self) -> Iterator[bytes]:
        """Every item the thread has not started on yet, one at a time (`take_one` until there is none)."""
        while (item := self.take_one()) is not None:
            yield item

    def end(self) -> None:
        """No more data: the stream is closed once the rest is written (this does not wait)."""
        if not self.ended:
            self.ended = True
            self.items.put(None)

    def close(self) -> None:
        """End, and wait until everything queued is written (or the pump broke) and the stream is closed."""
        self.end()
        self.thread.join()
