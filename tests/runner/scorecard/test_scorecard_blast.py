"""File accuracy and blast radius on crafted patches: paths against the oracle's, allowed_paths, sizes, new
dependencies and removed public names."""

from __future__ import annotations

import json
from pathlib import Path

from corpus.testfiles import matcher_for_tests
from runner.scorecard.blast import blast_radius, new_dependencies
from runner.scorecard.patch import read_patch
from runner.scorecard.paths import file_accuracy
from tests.testing.patches import Patches

IS_TEST = matcher_for_tests()
AUTH = '''"""Password resets."""
import hashlib
from audit import log as _log

__all__ = ["reset", "imported_name"]
TOKEN_TTL = 3600
_SECRET = "s"


def reset(user):
    _log("reset", user)
    return hashlib.sha256(user.encode()).hexdigest()


def log_security_event(kind):
    _log("security", kind)


class Session:
    pass


def _helper():
    return 1
'''
BASE = {"app/auth.py": AUTH, "app/cart.py": "def total(p):\n    return int(sum(p))\n", "app/util.py": "A = 1\n",
        "tests/test_cart.py": "def test_x():\n    assert True\n", "docs/notes.md": "notes\n",
        "requirements.txt": "click>=8  # cli\n-r base.txt\n", "pyproject.toml":
        '[project]\nname = "app"\ndependencies = ["rich>=13"]\n\n[project.optional-dependencies]\ndev = ["pytest"]\n',
        "web/package.json": json.dumps({"dependencies": {"left-pad": "1"}}), "poetry.lock":
        '[[package]]\nname = "click"\nversion = "8"\n'}


def oracle_of(patches: Patches) -> bytes:
    return patches.patch({"app/cart.py": "def total(p):\n    return round(sum(p), 2)\n"})


def test_precision_and_recall_over_source_paths(tmp_path: Path) -> None:
    patches = Patches(tmp_path, BASE)
    oracle = read_patch(oracle_of(patches))
    candidate = read_patch(patches.patch({"app/cart.py": "def total(p):\n    return sum(p)\n",
                                          "app/util.py": "A = 2\n", "tests/test_cart.py": "def test_x():\n    pass\n"}))
    accuracy = file_accuracy(candidate, oracle, IS_TEST)
    assert (accuracy.precision, accuracy.recall) == (0.5, 1.0)
    assert accuracy.changed == ("app/cart.py", "app/util.py") and accuracy.extra == ("app/util.py",)
    assert accuracy.missed == () and accuracy.oracle == ("app/cart.py",)
    assert accuracy.outside_allowed == ("tests/test_cart.py",)  # no allowed_paths: the test tree is outside
    nothing = file_accuracy((), oracle, IS_TEST)
    assert (nothing.precision, nothing.recall, nothing.missed) == (None, 0.0, ("app/cart.py",))


def test_allowed_paths_are_gitignore_globs(tmp_path: Path) -> None:
    patches = Patches(tmp_path, BASE)
    oracle = read_patch(oracle_of(patches))
    candidate = read_patch(patches.patch({"app/cart.py": "x = 1\n", "app/util.py": "A = 2\n",
                                          "docs/notes.md": "more\n", "tests/test_cart.py": "x = 2\n"}))
    accuracy = file_accuracy(candidate, oracle, IS_TEST, ("app/", "!app/util.py", "tests/"))
    assert accuracy.outside_allowed == ("app/util.py", "docs/notes.md")


def test_blast_radius_counts_source_changes_against_the_oracle(tmp_path: Path) -> None:
    patches = Patches(tmp_path, BASE)
    oracle = read_patch(oracle_of(patches))
    candidate = read_patch(patches.patch({
        "app/cart.py": "def total(p):\n    return round(sum(p), 2)\n", "app/util.py": "A = 2\nB = 3\n",
        "tests/test_cart.py": "def test_x():\n    assert 1\n\n\ndef test_y():\n    assert 2\n"}))
    blast = blast_radius(candidate, oracle, IS_TEST, patches.base)
    assert (blast.files, blast.hunks, blast.lines) == (2, 2, 5)  # the test file does not count
    assert (blast.oracle_files, blast.oracle_hunks, blast.oracle_lines) == (1, 1, 2)
    assert (blast.files_ratio, blast.hunks_ratio, blast.lines_ratio) == (2.0, 2.0, 2.5)
    assert blast.api_removed == () and blast.new_dependencies == () and blast.lockfiles == ()
    assert blast_radius(candidate, (), IS_TEST, patches.base).lines_ratio is None


def test_new_dependencies_from_manifests_and_lockfiles(tmp_path: Path) -> None:
    patches = Patches(tmp_path, BASE)
    changes = read_patch(patches.patch({
        "requirements.txt": "click>=8  # cli\n-r base.txt\nRequests[socks]==2.31\n",
        "pyproject.toml": '[project]\nname = "app"\ndependencies = ["rich>=13", "httpx"]\n\n'
                          '[project.optional-dependencies]\ndev = ["pytest", "Hypothesis"]\n',
        "web/package.json": json.dumps({"dependencies": {"left-pad": "1"}, "devDependencies": {"jest": "29"}}),
        "poetry.lock": '[[package]]\nname = "click"\nversion = "8"\n\n[[package]]\nname = "urllib3"\nversion = "2"\n',
        "requirements-dev.txt": "black\n", "go.mod": "module x\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n)\n"}))
    assert new_dependencies(changes, patches.base) == [
        "github.com/pkg/errors (go.mod)", "urllib3 (poetry.lock)", "httpx (pyproject.toml)",
        "hypothesis (pyproject.toml)", "black (requirements-dev.txt)", "requests (requirements.txt)",
        "jest (web/package.json)"]
    blast = blast_radius(changes, (), IS_TEST, patches.base)
    assert blast.lockfiles == ("poetry.lock",)
    # a manifest rewritten with the same dependencies adds none
    same = read_patch(patches.patch({"requirements.txt": "click>=9\n"}))
    assert new_dependencies(same, patches.base) == []


def test_public_names_removed_by_ast(tmp_path: Path) -> None:
    patches = Patches(tmp_path, BASE)
    slimmer = AUTH.replace('def log_security_event(kind):\n    _log("security", kind)\n\n\n', "")
    slimmer = slimmer.replace("TOKEN_TTL = 3600\n", "").replace("def _helper():\n    return 1\n", "")
    slimmer = slimmer.replace('__all__ = ["reset", "imported_name"]', '__all__ = ["reset"]')
    changes = read_patch(patches.patch({"app/auth.py": slimmer, "app/util.py": None}))
    blast = blast_radius(changes, (), IS_TEST, patches.base)
    # private names (_helper, _SECRET, _log) never count; __all__ names do; a deleted module loses every name
    assert blast.api_removed == ("app/auth.py:TOKEN_TTL", "app/auth.py:imported_name",
                                 "app/auth.py:log_security_event", "app/util.py:A")


def test_calls_the_patch_drops_and_the_oracle_keeps(tmp_path: Path) -> None:
    patches = Patches(tmp_path, BASE)
    quiet = AUTH.replace('    _log("reset", user)\n', "").replace("hashlib.sha256(user.encode()).hexdigest()",
                                                                   "user[::-1]")
    candidate = read_patch(patches.patch({"app/auth.py": quiet}))
    blast = blast_radius(candidate, (), IS_TEST, patches.base)
    # _log is still called by log_security_event: only calls made nowhere after the patch count
    assert blast.calls_removed == ("app/auth.py:hashlib.sha256", "app/auth.py:user.encode")
    oracle = read_patch(patches.patch({"app/auth.py": AUTH.replace("hashlib.sha256(user.encode()).hexdigest()",
                                                                   "user.upper()")}))
    assert blast_radius(candidate, oracle, IS_TEST, patches.base).calls_removed == ()
    assert blast.api_removed == ()


def test_a_module_that_no_longer_parses_is_listed_not_compared(tmp_path: Path) -> None:
    patches = Patches(tmp_path, BASE)
    changes = read_patch(patches.patch({"app/auth.py": "def reset(:\n"}))
    blast = blast_radius(changes, (), IS_TEST, patches.base)
    assert blast.api_removed == () and blast.unparsed == ("app/auth.py",)
