"""Trials over the environment cache: an editable install built once and imported from /workspace by every
trial's grader, an agent that cannot write into the cached environment or the stored overlay."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from corpus import CaseFiles, Corpus, Grader, Setup
from runner.envs.manage import list_entries
from runner.runs.result import trial_path
from tests.testing.casefactory import make_case, oracle_patch
from tests.testing.gitrepo import git_init
from tests.testing.trialkit import Bench, variants

PYPROJECT = """\
[build-system]
requires = ["setuptools"]
build-backend = "setuptools.build_meta"

[project]
name = "tinypkg"
version = "0.1.0"

[tool.setuptools]
packages = ["tinypkg"]
"""
BUGGY = "def add(a, b):\n    return a - b\n"
FIXED = "def add(a, b):\n    return a + b\n"
VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
INSTALL = ("uv pip install --offline --no-build-isolation -e . && mkdir -p gen && echo made > gen/out.txt && "
           'echo built >> "$UV_CACHE_DIR/builds"')
# From / (not the workspace: '' on sys.path would find the package without any install), the editable install
# must resolve tinypkg to /workspace, and its metadata must be in the environment.
CHECK = ("import importlib.metadata, sys, tinypkg; "
         "assert tinypkg.__file__ == '/workspace/tinypkg/__init__.py', tinypkg.__file__; "
         "assert importlib.metadata.version('tinypkg') == '0.1.0'; "
         "sys.exit(0 if tinypkg.add(2, 3) == 5 else 1)")
GRADER = f"cd / && python -c {shlex.quote(CHECK)}"


def tinypkg_bench(tmp_path: Path) -> Bench:
    repo = git_init(tmp_path / "repo")
    base = repo.commit({"pyproject.toml": PYPROJECT, "tinypkg/__init__.py": BUGGY, "README.md": "tiny\n"}, "Base")
    fix = repo.commit({"tinypkg/__init__.py": FIXED}, "Fix add")
    corpus = Corpus.init(tmp_path / "evals", "tiny", repo="../repo")
    case = make_case(base, fix, id="tiny-add", trigger_paths=("tinypkg/__init__.py",),
                     setup=Setup(command=INSTALL, python=VERSION), grader=Grader(command=GRADER, timeout=120))
    corpus.write(case, CaseFiles.of(oracle_patch(repo, base, fix, "tinypkg/__init__.py"), {}))
    return Bench(tmp_path, corpus)


def test_an_editable_install_is_built_once_and_every_trial_grades_from_its_own_workspace(tmp_path: Path) -> None:
    bench = tinypkg_bench(tmp_path)
    envs = tmp_path / "envs"
    fix = "sed -i 's/a - b/a + b/' tinypkg/__init__.py"
    loaded = bench.run(variants=variants(fixer=fix), trials=2, env_cache=envs)
    assert [(t.trial, t.outcome, t.env_cache) for t in loaded.trials] == [(1, "pass", "miss"), (2, "pass", "hit")]
    assert (envs / "downloads" / "uv" / "builds").read_text() == "built\n"
    # the fix is the repository's second commit, a day after the first (`tests.testing.gitrepo`)
    assert {t.resolution for t in loaded.trials} == {
        "resolution: as of the fix's date 2024-01-03T00:00:00Z (build tools today's)"}
    baseline = bench.run(mode="baseline", env_cache=envs)  # the cached install sees this trial's own base
    assert [(t.outcome, t.env_cache) for t in baseline.trials] == [("fail", "hit")]
    [entry] = list_entries(envs)
    assert entry.python == VERSION and entry.cases == ("tiny-add",)
    uncached = bench.run(variants=variants(fixer=fix))
    assert [(t.outcome, t.env_cache) for t in uncached.trials] == [("pass", "off")]


def test_the_agent_cannot_write_the_cached_environment_or_the_stored_overlay(tmp_path: Path) -> None:
    bench = tinypkg_bench(tmp_path)
    envs = tmp_path / "envs"
    attack = ('cat gen/out.txt; echo tampered >> gen/out.txt; '
              'touch "$VIRTUAL_ENV/agent-was-here" && echo WROTE-ENV || echo env-denied; '
              'echo "raise SystemExit(9)" > "$VIRTUAL_ENV/bin/sitecustomize.py" && echo WROTE-BIN || echo bin-denied; '
              f'touch {shlex.quote(str(envs / "downloads" / "uv" / "x"))} && echo WROTE-CACHE || echo cache-denied; '
              "sed -i 's/a - b/a + b/' tinypkg/__init__.py")
    loaded = bench.run(variants=variants(attacker=attack), trials=2, env_cache=envs)
    assert [t.outcome for t in loaded.trials] == ["pass", "pass"]
    for trial in (1, 2):
        text = (trial_path(loaded.directory, "attacker", "tiny-add", trial) / "transcript.log").read_text()
        assert text.startswith("made\n")  # the second trial gets the stored overlay, not the first's tampering
        assert "env-denied" in text and "bin-denied" in text and "cache-denied" in text
        assert "WROTE" not in text
    [entry] = (envs / "entries").iterdir()
    assert not (entry / "env" / "agent-was-here").exists() and not (entry / "env" / "bin" / "sitecustomize.py").exists()
    assert (entry / "overlay" / "gen" / "out.txt").read_text() == "made\n"
    assert not (envs / "downloads" / "uv" / "x").exists()
    meta = json.loads((entry / "entry.json").read_text())
    assert meta["cases"] == ["tiny-add"] and meta["parts"]["python"] == VERSION


MUL_BUGGY = FIXED + "\n\ndef mul(a, b):\n    return a + b\n"
MUL_FIXED = FIXED + "\n\ndef mul(a, b):\n    return a * b\n"
NON_EDITABLE = "python -m pip install --no-index --no-build-isolation --no-deps --quiet ."
# From the workspace ('' first on sys.path): the workspace's package, or, once a patch deleted it, the installed one.
ADD_CHECK = "import sys, tinypkg; sys.exit(0 if tinypkg.add(2, 3) == 5 else 1)"
MUL_CHECK = "import sys, tinypkg; sys.exit(0 if tinypkg.mul(2, 3) == 6 else 1)"
SNOOP = ('for f in "$VIRTUAL_ENV"/lib/python*/site-packages/tinypkg/__init__.py; do echo "installed: $f"; '
         'grep -c "a - b" "$f" || true; done')


def two_bases_bench(tmp_path: Path) -> Bench:
    """tinypkg installed non-editably (`pip install .`), with two cases whose dependency files are equal: `early`
    fixes add, `late` sits on a base after that fix and fixes mul."""
    repo = git_init(tmp_path / "repo")
    early_base = repo.commit({"pyproject.toml": PYPROJECT, "tinypkg/__init__.py": BUGGY + "\n\ndef mul(a, b):\n"
                              "    return a + b\n", "README.md": "tiny\n"}, "Base")
    early_fix = repo.commit({"tinypkg/__init__.py": MUL_BUGGY}, "Fix add")
    late_fix = repo.commit({"tinypkg/__init__.py": MUL_FIXED}, "Fix mul")
    corpus = Corpus.init(tmp_path / "evals", "tiny", repo="../repo")
    for case_id, base, fix, check in (("early", early_base, early_fix, ADD_CHECK),
                                      ("late", early_fix, late_fix, MUL_CHECK)):
        case = make_case(base, fix, id=case_id, trigger_paths=("tinypkg/__init__.py",),
                         setup=Setup(command=NON_EDITABLE, python=VERSION),
                         grader=Grader(command=f"python -c {shlex.quote(check)}", timeout=120))
        corpus.write(case, CaseFiles.of(oracle_patch(repo, base, fix, "tinypkg/__init__.py"), {}))
    return Bench(tmp_path, corpus)


def test_an_installed_copy_of_the_project_is_never_served_to_another_base(tmp_path: Path) -> None:
    bench = two_bases_bench(tmp_path)
    envs = tmp_path / "envs"
    late = bench.run(case_ids=("late",), all_cases=False, mode="oracle", env_cache=envs)
    assert [(t.outcome, t.env_cache) for t in late.trials] == [("pass", "miss")]  # built from the later base
    early = bench.run(case_ids=("early",), all_cases=False, trials=2, env_cache=envs,
                      variants=variants(snoop=SNOOP, deleter="rm -rf tinypkg"))
    results = {(t.variant, t.trial): (t.outcome, t.env_cache) for t in early.trials}
    # The later base's entry holds its copy of tinypkg, add fixed: the earlier base gets an entry of its own.
    assert results == {("snoop", 1): ("fail", "miss"), ("snoop", 2): ("fail", "hit"),
                       ("deleter", 1): ("fail", "hit"), ("deleter", 2): ("fail", "hit")}
    for trial in (1, 2):
        text = (trial_path(early.directory, "snoop", "early", trial) / "transcript.log").read_text()
        assert "installed: " in text and text.splitlines()[-1] == "1"  # its own base's copy, add still broken
    baseline = bench.run(case_ids=("early",), all_cases=False, mode="baseline", env_cache=envs)
    assert [(t.outcome, t.env_cache) for t in baseline.trials] == [("fail", "hit")]
    entries = list_entries(envs)
    assert sorted(e.cases for e in entries) == [("early",), ("late",)]
    trees = {e.meta["tree"] for e in entries}
    assert len(trees) == 2 and None not in trees
    assert [e.meta["parts"]["base_tree"] for e in entries if e.cases == ("early",)] == [e.meta["tree"] for e in entries
                                                                                        if e.cases == ("early",)]
