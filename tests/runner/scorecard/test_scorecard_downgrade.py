"""Test downgrades on crafted patches: Python by AST, other languages by line patterns."""

from __future__ import annotations

from pathlib import Path

from corpus.testfiles import matcher_for_tests
from runner.scorecard import downgrade as dg
from runner.scorecard.patch import read_patch
from tests.testing.patches import Patches

IS_TEST = matcher_for_tests()
PY_TESTS = '''import unittest

import pytest

from shop.cart import total, parse


def test_total():
    assert total([1, 2]) == 3
    assert total([]) == 0


def test_parse_rejects_text():
    with pytest.raises(ValueError, match="not a number"):
        parse("x")


@pytest.mark.timeout(5)
def test_slow():
    assert total(range(1000)) == 499500


def test_kept():
    assert parse("1") == 1


class TestCart(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(total([2]), 2)

    def test_raises(self):
        with self.assertRaises(KeyError):
            parse(None)
'''
JS_TESTS = '''jest.setTimeout(5000);

describe("cart", () => {
  it("totals", () => {
    expect(total([1, 2])).toBe(3);
  });
  test("empty", () => {
    expect(total([])).toBe(0);
  });
});
'''


def downgrade(tmp_path: Path, changes: dict[str, str | bytes | None]) -> dg.TestDowngrade:
    patches = Patches(tmp_path, {"tests/test_cart.py": PY_TESTS, "web/cart.test.js": JS_TESTS,
                                 "shop/cart.py": "def total(p):\n    assert p is not None\n    return sum(p)\n"})
    return dg.test_downgrade(read_patch(patches.patch(changes)), IS_TEST, patches.base)


def kinds(result: dg.TestDowngrade) -> list[tuple[str, str | None, str]]:
    return [(f.kind, f.test, f.detail) for f in result.findings]


def test_removed_assertions_in_tests_that_remain(tmp_path: Path) -> None:
    result = downgrade(tmp_path, {"tests/test_cart.py": PY_TESTS.replace("    assert total([]) == 0\n", "").replace(
        "        self.assertEqual(total([2]), 2)\n", "        total([2])\n")})
    assert result.assertions_removed == 2 and result.downgraded
    assert kinds(result) == [("assertion_removed", "test_total", "`assert total([]) == 0` removed"),
                             ("assertion_removed", "TestCart.test_equal", "`self.assertEqual(total([2]), 2)` removed")]


def test_weakened_assertions(tmp_path: Path) -> None:
    text = PY_TESTS.replace("assert total([1, 2]) == 3", "assert total([1, 2])")
    text = text.replace("assert total([]) == 0", "assert True")
    text = text.replace("self.assertEqual(total([2]), 2)", "self.assertTrue(total([2]))")
    result = downgrade(tmp_path, {"tests/test_cart.py": text})
    assert (result.assertions_weakened, result.assertions_removed) == (3, 0)
    assert [f.test for f in result.findings] == ["test_total", "test_total", "TestCart.test_equal"]
    assert "`assert total([1, 2]) == 3` became `assert total([1, 2])`" in [f.detail for f in result.findings]


def test_an_assertion_changed_to_another_check_is_not_a_downgrade(tmp_path: Path) -> None:
    result = downgrade(tmp_path, {"tests/test_cart.py": PY_TESTS.replace("== 3", "== 4").replace(
        "def test_kept():", "def test_added():\n    assert parse('2') == 2\n\n\ndef test_kept():")})
    assert result == dg.TestDowngrade() and not result.downgraded


def test_skips_added(tmp_path: Path) -> None:
    text = "pytestmark = pytest.mark.xfail(reason='flaky')\n" + PY_TESTS
    text = text.replace("def test_total():", "@pytest.mark.skipif(True, reason='later')\ndef test_total():")
    text = text.replace("    assert parse(\"1\") == 1", "    pytest.skip('no')\n    assert parse(\"1\") == 1")
    text = text.replace("class TestCart", "@unittest.skip('broken')\nclass TestCart")
    text = text.replace("        self.assertEqual", "        self.skipTest('x')\n        self.assertEqual")
    result = downgrade(tmp_path, {"tests/test_cart.py": text})
    assert result.skips_added == 5 and result.assertions_removed == 0
    assert sorted((f.test or "", f.detail) for f in result.findings) == [
        ("", "pytestmark = pytest.mark.xfail(reason='flaky') added"),
        ("TestCart", "unittest.skip('broken') added"),
        ("TestCart.test_equal", "self.skipTest('x') added"),
        ("test_kept", "pytest.skip('no') added"),
        ("test_total", "pytest.mark.skipif(True, reason='later') added")]


def test_deleted_tests_and_deleted_files(tmp_path: Path) -> None:
    result = downgrade(tmp_path, {"tests/test_cart.py": PY_TESTS.replace(
        'def test_kept():\n    assert parse("1") == 1\n\n\n', "")})
    assert (result.tests_deleted, result.assertions_removed) == (1, 0)
    assert kinds(result) == [("test_deleted", "test_kept", "test test_kept deleted")]
    gone = downgrade(tmp_path / "gone", {"tests/test_cart.py": None})
    assert gone.tests_deleted == 6 and gone.assertions_removed == 0


def test_raises_loosened(tmp_path: Path) -> None:
    text = PY_TESTS.replace('pytest.raises(ValueError, match="not a number")', "pytest.raises(Exception)")
    text = text.replace("self.assertRaises(KeyError)", "self.assertRaises(BaseException)")
    result = downgrade(tmp_path, {"tests/test_cart.py": text})
    assert result.raises_loosened == 2
    assert kinds(result) == [
        ("raises_loosened", "test_parse_rejects_text", "raises(ValueError) widened to raises(Exception)"),
        ("raises_loosened", "TestCart.test_raises", "raises(KeyError) widened to raises(BaseException)")]
    dropped = downgrade(tmp_path / "match", {"tests/test_cart.py": PY_TESTS.replace(', match="not a number"', "")})
    assert kinds(dropped) == [("raises_loosened", "test_parse_rejects_text", "raises(ValueError) lost its match")]
    removed = downgrade(tmp_path / "removed", {"tests/test_cart.py": PY_TESTS.replace(
        '    with pytest.raises(ValueError, match="not a number"):\n        parse("x")', '    parse("1")')})
    assert kinds(removed) == [("assertion_removed", "test_parse_rejects_text", "raises(ValueError) removed")]


def test_timeouts_raised(tmp_path: Path) -> None:
    result = downgrade(tmp_path, {"tests/test_cart.py": PY_TESTS.replace("timeout(5)", "timeout(500)")})
    assert kinds(result) == [("timeout_raised", "test_slow", "timeout raised from 5 to 500")]
    lowered = downgrade(tmp_path / "lower", {"tests/test_cart.py": PY_TESTS.replace("timeout(5)", "timeout(1)")})
    assert lowered.timeouts_raised == 0


def test_other_languages_by_patterns(tmp_path: Path) -> None:
    text = JS_TESTS.replace('it("totals"', 'it.skip("totals"').replace("    expect(total([])).toBe(0);\n", "")
    text = text.replace("setTimeout(5000)", "setTimeout(60000)")
    result = downgrade(tmp_path, {"web/cart.test.js": text})
    assert (result.skips_added, result.assertions_removed, result.timeouts_raised) == (1, 1, 1)
    deleted = downgrade(tmp_path / "deleted", {"web/cart.test.js": None})
    assert deleted.tests_deleted == 3 and deleted.assertions_removed == 2


def test_source_files_and_new_test_files_weaken_nothing(tmp_path: Path) -> None:
    result = downgrade(tmp_path, {"shop/cart.py": "def total(p):\n    return sum(p)\n",
                                  "tests/test_new.py": "import pytest\n\n\n@pytest.mark.skip\ndef test_n():\n    pass\n",
                                  "web/new.test.js": "it.skip('n', () => {});\n"})
    assert result == dg.TestDowngrade()
