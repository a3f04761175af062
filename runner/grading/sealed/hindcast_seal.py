"""The grader's audit hook (PEP 578), installed by sitecustomize before any code of the project runs.

It reports over the descriptor the harness handed down (HINDCAST_SEAL_FD) what code from the candidate's files
did to the grader: files of the grader written or removed, the hidden tests' source read, the grader started
again, import and trace hooks installed, test code replaced, code compiled or frames looked at. Code counts as
the candidate's when a frame of it is on the stack (for writes and reads) or calls the audited function itself
(for compile, exec and frame access); code the candidate compiles, and files it writes, count as its own from
then on. Python code cannot remove an audit hook; whatever it does to this module's state happens after the
lines already sent. Runs under the case's interpreter (3.8 or newer): standard library only, no newer syntax.
"""

from __future__ import annotations

import _thread
import builtins
import json
import os
import stat
import sys
from typing import Any

MAX_EVENTS = 400
"""Events sent per process (the first ones; each distinct event once)."""
TEST_NAME_SUFFIXES = ("_test.py",)
TEST_NAME_PREFIXES = ("test_",)
TEST_NAMES = ("conftest.py",)
PROCESS_EVENTS = ("os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen", "os.system", "pty.spawn")
WRITE_EVENTS = ("os.remove", "os.rename", "os.truncate", "os.rmdir", "shutil.rmtree", "os.symlink", "os.link",
                "os.chmod", "os.utime", "shutil.move", "shutil.copyfile")
FRAME_ATTRIBUTES = ("f_back", "f_code", "f_globals", "f_locals", "f_builtins", "tb_frame", "gi_frame", "cr_frame",
                    "ag_frame", "gi_code", "cr_code", "ag_code", "f_trace")
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
HERE = os.path.abspath(__file__)


class Seal:
    """The state of one process's seal: what is the candidate's, what is protected, where to report."""

    def __init__(self, config: dict[str, Any], fd: int, pipe: tuple[int, int]) -> None:
        root = config["root"]
        self.pipe = pipe
        self.root = root
        self.fd = fd
        self.candidate = {os.path.join(root, p) for p in config.get("candidate", ())}
        self.hidden = {os.path.join(root, p) for p in config.get("hidden", ())}
        self.protected = {os.path.join(root, p) for p in config.get("protected", ())} | self.hidden
        self.protected.add(os.path.dirname(HERE))
        dirs = set()
        for path in self.protected:
            parent = os.path.dirname(path)
            while parent.startswith(root) and parent not in dirs:
                dirs.add(parent)
                parent = os.path.dirname(parent)
        self.protected_dirs = dirs
        self.dynamic: set[str] = set()
        """Code file names the candidate's code compiled code under, or files it wrote."""
        self.verdicts: dict[str, bool] = {}
        self.sent: set[tuple[str, str, str]] = set()
        self.count = 0
        self.busy: set[int] = set()
        self.meta_path = tuple(id(f) for f in sys.meta_path)
        self.path_hooks = tuple(id(f) for f in sys.path_hooks)
        self.known = set(self.meta_path) | set(self.path_hooks)
        self.importer = builtins.__import__
        self.stdlib = os.path.dirname(os.__file__) + os.sep

    # --- reporting ---------------------------------------------------------------------------------------------

    def send(self, record: dict[str, Any]) -> None:
        """One JSON line on the channel (a line under PIPE_BUF bytes is written whole), while the descriptor is
        still the harness's pipe (a process that closed it may have reused its number for a file of its own)."""
        try:
            found = os.fstat(self.fd)
            if (found.st_dev, found.st_ino) != self.pipe:
                return
            os.write(self.fd, (json.dumps(record, default=repr)[:3900] + "\n").encode("utf-8", "replace"))
        except (OSError, ValueError, TypeError):
            pass

    def event(self, kind: str, detail: str, frame: Any, tamper: bool) -> None:
        where = self.where(frame)
        key = (kind, detail, where)
        if key in self.sent or self.count >= MAX_EVENTS:
            return
        self.sent.add(key)
        self.count += 1
        self.send({"t": "event", "pid": os.getpid(), "kind": kind, "detail": detail[:500], "where": where,
                   "tamper": tamper})

    def where(self, frame: Any) -> str:
        """The innermost frame of the candidate's code: path:line (relative to the workspace)."""
        while frame is not None:
            if self.is_candidate(frame.f_code.co_filename):
                name = frame.f_code.co_filename
                if name.startswith(self.root + os.sep):
                    name = name[len(self.root) + 1:]
                return f"{name}:{frame.f_lineno}"
            frame = frame.f_back
        return ""

    # --- whose code ---------------------------------------------------------------------------------------------

    def is_candidate(self, filename: str) -> bool:
        known = self.verdicts.get(filename)
        if known is None:
            if filename in self.dynamic:
                return True
            path = filename if os.path.isabs(filename) or filename.startswith("<") else os.path.abspath(filename)
            known = path in self.candidate
            self.verdicts[filename] = known
        return known

    def on_stack(self, frame: Any) -> Any:
        """The innermost frame of the candidate's code on the stack, or None."""
        while frame is not None:
            if self.is_candidate(frame.f_code.co_filename):
                return frame
            frame = frame.f_back
        return None

    def caller(self, frame: Any, skip: tuple[str, ...] = ()) -> Any:
        """The frame that called the audited function (past frames of the modules named in skip), when it is
        the candidate's; else None."""
        while frame is not None and skip and os.path.basename(frame.f_code.co_filename) in skip \
                and frame.f_code.co_filename.startswith(self.stdlib):
            frame = frame.f_back
        if frame is not None and self.is_candidate(frame.f_code.co_filename):
            return frame
        return None

    def code_origin(self, obj: Any) -> str | None:
        """The file of the Python code behind obj (a function, method, class or instance of one), or None."""
        for candidate in (obj, getattr(obj, "__func__", None), getattr(obj, "__call__", None)):  # noqa: B004 - its code, not callability
            code = getattr(getattr(candidate, "__func__", candidate), "__code__", None)
            if code is not None:
                return str(code.co_filename)
        kind = obj if isinstance(obj, type) else type(obj)
        for name in ("find_spec", "find_module", "exec_module", "load_module", "__call__"):
            method = kind.__dict__.get(name) if hasattr(kind, "__dict__") else None
            method = getattr(method, "__func__", method)
            code = getattr(method, "__code__", None)
            if code is not None:
                return str(code.co_filename)
        return None

    def foreign(self, obj: Any) -> bool:
        """Whether obj's code is the candidate's, or code compiled from no file (not frozen)."""
        origin = self.code_origin(obj)
        if origin is None:
            return False
        return self.is_candidate(origin) or (origin.startswith("<") and not origin.startswith("<frozen"))

    # --- paths ------------------------------------------------------------------------------------------------

    def resolve(self, path: Any) -> str | None:
        try:
            path = os.fspath(path)
        except TypeError:
            return None
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str):
            return None
        return os.path.realpath(path)

    def touches_grader(self, path: str) -> bool:
        return path in self.protected or path in self.protected_dirs

    @staticmethod
    def test_named(path: str) -> bool:
        name = os.path.basename(path)
        return name in TEST_NAMES or (name.endswith(".py") and (name.startswith(TEST_NAME_PREFIXES)
                                                                or name.endswith(TEST_NAME_SUFFIXES)))

    # --- the hook -----------------------------------------------------------------------------------------------

    def hook(self, name: str, args: tuple[Any, ...]) -> None:
        handler = HANDLERS.get(name)
        if handler is None and not name.startswith("ctypes."):
            return
        ident = _thread.get_ident()
        if ident in self.busy:
            return
        self.busy.add(ident)
        try:
            frame = sys._getframe(1)
            if handler is None:
                if self.caller(frame) is not None:
                    self.event("native_code", name, frame, False)
            else:
                handler(self, name, args, frame)
        except Exception:  # noqa: BLE001, S110 - the hook must never break the code it watches
            pass
        finally:
            self.busy.discard(ident)

    def on_open(self, name: str, args: tuple[Any, ...], frame: Any) -> None:
        mode, flags = (args[1] if len(args) > 1 else "r") or "r", args[2] if len(args) > 2 else 0
        if isinstance(args[0], int):
            return
        who = self.on_stack(frame)
        if who is None:
            return
        path = self.resolve(args[0])
        if path is None:
            return
        writing = any(c in str(mode) for c in "wax+") or bool((flags or 0) & WRITE_FLAGS)
        if writing:
            if self.touches_grader(path):
                self.event("write_grader", f"opened {self.rel(path)} for writing", who, True)
            elif self.test_named(path):
                self.event("write_tests", f"opened {self.rel(path)} for writing", who, True)
            elif path.endswith(".py"):
                self.dynamic.add(path)
                self.verdicts.pop(path, None)
        elif path in self.hidden:
            self.event("read_tests", f"read the hidden test {self.rel(path)}", who, True)

    def on_change(self, name: str, args: tuple[Any, ...], frame: Any) -> None:
        who = self.on_stack(frame)
        if who is None:
            return
        for arg in args[:2]:
            if isinstance(arg, int) or arg is None:
                continue
            path = self.resolve(arg)
            if path is not None and (self.touches_grader(path) or self.test_named(path)):
                self.event("write_grader", f"{name} {self.rel(path)}", who, True)
                return

    def on_process(self, name: str, args: tuple[Any, ...], frame: Any) -> None:
        who = self.on_stack(frame)
        if who is None:
            return
        words = " ".join(str(a) for a in _flatten(args[:2]))
        if "pytest" in words or "py.test" in words:
            self.event("reexec_grader", f"{name} {words[:300]}", who, True)
        else:
            self.event("process", f"{name} {words[:200]}", who, False)

    def on_compile(self, name: str, args: tuple[Any, ...], frame: Any) -> None:
        who = self.caller(frame)
        if who is None:
            return
        if name == "exec":
            code = args[0] if args else None
            filename = getattr(code, "co_filename", "<string>")
        elif name == "compile":
            filename = args[1] if len(args) > 1 and isinstance(args[1], str) else "<string>"
        else:
            filename = "<code>"
        self.dynamic.add(filename)
        self.verdicts.pop(filename, None)
        self.event("dynamic_code", f"{name} ({filename})", who, False)

    def on_trace(self, name: str, args: tuple[Any, ...], frame: Any) -> None:
        who = self.on_stack(frame)
        if who is not None:
            self.event("trace_hook", f"{name} from the candidate's code", who, True)
        self.check_hooks(frame)

    def on_frame(self, name: str, args: tuple[Any, ...], frame: Any) -> None:
        if name == "object.__getattr__":
            if len(args) < 2 or args[1] not in FRAME_ATTRIBUTES:
                return
            detail = f"{type(args[0]).__name__}.{args[1]}"
        else:
            detail = name
        who = self.caller(frame, ("inspect.py",))
        if who is not None:
            self.event("frame_access", detail, who, False)

    def on_search(self, name: str, args: tuple[Any, ...], frame: Any) -> None:
        who = self.caller(frame)
        if who is not None:
            self.event("object_search", name, who, False)

    def on_setattr(self, name: str, args: tuple[Any, ...], frame: Any) -> None:
        if len(args) < 3:
            return
        target, attribute, _value = args[0], args[1], args[2]
        who = self.on_stack(frame)
        if who is None:
            return
        if attribute == "__code__":
            old = getattr(target, "__code__", None)
            if old is None or not self.is_candidate(old.co_filename):
                self.event("replaced_code", "{}.__code__ replaced".format(getattr(target, "__qualname__", "?")), who,
                           True)
        elif isinstance(target, type) and framework_module(getattr(target, "__module__", "")):
            self.event("patched_framework", f"{target.__module__}.{target.__name__}.{attribute} set",
                       who, True)

    def on_import(self, name: str, args: tuple[Any, ...], frame: Any) -> None:
        module = args[0] if args else ""
        if module in ("hindcast_seal", "hindcast_seal_plugin"):
            who = self.on_stack(frame)
            if who is not None:
                self.event("seal_access", f"imported {module}", who, True)
        self.check_hooks(frame)

    def on_hook(self, name: str, args: tuple[Any, ...], frame: Any) -> None:
        who = self.on_stack(frame)
        if who is not None:
            self.event("audit_hook", "sys.addaudithook from the candidate's code", who, False)

    def check_hooks(self, frame: Any) -> None:
        """New import hooks (sys.meta_path, sys.path_hooks, builtins.__import__) and trace functions whose code
        is the candidate's."""
        for label, hooks, attr in (("sys.meta_path", sys.meta_path, "meta_path"),
                                   ("sys.path_hooks", sys.path_hooks, "path_hooks")):
            ids = tuple(id(h) for h in hooks)
            if ids == getattr(self, attr):
                continue
            setattr(self, attr, ids)
            for hook in hooks:
                if id(hook) not in self.known:
                    self.known.add(id(hook))
                    if self.foreign(hook):
                        self.event("import_hook", f"{label} gained {_describe(hook)}", frame, True)
        if builtins.__import__ is not self.importer:
            self.importer = builtins.__import__
            if self.foreign(self.importer):
                self.event("import_hook", "builtins.__import__ replaced", frame, True)
        for label, current in (("trace", sys.gettrace()), ("profile", sys.getprofile())):
            if current is not None and self.foreign(current):
                self.event("trace_hook", f"a {label} function of the candidate's ({_describe(current)})",
                           frame, True)

    def rel(self, path: str) -> str:
        return path[len(self.root) + 1:] if path.startswith(self.root + os.sep) else path


def framework_module(name: str) -> bool:
    """Whether a module is the test framework's (pytest, its internals, pluggy)."""
    return name.split(".", 1)[0] in ("pytest", "_pytest", "pluggy", "py")


def _describe(obj: Any) -> str:
    kind = obj if isinstance(obj, type) else type(obj)
    return "{}.{}".format(getattr(kind, "__module__", "?"), getattr(kind, "__qualname__", kind.__name__))


def _flatten(values: Any) -> list[Any]:
    out: list[Any] = []
    for value in values:
        if isinstance(value, (list, tuple)):
            out.extend(value)
        elif value is not None:
            out.append(value)
    return out


HANDLERS = {
    "open": Seal.on_open,
    **{name: Seal.on_change for name in WRITE_EVENTS},
    **{name: Seal.on_process for name in PROCESS_EVENTS},
    "exec": Seal.on_compile, "compile": Seal.on_compile, "code.__new__": Seal.on_compile,
    "sys.settrace": Seal.on_trace, "sys.setprofile": Seal.on_trace,
    "sys._getframe": Seal.on_frame, "object.__getattr__": Seal.on_frame,
    "gc.get_objects": Seal.on_search, "gc.get_referrers": Seal.on_search, "gc.get_referents": Seal.on_search,
    "object.__setattr__": Seal.on_setattr,
    "import": Seal.on_import,
    "sys.addaudithook": Seal.on_hook,
}

SEAL: Seal | None = None
"""This process's seal (None before install, or when the harness handed down none)."""
ADDOPTS: str | None = None
"""PYTEST_ADDOPTS as the process found it."""


def install() -> None:
    """Install the audit hook once per process, when the harness handed down a seal; say so on the channel."""
    global SEAL
    if SEAL is not None:
        return
    path, fd = os.environ.get("HINDCAST_SEAL"), os.environ.get("HINDCAST_SEAL_FD")
    if not path or not fd:
        return
    try:
        found = os.fstat(int(fd))
    except (OSError, ValueError):
        return  # a process started without the descriptor (subprocess closes it): nothing to report on
    if not stat.S_ISFIFO(found.st_mode):
        return
    with open(path, encoding="utf-8") as handle:
        config = json.load(handle)
    seal = Seal(config, int(fd), (found.st_dev, found.st_ino))
    sys.addaudithook(seal.hook)
    SEAL = seal
    # pytest loads the plugin before any conftest; the plugin puts the variable back for the processes it starts
    global ADDOPTS
    ADDOPTS = os.environ.get("PYTEST_ADDOPTS")
    os.environ["PYTEST_ADDOPTS"] = " ".join(
        ["-p hindcast_seal_plugin -o enable_assertion_pass_hook=true", ADDOPTS or ""]).strip()
    seal.send({"t": "start", "pid": os.getpid(), "ppid": os.getppid(), "argv": list(getattr(sys, "orig_argv", getattr(sys, "argv", [])))[:8]})
