"""Run a shell command in its own process group, with a timeout that kills the whole group."""

from __future__ import annotations

import io
import math
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from corpus.fsutil import write_error
from runner import children
from runner.children import kill_group
from runner.sandbox.bwrap import SandboxSpec, command_line
from runner.sandbox.limits import command_cgroup, enforcement
from runner.sandbox.loopback import Receiver
from runner.sandbox.seccomp import filter_fd

TAIL_BYTES = 8192
TRUNCATION_MARKER = "\n[hindcast: output truncated after {limit} bytes; {dropped} more bytes discarded]\n"


@dataclass(frozen=True)
class ProcessResult:
    """How a command ended."""

    exit_code: int | None
    """The shell's exit code; None when it could not start or was killed at the timeout."""
    timed_out: bool
    """True when the timeout killed the process group."""
    duration: float
    """Wall seconds from start to the end of the process group."""
    tail: str
    """The last few KiB of stdout (and stderr, when it goes to the same log)."""
    output_bytes: int
    """Total bytes the command wrote."""
    truncated: bool
    """True when output beyond the cap was discarded."""
    start_error: str | None = None
    """Why the command could not be started, if it could not."""
    stderr_tail: str = ""
    """The last few KiB of stderr, when it went to a log of its own (stderr_path)."""


def run_command(
    command: str,
    cwd: Path,
    env: dict[str, str],
    timeout: float,
    log_path: Path,
    *,
    max_output_bytes: int | None = None,
    stdin_path: Path | None = None,
    marker: str | None = None,
    sandbox: SandboxSpec | None = None,
    inherit_fds: tuple[int, ...] = (),
    stderr_path: Path | None = None,
    held: Callable[[], None] | None = None,
) -> ProcessResult:
    """Run `bash -c command` in cwd with its own session; output goes to log_path (capped), never to memory whole.

    At the timeout the whole process group is killed; after a normal exit the group is killed too, so no
    grandchild outlives the command. With marker (a "NAME=value" entry of env), processes that left the group
    (setsid, daemons) but still carry the marker in their environment are killed as well (Linux).

    With sandbox, the command runs inside that bubblewrap sandbox instead (cwd and env are then the spec's):
    it is the only child of its own pid namespace, so killing bwrap ends every process it started, and a
    sandbox that could not be set up is a start error, never an exit code of the command.
    inherit_fds: descriptors the command inherits at the same numbers (the caller's to close). With stderr_path,
    stderr goes to that log (capped alike) instead of being mixed into log_path.

    When the log cannot be written (a full disk) the command is killed at once and WriteError naming log_path
    is raised once it has ended.

    held: what must be done before the command starts (its workspace being made). With a sandbox it runs while
    bubblewrap sets the sandbox up (and the loopback's opener starts), the command held until it returns; when
    it raises, the sandbox is killed with the command never started, and the exception goes on. The timeout
    and the duration count from its end.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        cgroup = stack.enter_context(command_cgroup(sandbox.limits, enforcement())) \
            if sandbox is not None and sandbox.limits is not None else []
        return _run(command, cwd, env, timeout, log_path, max_output_bytes, stdin_path, marker, sandbox, cgroup,
                    inherit_fds, stderr_path, held)


def _run(command: str, cwd: Path, env: dict[str, str], timeout: float, log_path: Path, max_output_bytes: int | None,
         stdin_path: Path | None, marker: str | None, sandbox: SandboxSpec | None,
         cgroup: list[str], inherit_fds: tuple[int, ...] = (), stderr_path: Path | None = None,
         held: Callable[[], None] | None = None) -> ProcessResult:
    if held is not None and sandbox is None:  # nothing to start meanwhile
        held()
        held = None
    started = time.monotonic()
    argv, status_read, block_write = ["bash", "-c", command], -1, -1
    pass_fds: tuple[int, ...] = ()
    receiver: Receiver | None = None
    if sandbox is not None:
        status_read, status_write = os.pipe()
        seccomp = filter_fd()
        pass_fds = (status_write, seccomp)
        loopback_fd = block_read = None
        if sandbox.loopback is not None and sandbox.opens_loopback:  # the opener waits for the go itself
            host_end, inside_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            loopback_fd = inside_end.detach()
            pass_fds += (loopback_fd,)
            receiver = Receiver(host_end, sandbox.loopback)
        elif held is not None:
            block_read, block_write = os.pipe()
            pass_fds += (block_read,)
        argv = cgroup + command_line(sandbox, argv, status_fd=status_write, loopback_fd=loopback_fd,
                                     seccomp_fd=seccomp, block_fd=block_read)
        cwd, env = sandbox.workspace, {"PATH": os.environ.get("PATH", os.defpath)}
    try:
        with open(stdin_path, "rb") if stdin_path else open(os.devnull, "rb") as stdin:
            proc = subprocess.Popen(
                argv,
                cwd=cwd,
                env=env,
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if stderr_path is not None else subprocess.STDOUT,
                start_new_session=True,
                pass_fds=pass_fds + inherit_fds,
            )
    except OSError as exc:
        for fd in (status_read, block_write):
            if fd >= 0:
                os.close(fd)
        if receiver is not None:
            receiver.channel.close()
        if held is not None:  # done whatever became of the command, as its caller expects
            held()
        with open(log_path, "wb") as log:
            log.write(f"[hindcast: cannot start command: {exc.strerror}]\n".encode())
        return ProcessResult(None, False, 0.0, "", 0, False, start_error=exc.strerror or str(exc))
    finally:
        for fd in pass_fds:
            os.close(fd)
    if receiver is not None:
        receiver.start()
    children.started(proc.pid)
    pump = _OutputPump(proc, proc.stdout, log_path, max_output_bytes)
    pump.start()
    errors = _OutputPump(proc, proc.stderr, stderr_path, max_output_bytes) if stderr_path is not None else None
    if errors is not None:
        errors.start()
    timed_out, released = False, False
    try:
        if held is not None:
            held()
        _release(receiver, block_write)
        released, started = True, time.monotonic()
        timed_out = not wait_for_exit(proc, timeout)
    finally:
        kill_group(proc.pid)
        if marker:
            kill_marked(marker)
        proc.wait()
        children.ended(proc.pid)
        if block_write >= 0:  # only now: at its end of file bwrap would start the command
            os.close(block_write)
        pump.join(timeout=5)
        if errors is not None:
            errors.join(timeout=5)
        if not released and receiver is not None:
            receiver.finish()
    tail = pump.tail.decode("utf-8", "replace")
    stderr_tail = errors.tail.decode("utf-8", "replace") if errors is not None else ""
    start_error = None
    if status_read >= 0 and not _sandbox_started(status_read):
        lines = [line for line in (tail + stderr_tail).splitlines() if line.strip()]
        start_error = f"the sandbox could not be set up: {lines[-1] if lines else f'bwrap exit {proc.returncode}'}"
    # The loopback's port is opened before the command starts: without it the command never ran.
    unopened = receiver.finish() if receiver is not None else None
    if unopened and not start_error:
        start_error = f"the sandbox's loopback could not be set up: {unopened}"
    if pump.error is not None:
        raise write_error(pump.error, log_path)
    if errors is not None and errors.error is not None and stderr_path is not None:
        raise write_error(errors.error, stderr_path)
    return ProcessResult(
        exit_code=None if timed_out or start_error else proc.returncode,
        timed_out=timed_out and not start_error,
        duration=time.monotonic() - started,
        tail=tail,
        output_bytes=pump.total,
        truncated=pump.truncated,
        start_error=start_error,
        stderr_tail=stderr_tail,
    )


def _release(receiver: Receiver | None, block_write: int) -> None:
    """Let a held command start: the opener's go, or bwrap's byte on its block descriptor."""
    if receiver is not None:
        receiver.release()
    if block_write >= 0:
        with suppress(OSError):  # bwrap ended already (the sandbox could not be set up): its status says so
            os.write(block_write, b"+")


def wait_for_exit(proc: subprocess.Popen[bytes], timeout: float) -> bool:
    """Wait until proc ends or timeout seconds pass; True when it ended (it is not reaped).

    The kernel wakes the wait the moment the process ends (a pidfd polled for it): `Popen.wait(timeout)` sleeps
    in doubling steps of up to 50 ms instead, which a command of a few milliseconds pays whole, twice a trial.
    Where pidfds are missing (Linux before 5.3) that is the fallback.
    """
    try:
        pidfd = os.pidfd_open(proc.pid)
    except (AttributeError, OSError):
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True
    try:
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        deadline = time.monotonic() + timeout
        while (remaining := deadline - time.monotonic()) > 0:
            if poller.poll(math.ceil(min(remaining, 86400.0) * 1000)):
                return True
        return bool(poller.poll(0))
    finally:
        os.close(pidfd)


def _sandbox_started(status_read: int) -> bool:
    """Whether bwrap's status lines (read to their end, then closed) report the command's start."""
    with os.fdopen(status_read, "rb") as status:
        return any(b'"child-pid"' in line for line in status.read().splitlines())


def kill_marked(marker: str, rounds: int = 3) -> int:
    """SIGKILL every process whose environment holds marker ("NAME=value"); returns how many were killed.

    Catches descendants that left the process group. Repeated a few rounds so a parent that forks while it is
    being swept does not leave its child behind. A no-op where /proc is missing.
    """
    needle = marker.encode()
    killed = 0
    for _ in range(rounds):
        found = 0
        try:
            entries = [e.name for e in os.scandir("/proc") if e.name.isdigit()]
        except OSError:
            return killed
        for pid in entries:
            try:
                with open(f"/proc/{pid}/environ", "rb") as handle:
                    environ = handle.read()
            except OSError:
                continue
            if needle in environ.split(b"\0"):
                try:
                    os.kill(int(pid), signal.SIGKILL)
                    found += 1
                except OSError:
                    pass
        killed += found
        if not found:
            break
    return killed


class _OutputPump(threading.Thread):
    """Copies the child's output to the log, up to a cap, keeping a tail and draining the rest. When the log
    cannot be written, the error is kept for the caller (error) and the child's process group killed."""

    def __init__(self, proc: subprocess.Popen[bytes], stream: IO[bytes] | None, log_path: Path,
                 limit: int | None) -> None:
        super().__init__(daemon=True)
        self.proc = proc
        self.stream = stream
        self.log_path = log_path
        self.limit = limit
        self.total = 0
        self.tail = b""
        self.truncated = False
        self.error: OSError | None = None

    def run(self) -> None:
        assert isinstance(self.stream, io.BufferedReader)
        try:
            self._copy(self.stream)
        except OSError as error:
            self.error = error
            kill_group(self.proc.pid)  # its output has nowhere to go: the command stops now, not at its timeout
            while self.stream.read1(65536):
                pass
        finally:
            self.stream.close()

    def _copy(self, stream: io.BufferedReader) -> None:
        written = 0
        with open(self.log_path, "wb") as log:
            while chunk := stream.read1(65536):
                self.total += len(chunk)
                self.tail = (self.tail + chunk)[-TAIL_BYTES:]
                if self.limit is None or written + len(chunk) <= self.limit:
                    log.write(chunk)
                    written += len(chunk)
                elif not self.truncated:
                    log.write(chunk[: self.limit - written])
                    written = self.limit
                    self.truncated = True
            if self.truncated:
                marker = TRUNCATION_MARKER.format(limit=self.limit, dropped=self.total - written)
                log.write(marker.encode())
