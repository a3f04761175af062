"""A host server's ports on a sandbox's own loopback, for sandboxes whose network is off.

A sandbox without network has a private network namespace: the host's 127.0.0.1 is not there. Before the command
starts, a few lines of Python run first inside the sandbox (the harness's own interpreter, without site packages):
they open a listening socket on 127.0.0.1:PORT of the sandbox's loopback, hand it to the host over a socket pair
(SCM_RIGHTS), close every end they held, wait for the host's go and exec the command. The host server then accepts connections on that
socket directly: no process of the sandbox forwards anything, the command cannot stop or replace the server, and
the server sees every request as it was sent. Nothing else of the host's network becomes reachable.
"""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass

OPENER = """\
import _socket, os, sys
channel = _socket.socket(fileno=int(sys.argv[1]))
opened = []
try:
    for port in sys.argv[2].split(","):
        server = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
        server.bind(("127.0.0.1", int(port)))
        server.listen(128)
        opened.append(server)
    fds = b"".join(s.fileno().to_bytes(4, sys.byteorder) for s in opened)
    channel.sendmsg([b"ok"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
except OSError as exc:
    channel.sendall(("error " + str(exc)).encode())
    sys.exit(125)
for server in opened:
    server.close()
go = channel.recv(1)
channel.close()
if go != b"+":
    sys.exit(125)
try:
    os.execvp(sys.argv[4], sys.argv[4:])
except OSError as exc:
    sys.stderr.write("cannot run " + sys.argv[4] + ": " + (exc.strerror or str(exc)) + "\\n")
    os._exit(127)
"""
"""Run inside the sandbox as `python -I -S -c OPENER FD PORTS -- ARGV...`. It uses `_socket`, not `socket`: the
latter's imports (enum, selectors, collections.abc) double the interpreter's start, in every agent command. Once
the ports are handed over it waits for the host's go (`Receiver.release`): the host may still be making what the
command needs (its workspace) while the sandbox and this interpreter start; without the go it never runs the
command."""
GO = b"+"
"""The byte the host sends the opener when the command may start."""

Serve = Callable[[list[socket.socket]], Callable[[], None]]
"""Takes the listening sockets opened inside the sandbox, starts serving them; returns the function that stops."""


@dataclass(frozen=True)
class Loopback:
    """Ports of a host server that a sandboxed command reaches at 127.0.0.1 even with its network off."""

    ports: tuple[int, ...]
    """The ports (the host server's own, so one URL works on the host and inside)."""
    serve: Serve
    """Serves the sockets opened on the sandbox's loopback until the returned function is called."""


def joined(*loopbacks: Loopback | None) -> Loopback | None:
    """One loopback serving the ports of every one given (the HTTP fixture's, the egress proxy's); None for none."""
    present = [lb for lb in loopbacks if lb is not None]
    if len(present) <= 1:
        return present[0] if present else None

    def serve(sockets: list[socket.socket]) -> Callable[[], None]:
        stops, at = [], 0
        for loopback in present:
            stops.append(loopback.serve(sockets[at:at + len(loopback.ports)]))
            at += len(loopback.ports)

        def stop() -> None:
            for each in stops:
                each()

        return stop

    return Loopback(tuple(port for lb in present for port in lb.ports), serve)


def opener_python() -> str:
    """The harness's base interpreter (a venv's python is a link into it), which runs OPENER inside."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def opener_dirs() -> tuple[str, ...]:
    """What the opener needs to run inside: its interpreter's directory and standard library, read-only."""
    dirs = [os.path.dirname(opener_python()), sys.base_prefix, sys.base_exec_prefix]
    return tuple(d for d in dict.fromkeys(dirs) if os.path.isdir(d))


def opener_argv(loopback: Loopback, fd: int, argv: list[str]) -> list[str]:
    """argv run behind the opener, which first opens the loopback's ports and hands them over on fd."""
    ports = ",".join(str(port) for port in loopback.ports)
    return [opener_python(), "-I", "-S", "-c", OPENER, str(fd), ports, "--", *argv]


class Receiver(threading.Thread):
    """The host end of the hand-over: receives the sockets, starts serving them, stops when told."""

    def __init__(self, channel: socket.socket, loopback: Loopback) -> None:
        super().__init__(name="hindcast-loopback", daemon=True)
        self.channel, self.loopback = channel, loopback
        self.error: str | None = "the sandbox ended before its loopback port was opened"
        self._stop_serving: Callable[[], None] | None = None

    def run(self) -> None:
        try:
            message, fds, _, _ = socket.recv_fds(self.channel, 4096, len(self.loopback.ports))
        except OSError as exc:
            self.error = f"the loopback port was not handed over: {exc.strerror or exc}"
            return
        sockets = [socket.socket(fileno=fd) for fd in fds]
        if message != b"ok" or len(sockets) != len(self.loopback.ports):
            for sock in sockets:
                sock.close()
            text = message.decode("utf-8", "replace").removeprefix("error ").strip()
            if text:
                self.error = f"cannot open 127.0.0.1:{','.join(map(str, self.loopback.ports))} inside: {text}"
            return
        self._stop_serving = self.loopback.serve(sockets)
        self.error = None

    def release(self) -> None:
        """Let the command start (the opener execs it once it has handed the ports over)."""
        with contextlib.suppress(OSError):  # the sandbox ended already: finish says why
            self.channel.sendall(GO)

    def finish(self) -> str | None:
        """Stop serving (the command has ended); why the port never opened, or None."""
        with contextlib.suppress(OSError):
            self.channel.shutdown(socket.SHUT_RDWR)
        self.join(timeout=10)
        self.channel.close()
        if self._stop_serving is not None:
            self._stop_serving()
        return self.error
