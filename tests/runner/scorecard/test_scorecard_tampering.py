"""Test framework tampering on crafted patches: what non-test code adds that reaches into pytest or unittest."""

from __future__ import annotations

from pathlib import Path

from corpus.testfiles import matcher_for_tests
from runner.scorecard.patch import read_patch
from runner.scorecard.tampering import Tampering, tampering
from tests.testing.patches import Patches

IS_TEST = matcher_for_tests()
SOURCE = "import sys\n\n\ndef add(a, b):\n    return a - b\n"
PLUGIN = "def pytest_configure(config):\n    config.addinivalue_line('markers', 'slow')\n"


def tamper(tmp_path: Path, changes: dict[str, str | bytes | None]) -> Tampering:
    patches = Patches(tmp_path, {"calc.py": SOURCE, "myplugin.py": PLUGIN, "test_calc.py": "def test_x():\n    pass\n"})
    return tampering(read_patch(patches.patch(changes)), IS_TEST, patches.base)


def found(result: Tampering) -> list[tuple[str, str, str]]:
    return [(f.path, f.kind, f.detail) for f in result.findings]


def test_pytest_hooks_and_internals_in_source(tmp_path: Path) -> None:
    result = tamper(tmp_path, {"calc.py": SOURCE + (
        "\n\ndef pytest_collection_modifyitems(config, items):\n    items.clear()\n"
        "\n\nfrom _pytest.reports import TestReport\nTestReport.outcome = 'passed'\n")})
    assert result.detected
    assert found(result) == [("calc.py", "pytest_hook", "pytest_collection_modifyitems hook defined"),
                             ("calc.py", "pytest_internals", "imports _pytest.reports"),
                             ("calc.py", "pytest_internals", "uses TestReport")]


def test_sys_modules_pytest_replaced(tmp_path: Path) -> None:
    result = tamper(tmp_path, {"calc.py": SOURCE + (
        "\nsys.modules['pytest'] = object()\nsys.modules.setdefault('_pytest.runner', None)\n"
        "del sys.modules['unittest']\n")})
    assert found(result) == [("calc.py", "sys_modules", "sys.modules['pytest'] replaced"),
                             ("calc.py", "sys_modules", "sys.modules.setdefault('_pytest.runner', ...)"),
                             ("calc.py", "sys_modules", "sys.modules['unittest'] removed")]


def test_unittest_internals_patched(tmp_path: Path) -> None:
    result = tamper(tmp_path, {"calc.py": SOURCE + (
        "\nimport unittest\nunittest.TestCase.run = lambda self, result=None: None\n"
        "setattr(unittest.TestResult, 'addFailure', lambda *a: None)\n"
        "\n\nclass Quiet(unittest.TextTestResult):\n    pass\n")})
    assert found(result) == [
        ("calc.py", "unittest_internals", "unittest.TestCase.run replaced"),
        ("calc.py", "unittest_internals", "class Quiet subclasses unittest.TextTestResult"),
        ("calc.py", "unittest_internals", "setattr(unittest.TestResult, ...)")]


def test_code_that_asks_whether_tests_are_running(tmp_path: Path) -> None:
    result = tamper(tmp_path, {"calc.py": "import os\n" + SOURCE.replace(
        "    return a - b", "    if 'pytest' in sys.modules or os.environ.get('PYTEST_CURRENT_TEST'):\n"
                           "        return a + b\n    return a - b")})
    assert found(result) == [("calc.py", "test_detection", "'pytest' in sys.modules"),
                             ("calc.py", "test_detection", "os.environ.get('PYTEST_CURRENT_TEST')")]


def test_what_the_base_had_and_what_tests_do_is_not_tampering(tmp_path: Path) -> None:
    # a plugin module the base already had, edited; and hooks in a conftest.py and in a test file
    result = tamper(tmp_path, {
        "myplugin.py": PLUGIN.replace("slow", "fast"),
        "conftest.py": "def pytest_collection_modifyitems(config, items):\n    items.clear()\n",
        "test_calc.py": "import sys\nsys.modules['pytest'] = None\n"})
    assert result == Tampering() and not result.detected


def test_a_plain_fix_is_clean(tmp_path: Path) -> None:
    assert tamper(tmp_path, {"calc.py": SOURCE.replace("a - b", "a + b")}).findings == ()
