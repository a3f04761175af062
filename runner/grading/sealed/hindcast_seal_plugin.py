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
OUTCOMES: dict[str, str] = {}
CHECKED_IMPLS: set[int] = set()
JUNIT: list[str] = []
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
        JUNIT.append(os.path.normpath(os.path.abspath(os.path.expanduser(os.path.expandvars(xmlpath)))))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: Any) -> None:
    if SEAL is None:
        return
    if SESSIONS:
        _event("reexec_grader", "a second pytest session in the grader's process", True, sys._getframe(1))
    SESSIONS.append(session)
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
    outcome = report.outcome if report.outcome in RANK else "failed"
    if RANK[outcome] > RANK[OUTCOMES.get(report.nodeid, "passed")] or report.nodeid not in OUTCOMES:
        OUTCOMES[report.nodeid] = outcome
    if report.when == "teardown" or (report.when == "setup" and outcome != "passed"):
        SEAL.send({"t": "test", "pid": os.getpid(), "id": report.nodeid, "outcome": OUTCOMES[report.nodeid]})
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
    for path in JUNIT:
        try:
            with open(path, "rb") as handle:
                report[path] = hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            report[path] = None
    SEAL.send({"t": "finish", "pid": os.getpid(), "exitstatus": int(exitstatus), "junit": report,
               "failed": sorted(k for k, v in OUTCOMES.items() if v == "failed")[:50]})


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
                _event("registered_plugin", f"{impl.plugin_name} implements {caller.name} ({SEAL.code_origin(function)})")
