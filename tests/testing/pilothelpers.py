"""Helpers for driving the review app in tests without an async test plugin."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine
from typing import Any

from textual.pilot import Pilot
from textual.worker import WorkerState


def sync(test: Callable[..., Coroutine[Any, Any, None]]) -> Callable[..., None]:
    """Run an async test body on its own event loop."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        asyncio.run(test(*args, **kwargs))

    return run


async def settle(pilot: Pilot[Any]) -> None:
    """Wait until no worker is pending or running (a replaced exclusive worker counts as done), then idle."""
    while any(worker.state in (WorkerState.PENDING, WorkerState.RUNNING) for worker in pilot.app.workers):
        await asyncio.sleep(0.005)
    await pilot.pause()
