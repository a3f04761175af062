"""`runner run --shard I/N` and `runner merge`: N deterministic parts of a run's trials, joined back into one run
with the aggregates of the whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpus.cli_support import run_cli
from corpus.errors import ExitCode, UsageError
from runner.cli import cli
from runner.runs.load import load_run
from runner.runs.manifest import RunConfig, Variant
from runner.runs.merge import merge_runs
from runner.trial.plan import check_shard
from tests.testing.trialkit import fixer_and_idle, two_cases, variants


def config(shard: str | None = None, cases: int = 3, trials: int = 5) -> RunConfig:
    return RunConfig("agent", trials, (Variant("a", "x"), Variant("b", "y")),
                     tuple(f"case-{i}" for i in range(cases)), 60.0, shard=shard)


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7, 30, 31])
def test_shards_partition_the_trials_in_balanced_contiguous_parts(count: int) -> None:
    every = config().planned()
    parts = [config(f"{i}/{count}").planned() for i in range(1, count + 1)]
    assert [t for part in parts for t in part] == every
    sizes = [len(part) for part in parts]
    assert max(sizes) - min(sizes) <= 1
    # A case's trials stay together but where a part ends: each part starts a new case at most once more.
    for part in parts:
        assert len({case for _, case, _ in part}) <= len(part) // 10 + 2
    assert config(f"1/{count}").planned() == parts[0]  # the same every time


def test_numbers_of_a_shard_are_its_cells_trials() -> None:
    shard = config("2/3")
    assert sum(len(shard.numbers(v.name, c)) for v in shard.variants for c in shard.cases) == 10
    assert shard.numbers("a", "case-1") == [1, 2, 3, 4, 5] and shard.numbers("a", "case-0") == []


@pytest.mark.parametrize("text", ["0/3", "4/3", "a/b", "3", "1/0", "/2", "-1/2"])
def test_a_bad_shard_names_the_option(text: str) -> None:
    with pytest.raises(UsageError, match=r"^--shard .*: expected I/N with 1 <= I <= N"):
        check_shard(text)


AGENTS = fixer_and_idle()


def _cells(run_dir: Path) -> list[tuple[str, int, int, int, int]]:
    return [(c.key, c.passes, c.fails, c.errors, c.missing) for c in load_run(run_dir).cells]


def test_three_shards_merged_give_the_aggregates_of_one_run(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    bench = two_cases(tmp_path)
    whole = bench.run(variants=variants(**AGENTS), trials=3, jobs=2)
    shards = [bench.run(variants=variants(**AGENTS), trials=3, jobs=2, shard=f"{i}/3") for i in (3, 1, 2)]
    assert sorted(len(s.trials) for s in shards) == [4, 4, 4]
    # A shard alone is complete: its planned trials are its own.
    assert all(c.missing == 0 for s in shards for c in s.cells)
    capsys.readouterr()
    code = run_cli(cli, "runner", ["merge", *(str(s.directory) for s in shards), "--out", str(tmp_path / "merged")])
    assert code == ExitCode.OK, capsys.readouterr().err
    merged = load_run(tmp_path / "merged")
    assert _cells(merged.directory) == _cells(whole.directory)
    assert [(t.variant, t.case_id, t.trial, t.outcome) for t in merged.trials] == \
        [(t.variant, t.case_id, t.trial, t.outcome) for t in whole.trials]
    assert merged.manifest.config.shard is None
    assert [m["shard"] for m in merged.manifest.merged_from] == ["1/3", "2/3", "3/3"]
    assert (tmp_path / "merged" / "fixer" / "calc-add" / "1" / "candidate.patch").read_bytes() == \
        (whole.directory / "fixer" / "calc-add" / "1" / "candidate.patch").read_bytes()
    # The merged run is a run like any other: compare reads it.
    assert run_cli(cli, "runner", ["compare", "--baseline", str(whole.directory), "--candidate", str(merged.directory)]) == ExitCode.OK
    # A shard resumes as its own part.
    resumed = bench.run(resume=shards[1].directory)
    assert len(resumed.trials) == 4


def test_merge_refuses_what_is_not_one_run_in_shards(tmp_path: Path) -> None:
    bench = two_cases(tmp_path)
    one = bench.run(variants=variants(**AGENTS), trials=1, shard="1/2")
    two = bench.run(variants=variants(**AGENTS), trials=1, shard="2/2")
    other = bench.run(variants=variants(**AGENTS), trials=2, shard="2/2")
    third = bench.run(variants=variants(**AGENTS), trials=1, shard="1/3")
    plain = bench.run(variants=variants(**AGENTS), trials=1)
    out = tmp_path / "merged"
    cases = [
        ([one.directory], "shard 2/2 is missing: merge needs all 2"),
        ([one.directory, one.directory], "shard 1/2 is given twice"),
        ([one.directory, other.directory], "made with a different trials than"),
        ([one.directory, third.directory], "shard 1/3, but"),
        ([plain.directory, one.directory], "not a shard (made without --shard I/N)"),
    ]
    for sources, message in cases:
        with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
            merge_runs(sources, out)
        assert not out.exists()
    # A shard whose trial changed since it was recorded is refused like any run that is judged.
    result = two.directory / "fixer" / "calc-add-again" / "1" / "result.json"
    data = json.loads(result.read_text())
    result.write_text(json.dumps({**data, "outcome": "pass" if data["outcome"] == "fail" else "fail"}))
    with pytest.raises(UsageError, match=r"cannot be trusted|changed since"):
        merge_runs([one.directory, two.directory], out)
    assert not out.exists()
    out.mkdir()
    with pytest.raises(UsageError, match="already exists"):
        merge_runs([one.directory, two.directory], out)
