"""runner sample's weights and draw, and the checklist read back: every bad entry is one line naming the file, the
field and the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from runner.cli import cli
from runner.report.review import Entry, write_checklist
from runner.report.sample import draw, weigh
from runner.runs.load import load_run
from tests.testing.runbuilder import record_digests, write_run

CARD = {"reviewability": {"score": 0.25}, "file_accuracy": {"outside_allowed": ["setup.py"]},
        "test_downgrade": {"downgraded": True}}
CLEAN = {"reviewability": {"score": 1.0}, "file_accuracy": {"outside_allowed": []}}


def scored_run(root: Path) -> Path:
    run_dir = write_run(root, "r1", {"cart": "ppf", "tax": "ppp", "ship": "ppp", "vault": "ppp"})
    for path in run_dir.glob("*/*/*/result.json"):
        data = json.loads(path.read_text())
        heavy = (data["case_id"], data["trial"]) == ("cart", 2)
        data["scorecard"] = CARD if heavy else CLEAN
        data["flags"] = ["edited_tests"] if heavy else []
        path.write_text(json.dumps(data))
    return record_digests(run_dir)


def test_a_pass_weighs_more_for_each_thing_a_reviewer_should_look_at(tmp_path: Path) -> None:
    run = load_run(scored_run(tmp_path))
    heavy = next(t for t in run.trials if (t.case_id, t.trial) == ("cart", 2))
    assert weigh(heavy) == (1.0 + 1.5 + 2.0 + 2.0 + 1.0, ("reviewability 0.25", "1 file outside allowed paths",
                                                          "tests weakened", "flag edited_tests"))
    clean = next(t for t in run.trials if (t.case_id, t.trial) == ("tax", 1))
    assert weigh(clean) == (1.0, ())


def test_the_draw_is_one_sample_per_seed_and_favours_the_heavy_pass(tmp_path: Path) -> None:
    run = load_run(scored_run(tmp_path))
    assert [p.key for p in draw(run.trials, 3, 5)] == [p.key for p in draw(run.trials, 3, 5)]
    assert all(p.result.outcome == "pass" for p in draw(run.trials, 20, 1))
    assert len(draw(run.trials, 20, 1)) == 11  # every pass once, the failed trial never
    firsts = [draw(run.trials, 1, seed)[0].key for seed in range(300)]
    # weight 7.5 of 17.5 in all: drawn first about 43% of the time, a clean pass about 6%
    assert firsts.count("default/cart/2") > 90
    assert max(firsts.count(k) for k in set(firsts) - {"default/cart/2"}) < 45


@pytest.mark.parametrize(("body", "message"), [
    ('run: "other"\ntrials: []\n', "checklist.yaml:1: run: the checklist is for run 'other', not r1"),
    ('run: "r1"\ntrials: {}\n', "checklist.yaml:2: trials: expected a list of trials"),
    ('run: "r1"\ntrials:\n  - trial: "default/cart/9"\n', ("checklist.yaml:3: trials[0].trial: run r1 has no trial "
                                                          "'default/cart/9'")),
    ('run: "r1"\ntrials:\n  - trial: "default/cart/3"\n', ("checklist.yaml:3: trials[0].trial: default/cart/3 did "
                                                          "not pass (its outcome is fail)")),
    ('run: "r1"\ntrials:\n  - trial: "default/tax/1"\n  - trial: "default/tax/1"\n',
     "checklist.yaml:4: trials[1].trial: default/tax/1 is listed twice"),
    ('run: "r1"\ntrials:\n  - trial: "default/tax/1"\n    verdict: ok\n',
     ("checklist.yaml:4: trials[0].verdict: expected one of looks right, wrong fix, gamed the test or nothing, "
     "found 'ok'")),
    ("- just a list\n", "checklist.yaml: expected a mapping with run and trials"),
    ('run: "r1"\ntrials: [\n', "checklist.yaml:3: malformed YAML"),
])
def test_a_bad_checklist_is_one_line_and_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str], body: str,
                                                message: str) -> None:
    run_dir = scored_run(tmp_path)
    checklist = tmp_path / "checklist.yaml"
    checklist.write_text(body)
    code = run_cli(cli, "runner", ["report", str(run_dir), "--review", str(checklist)])
    captured = capsys.readouterr()
    assert code == 3 and captured.out == ""
    assert captured.err.startswith(f"runner: error: {tmp_path / message.split(':')[0]}:")
    assert message.split(":", 1)[1] in captured.err and captured.err.count("\n") == 1


def test_the_checklist_written_reads_back_as_it_was_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = scored_run(tmp_path)
    entries = [Entry("default/cart/2", "reviewability 0.25", "gamed the test", 'it skips "the" test: #1'),
               Entry("default/tax/1", "drawn at random")]
    write_checklist(run_dir / "review" / "checklist.yaml", "r1", 4, entries)
    assert run_cli(cli, "runner", ["report", str(run_dir), "--json"]) == 0
    review = json.loads(capsys.readouterr().out)["review"]
    assert review["counts"] == {"looks right": 0, "wrong fix": 0, "gamed the test": 1}
    assert review["judged_wrong"] == [{"trial": "default/cart/2", "verdict": "gamed the test",
                                       "note": 'it skips "the" test: #1'}]
    assert run_cli(cli, "runner", ["report", str(run_dir), "--html", str(tmp_path / "r.html")]) == 0
    assert "Review of sampled passes" in (tmp_path / "r.html").read_text()


def test_sample_refuses_a_run_without_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run_dir = write_run(tmp_path, "r2", {"cart": "fff"})
    assert run_cli(cli, "runner", ["sample", str(run_dir), "--passes", "2"]) == 3
    assert capsys.readouterr().err == f"runner: error: {run_dir}: the run has no passing trial to sample\n"
    assert not (run_dir / "review").exists()
    assert run_cli(cli, "runner", ["sample", str(run_dir), "--passes", "0"]) == 3
    assert "Invalid value for '--passes': 0 is not in the range x>=1." in capsys.readouterr().err
