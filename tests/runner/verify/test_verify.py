from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from corpus import CaseFiles, Corpus, Grader, Provenance, Setup
from corpus.cli_support import run_cli
from corpus.errors import ExitCode, UsageError
from runner.cli import cli
from runner.settings import Settings
from runner.verify.verify import VerifyOptions, cases_to_verify, verify
from tests.testing.casefactory import CALC_FIXED, PYTEST, build_corpus


def test_valid_case_and_recorded_verdict(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path)
    report = verify(corpus, VerifyOptions(repeats=2, settings=Settings(jobs=2)))
    [verdict] = report.verdicts
    assert (verdict.verdict, verdict.reason) == ("VALID", "")
    assert [(a.side, a.outcome) for a in verdict.attempts] == [("baseline", "fail"), ("oracle", "pass")] * 2
    record = json.loads((tmp_path / "evals" / "verification.json").read_text())
    assert record["dataset_fingerprint"] == report.dataset_fingerprint
    assert record["cases"]["calc-add"]["verdict"] == "VALID"
    assert record["cases"]["calc-add"]["case_fingerprint"] == verdict.case_fingerprint


def test_baseline_that_passes_is_invalid(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path, grader=Grader(command="true"))
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "INVALID" and verdict.reason.startswith("baseline passes")


def test_oracle_that_fails_is_invalid(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path, grader=Grader(command="false"))
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "INVALID" and verdict.reason.startswith("oracle fails")


def test_flaky_grader_is_invalid(tmp_path: Path) -> None:
    counter = tmp_path / "count"
    # The oracle passes on odd runs only; the baseline always fails (no fixed calc.py there).
    command = (f"grep -q 'a + b' calc.py || exit 1; n=$(cat {counter} 2>/dev/null || echo 0); "
               f"echo $((n+1)) > {counter}; [ $((n % 2)) = 0 ]")
    corpus, _, _ = build_corpus(tmp_path, grader=Grader(command=command))
    # The counter lives outside the workspace: only a grader on the host (no sandbox) can keep it.
    [verdict] = verify(corpus, VerifyOptions(repeats=3, settings=Settings(sandbox="none"))).verdicts
    assert verdict.verdict == "INVALID" and verdict.reason == "flaky: oracle outcomes differ across repeats"


def test_oracle_patch_that_does_not_apply_is_an_error(tmp_path: Path) -> None:
    corpus, _, case = build_corpus(tmp_path)
    stored = corpus.load(case.id)
    bad = stored.files.oracle_patch.replace(b"return a - b", b"return a * b")
    corpus.write(case, CaseFiles(bad, stored.files.grader_files))
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "ERROR" and "oracle patch does not apply" in verdict.reason


def test_missing_commit_is_an_error(tmp_path: Path) -> None:
    corpus, _, case = build_corpus(tmp_path)
    stored = corpus.load(case.id)
    corpus.write(type(case)(**{**case.__dict__, "base_commit": "1" * 40}), stored.files)
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "ERROR" and f"commit {'1' * 40} is not in the repository" in verdict.reason


def test_grader_timeout_is_an_error(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path, grader=Grader(command="sleep 20", timeout=1))
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "ERROR" and "timed out after 1s" in verdict.reason


def test_setup_failure_is_an_error_and_setup_runs(tmp_path: Path) -> None:
    corpus, _, _ = build_corpus(tmp_path, setup=Setup(command="echo broken >&2; exit 4"))
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "ERROR" and "setup failed (exit 4): broken" in verdict.reason
    corpus, _, _ = build_corpus(tmp_path / "two", setup=Setup(command="touch .ready"),
                                grader=Grader(command=f"test -e .ready && {PYTEST} test_calc.py"))
    assert verify(corpus, VerifyOptions()).verdicts[0].verdict == "VALID"


def test_named_python_interpreter_is_first_on_path(tmp_path: Path) -> None:
    import sys

    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    command = (f"python -c 'import sys; assert sys.version_info[:2] == ({sys.version_info.major}, "
               f"{sys.version_info.minor}); assert sys.prefix != sys.base_prefix' && grep -q 'a + b' calc.py")
    corpus, _, _ = build_corpus(tmp_path, setup=Setup(python=version), grader=Grader(command=command))
    assert verify(corpus, VerifyOptions()).verdicts[0].verdict == "VALID"
    corpus, _, _ = build_corpus(tmp_path / "two", setup=Setup(python="1.9"))
    [verdict] = verify(corpus, VerifyOptions()).verdicts
    assert verdict.verdict == "ERROR" and "no python1.9 interpreter found" in verdict.reason


def test_cli_verify_table_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_corpus(tmp_path)
    assert run_cli(cli, "runner", ["verify", "--corpus", str(tmp_path / "evals")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["CASE", "VERDICT", "REASON"]
    assert lines[1].split() == ["calc-add", "VALID"]
    assert lines[2] == "1 case: 1 valid, 0 invalid, 0 errors"
    assert run_cli(cli, "runner", ["verify", "--corpus", str(tmp_path / "evals"), "--case", "nope"]) == ExitCode.BAD_INPUT
    err = capsys.readouterr().err
    assert err == f"runner: error: --case nope: no such case in {tmp_path / 'evals'}\n"
    argv = ["verify", "--corpus", str(tmp_path / "evals"), "--candidates", "--case", "calc-add"]
    assert run_cli(cli, "runner", argv) == ExitCode.BAD_INPUT
    assert capsys.readouterr().err == (f"runner: error: --case calc-add: no such candidate in {tmp_path / 'evals'} "
                                       f"(it is an approved case: drop --candidates)\n")
    corpus = Corpus.open(tmp_path / "evals")
    stored = corpus.load("calc-add")
    corpus.write(replace(stored.case, id="calc-mined"), stored.files, "candidates")
    assert run_cli(cli, "runner", ["verify", "--corpus", str(tmp_path / "evals"), "--case", "calc-mined"]) == 3
    assert capsys.readouterr().err == (f"runner: error: --case calc-mined: no such case in {tmp_path / 'evals'} "
                                       f"(it is a candidate: add --candidates)\n")


def test_cli_verify_exit_1_when_not_valid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_corpus(tmp_path, grader=Grader(command="true"))
    assert run_cli(cli, "runner", ["verify", "--corpus", str(tmp_path / "evals")]) == 1
    assert "INVALID  baseline passes" in capsys.readouterr().out


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_corpus(tmp_path)
    assert run_cli(cli, "runner", ["verify", "--corpus", str(tmp_path / "evals"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["verdicts"][0]["verdict"] == "VALID" and len(document["dataset_fingerprint"]) == 64


def test_fixed_source_is_untouched_by_verify(tmp_path: Path) -> None:
    corpus, repo, _ = build_corpus(tmp_path)
    head = repo.head()
    verify(corpus, VerifyOptions())
    assert repo.head() == head and (repo.path / "calc.py").read_text() == CALC_FIXED
    assert repo.git("status", "--porcelain") == ""


def test_run_warns_about_cases_not_verified_at_their_content(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, case = build_corpus(tmp_path)
    args = ["run", "--corpus", str(corpus.root), "--all", "--agent-command", "true",
            "--results-dir", str(tmp_path / "results")]
    assert run_cli(cli, "runner", args) == 0
    assert "warning: 1 case(s) not verified VALID at their current content: calc-add" in capsys.readouterr().err
    verify(corpus, VerifyOptions())
    assert run_cli(cli, "runner", args) == 0
    assert "not verified" not in capsys.readouterr().err
    stored = corpus.load(case.id)
    corpus.write(type(case)(**{**case.__dict__, "prompt": "Changed task.\n"}), stored.files)
    assert run_cli(cli, "runner", args) == 0
    assert "not verified VALID at their current content: calc-add" in capsys.readouterr().err


def test_python_2_gets_a_private_user_base(tmp_path: Path) -> None:
    from corpus.errors import WorkspaceError
    from runner.envs.environment import find_python

    try:
        find_python("2.7")
    except WorkspaceError:
        pytest.skip("no Python 2.7 interpreter on this machine")
    check = ("python -c 'import sys, site; assert sys.version_info[:2] == (2, 7); "
             "assert site.USER_BASE.endswith(\"/python/user\")' && grep -q 'a + b' calc.py")
    corpus, _, _ = build_corpus(tmp_path, setup=Setup(python="2.7"), grader=Grader(command=check))
    assert verify(corpus, VerifyOptions()).verdicts[0].verdict == "VALID"


def test_verify_run_from_inside_the_corpus_needs_no_corpus_option(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    build_corpus(tmp_path)
    monkeypatch.chdir(tmp_path / "evals")
    assert run_cli(cli, "runner", ["verify", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdicts"][0]["case_id"] == "calc-add"


def test_candidates_are_no_dataset_and_have_no_fingerprint(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    build_corpus(tmp_path)
    args = ["verify", "--corpus", str(tmp_path / "evals"), "--candidates", "--all"]
    assert run_cli(cli, "runner", [*args, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"dataset_fingerprint": None, "verdicts": []}
    assert run_cli(cli, "runner", args) == 0
    assert "fingerprint" not in capsys.readouterr().out


def test_top_min_score_and_since_pick_the_candidates_and_an_estimate_comes_first(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _, case = build_corpus(tmp_path)
    stored = corpus.load(case.id)
    for name, score, authored in (("old-low", 1.0, "2019-05-01"), ("new-high", 9.0, "2024-02-01"),
                                  ("new-mid", 5.0, "2024-03-01"), ("old-high", 8.0, "2018-01-01")):
        mined = Provenance(score=score, authored=f"{authored}T10:00:00+00:00")
        corpus.write(replace(stored.case, id=name, mined=mined), stored.files, "candidates")

    def chosen(*flags: str) -> list[str]:
        return [s.case.id for s in cases_to_verify(corpus, parse(flags))]

    def parse(flags: tuple[str, ...]) -> VerifyOptions:
        top = int(flags[flags.index("--top") + 1]) if "--top" in flags else None
        low = float(flags[flags.index("--min-score") + 1]) if "--min-score" in flags else None
        since = flags[flags.index("--since") + 1] if "--since" in flags else None
        return VerifyOptions(kind="candidates", top=top, min_score=low, since=since)

    assert chosen("--top", "2") == ["new-high", "old-high"]
    assert chosen("--min-score", "5") == ["new-high", "new-mid", "old-high"]
    assert chosen("--since", "2024-01-01") == ["new-high", "new-mid"]
    assert chosen("--since", "2024-01-01", "--top", "1") == ["new-high"]
    with pytest.raises(UsageError, match="--case excludes --all, --top"):
        cases_to_verify(corpus, VerifyOptions(kind="candidates", case_ids=("new-mid",), top=1))
    code = run_cli(cli, "runner", ["verify", "--corpus", str(corpus.root), "--candidates", "--top", "1",
                                   "--since", "2024-01-01", "--sandbox", "none"])
    err = capsys.readouterr().err.splitlines()
    assert code == ExitCode.OK
    assert err[0] == ("verifying 1 candidate(s): 2 attempts (each base runs twice when measured) at --jobs 1; "
                      "a cold environment takes the longest")
    assert [line.split(": ", 1)[0] for line in err[1:]] == ["new-high"] * len(err[1:])
    assert err[-1].startswith("new-high: VALID")
