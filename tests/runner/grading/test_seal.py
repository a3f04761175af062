"""The grader's seal on its own: a pytest run under it is seen, honest code is not blamed, the candidate's is."""

from __future__ import annotations

import sys
from pathlib import Path

from runner.grading.grader import read_junit
from runner.grading.seal import Seal, SealReport
from runner.process import run_command

TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
NESTED = '''import pytest


def test_inner_sessions_run(tmp_path):
    (tmp_path / "test_inner.py").write_text("def test_fails():\\n    assert 1 == 2\\n")
    assert pytest.main([str(tmp_path), "-q", "-p", "no:cacheprovider"]) == 1
'''


def sealed_run(tmp_path: Path, files: dict[str, str], candidate: list[str]) -> SealReport:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    for name, text in files.items():
        (workspace / name).write_text(text)
    hidden = [n for n in files if n.startswith("test_")]
    seal = Seal(tmp_path, workspace, sandboxed=False, candidate=candidate, hidden=hidden, protected=hidden,
                junit="junit.xml")
    env = seal.env({"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path)})
    try:
        ran = run_command(f"{sys.executable} -m pytest -q -p no:cacheprovider --junitxml=junit.xml", workspace,
                          env, 60, tmp_path / "grader.log", inherit_fds=(seal.write_fd,))
    finally:
        seal.close()
    tests = read_junit((workspace / "junit.xml").read_bytes(), "junit.xml")
    return seal.report(ran, tests, passed=ran.exit_code == 0, expected=True)


def test_an_honest_pass_is_sealed_with_nothing_to_say(tmp_path: Path) -> None:
    report = sealed_run(tmp_path, {"calc.py": "def add(a, b):\n    return a + b\n", "test_calc.py": TEST},
                        ["calc.py"])
    assert report.sealed and report.events == () and report.disagreement is None and report.flags == ()


def test_sessions_a_test_runs_inside_the_grader_blame_no_one(tmp_path: Path) -> None:
    report = sealed_run(tmp_path, {"calc.py": "def add(a, b):\n    return a + b\n", "test_nested.py": NESTED},
                        ["calc.py"])
    assert report.sealed and report.tampering == () and report.disagreement is None, report


def test_a_parameter_holding_a_node_separator_is_one_test_in_both_accounts(tmp_path: Path) -> None:
    test = ('import pytest\n\n\n@pytest.mark.parametrize("url", ["http://[2001:db8::ff00:42]:8329", "a/b.py::c"])\n'
            'def test_url(url):\n    assert url\n')
    report = sealed_run(tmp_path, {"test_urls.py": test}, [])
    assert report.sealed and report.disagreement is None, report


def test_the_candidates_write_to_a_hidden_test_is_tampering_even_unsandboxed(tmp_path: Path) -> None:
    calc = ("import os\n\nwith open(os.path.join(os.path.dirname(__file__), 'test_calc.py'), 'a') as f:\n"
            "    f.write('\\n')\n\n\ndef add(a, b):\n    return a + b\n")
    report = sealed_run(tmp_path, {"calc.py": calc, "test_calc.py": TEST}, ["calc.py"])
    kinds = {e.kind for e in report.tampering}
    assert {"write_grader", "grader_files_changed"} <= kinds, report
    assert next(e for e in report.tampering if e.kind == "write_grader").where == "calc.py:3"
    assert "grader_tampering" in report.flags
