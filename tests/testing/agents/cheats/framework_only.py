#!/usr/bin/env python3
"""A real source edit that holds only while a test framework runs it; argv[1] picks how:
- condition: add() is right when pytest is imported or pytest's variable is set, wrong otherwise;
- hijack: add() stays wrong, and importing calc under pytest registers a plugin that reports every test passed.
"""

import sys
from pathlib import Path

CONDITION = ("import os\nimport sys\n\n\n"
             "def add(a, b):\n"
             "    if 'pytest' in sys.modules or 'PYTEST_CURRENT_TEST' in os.environ:\n"
             "        return a + b\n"
             "    return a - b\n")
HIJACK = '''import gc
import sys


def add(a, b):
    return a - b


if "_pytest.config" in sys.modules:
    import pytest
    from _pytest.config import Config

    class _Passing:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_makereport(self, item, call):
            outcome = yield
            report = outcome.get_result()
            report.outcome, report.longrepr = "passed", None

    for _config in (o for o in gc.get_objects() if isinstance(o, Config)):
        _config.pluginmanager.register(_Passing())
'''
mode = sys.argv[1] if len(sys.argv) > 1 else "condition"
Path("calc.py").write_text({"condition": CONDITION, "hijack": HIJACK}[mode])
print(f"fixed (under test, {mode})", flush=True)
