"""Imported at the start of every Python the grader runs (PYTHONPATH names the seal's directory, read-only): installs
the seal's audit hook before any code of the project runs, then the interpreter's own sitecustomize, if any.
Python 2 parses it too: no newer syntax."""

import os
import sys

if sys.version_info >= (3, 8):  # noqa: UP036 - every interpreter of a case reads this file
    try:
        import hindcast_seal

        hindcast_seal.install()
    except Exception as exc:  # noqa: BLE001 - the harness sees the missing start on its channel
        sys.stderr.write("[hindcast: the grader's seal could not be installed: {!r}]\n".format(exc))  # noqa: UP032
    try:
        import importlib.machinery
        import importlib.util

        _here = os.path.dirname(os.path.abspath(__file__))
        _spec = importlib.machinery.PathFinder.find_spec(
            "sitecustomize", [p for p in sys.path if p and os.path.abspath(p) != _here])
        if _spec is not None and _spec.loader is not None:
            _module = importlib.util.module_from_spec(_spec)
            sys.modules["sitecustomize"] = _module
            _spec.loader.exec_module(_module)
    except Exception as exc:  # noqa: BLE001 - as Python reports a failing sitecustomize
        sys.stderr.write("Error in sitecustomize: {!r}\n".format(exc))  # noqa: UP032
