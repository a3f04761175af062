"""The grader's pytest plugin, loaded before any other (`-p hindcast_seal_plugin`, from the seal's read-only
directory): streams every test's outcome, pytest's exit status and the JUnit report's digest over the seal's
descriptor, and checks what the audit hook cannot see: plugins and framework attributes whose code is the
candidate's, collected tests that are not the test files' code, and values whose `__eq__` holds for anything.
"""

from __future__ import annotations

import hashlib
import linecache
import os
import sys
from typing import Any

import hindcast_seal
import pytest

SEAL = hindcast_seal.SEAL
if SEAL is not None:  # pytest has read it: what this process starts sees the variable as it was
    if hindcast_seal.ADDOPTS is None:
        os.environ.pop("PYTEST_ADDOPTS", None)
    else:
        os.environ["PYTEST_ADDOPTS"] = hindcast_seal.ADDOPTS


class _Unrelated:
    """A fresh object nothing of the project's can rightly equal."""


def _framework_state() -> dict[tuple[str, str], Any]:
    """Every attribute of the test framework's modules loaded now, by (module, name)."""
    state = {}
    for name, module in list(sys.modules.items()):
        if module is not None and hindcast_seal.framework_module(name):
            for attribute, value in list(getattr(module, "__dict__", {}).items()):
                state[(name, attribute)] = value
    return state


FRAMEWORK = _framework_state() if SEAL is not None else {}
SESSIONS: list[Any] = []
"""The sessions running in this process, innermost last (pytester runs sessions inside a test)."""
OUTCOMES: dict[int, dict[str, str]] = {}
"""Each session's tests (by id(session)) and the worst of their phases."""
JUNIT: dict[int, str] = {}
"""The report path of each configuration (by id(config)), made absolute as pytest's junitxml makes it."""
CHECKED_IMPLS: set[int] = set()
RANK = {"passed": 0, "skipped": 1, "failed": 2}


def _event(kind: str, detail: str, tamper: bool = True, frame: Any = None) -> None:
    if SEAL is not None:
        SEAL.event(kind, detail, frame, tamper)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: Any) -> None:
    if SEAL is None:
        return
    xmlpath = getattr(config.option, "xmlpath", None)
    if xmlpath:
        JUNIT[id(config)] = os.path.normpath(os.path.abspath(os.path.expanduser(os.path.expandvars(xmlpath))))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: Any) -> None:
    if SEAL is None:
        return
    who = SEAL.on_stack(sys._getframe(1))
    if who is not None:
        _event("reexec_grader", "a pytest session started by the candidate's code", True, who)
    SESSIONS.append(session)
    OUTCOMES[id(session)] = {}
    SEAL.send({"t": "session", "pid": os.getpid()})


@pytest.hookimpl(tryfirst=True)
def pytest_collectreport(report: Any) -> None:
    if SEAL is not None and report.failed:
        SEAL.send({"t": "collect_error", "pid": os.getpid(), "id": report.nodeid})


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: Any) -> None:
    if SEAL is None:
        return
    for item in session.items:
        path = os.path.realpath(str(getattr(item, "path", None) or item.fspath))
        if path not in SEAL.hidden:
            continue
        function = getattr(item, "function", None)
        if function is not None and SEAL.foreign(function):
            _event("replaced_test", f"{item.nodeid} is not the test file's code ({SEAL.code_origin(function)})")
        module = getattr(getattr(item, "module", None), "__spec__", None)
        loader = getattr(module, "loader", None)
        if loader is not None and SEAL.foreign(loader):
            _event("replaced_test", f"{item.nodeid} was loaded by {hindcast_seal._describe(loader)}")
    _check_plugins(session.config)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: Any) -> Any:
    if SEAL is not None:
        for path in SEAL.hidden:  # what pytest read for its own reports is not there for the code under test
            linecache.cache.pop(path, None)
        SEAL.check_hooks(None)
    yield
    if SEAL is not None:
        SEAL.check_hooks(None)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_logreport(report: Any) -> None:
    if SEAL is None:
        return
    outcomes = OUTCOMES.setdefault(id(SESSIONS[-1]) if SESSIONS else 0, {})
    outcome = report.outcome if report.outcome in RANK else "failed"
    if report.nodeid not in outcomes or RANK[outcome] > RANK[outcomes[report.nodeid]]:
        outcomes[report.nodeid] = outcome
    if report.when == "teardown" or (report.when == "setup" and outcome != "passed"):
        SEAL.send({"t": "test", "pid": os.getpid(), "id": report.nodeid, "outcome": outcomes[report.nodeid]})
    if report.when == "call":
        _check_plugins(None)


@pytest.hookimpl(tryfirst=True)
def pytest_assertrepr_compare(config: Any, op: str, left: Any, right: Any) -> None:
    if SEAL is None or op != "==":
        return
    for value in (left, right):
        eq = _own_eq(type(value))
        if eq is None or not SEAL.foreign(eq):
            continue
        try:
            holds = bool(value == _Unrelated())
        except Exception:  # noqa: BLE001 - the candidate's __eq__ may raise anything
            holds = False
        if holds:
            _event("always_equal", f"a {hindcast_seal._describe(value)} from {SEAL.code_origin(eq)} equals anything", False)
    return


if int(pytest.__version__.split(".")[0]) >= 5:  # the hook is pytest 5's; an older one refuses unknown hooks

    def pytest_assertion_pass(item: Any, lineno: int, orig: str, expl: str) -> None:
        """Present so pytest also hands passing comparisons to pytest_assertrepr_compare."""


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: Any, exitstatus: Any) -> None:
    if SEAL is None:
        return
    _check_plugins(session.config)
    for (module_name, attribute), old in FRAMEWORK.items():
        module = sys.modules.get(module_name)
        new = getattr(module, attribute, old) if module is not None else old
        if new is not old and SEAL.foreign(new):
            _event("patched_framework", f"{module_name}.{attribute} replaced by {SEAL.code_origin(new)}")
    report: dict[str, str | None] = {}
    path = JUNIT.get(id(session.config))
    if path is not None:
        try:
            with open(path, "rb") as handle:
                report[path] = hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            report[path] = None
    outcomes = OUTCOMES.pop(id(session), {})
    if session in SESSIONS:
        SESSIONS.remove(session)
    SEAL.send({"t": "finish", "pid": os.getpid(), "exitstatus": int(exitstatus), "junit": report,
               "failed": sorted(k for k, v in outcomes.items() if v == "failed")[:50]})


def _own_eq(kind: type) -> Any:
    """The Python-level __eq__ a type inherits (None when it is a built-in one)."""
    for klass in kind.__mro__:
        eq = klass.__dict__.get("__eq__")
        if eq is not None:
            return eq if hasattr(eq, "__code__") else None
    return None


def _check_plugins(config: Any) -> None:
    """Hook implementations whose code is the candidate's (or compiled from no file), except a module plugin
    installed by a distribution's entry point."""
    if SEAL is None:
        return
    if config is None:
        config = SESSIONS[-1].config if SESSIONS else None
    if config is None:
        return
    manager = config.pluginmanager
    try:
        installed = {id(plugin) for plugin, _ in manager.list_plugin_distinfo()}
    except Exception:  # noqa: BLE001 - an older pluggy
        installed = set()
    for caller in list(vars(manager.hook).values()):
        get = getattr(caller, "get_hookimpls", None)
        if get is None:
            continue
        for impl in get():
            function = impl.function
            if id(function) in CHECKED_IMPLS:
                continue
            CHECKED_IMPLS.add(id(function))
            if id(impl.plugin) not in installed and SEAL.foreign(function):
                # a plugin registered without a name is named by its id(): say which module it is
                name = getattr(impl.plugin, "__name__", None) or getattr(function, "__module__", None) or impl.plugin_name
                _event("registered_plugin", f"{name} implements {caller.name} ({SEAL.code_origin(function)})")
