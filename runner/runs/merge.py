"""`runner merge`: the shards of one run configuration (`runner run --shard I/N`) joined into one run directory."""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from corpus.errors import UsageError
from corpus.fsutil import publish_directory
from runner.runs.digests import trial_key
from runner.runs.load import LoadedRun, load_run
from runner.runs.manifest import RunManifest, new_run_stamp, write_manifest
from runner.runs.result import trial_path


def merge_runs(sources: Sequence[Path], out: Path) -> LoadedRun:
    """One run made of the shards at sources, published at out (which must not exist); UsageError naming the
    shard when they are not the N shards of one configuration made with one runtime on one dataset."""
    if out.exists():
        raise UsageError(f"--out {out}: already exists; merge writes a new run directory")
    shards = [load_run(source) for source in sources]  # each checked against its run.json
    if not shards:
        raise UsageError("runner merge: give the shard run directories to merge")
    first = shards[0]
    count = _shard(first)[1]
    seen: dict[int, Path] = {}
    for shard in shards:
        index, total = _shard(shard)
        config = shard.manifest.config
        if total != count:
            raise UsageError(f"{shard.directory}: shard {config.shard}, but {first.directory} is one of {count}")
        if index in seen:
            raise UsageError(f"shard {index}/{count} is given twice: {seen[index]} and {shard.directory}")
        seen[index] = shard.directory
        _same(first, shard)
    missing = [f"{i}/{count}" for i in range(1, count + 1) if i not in seen]
    if missing:
        raise UsageError(f"shard {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing: merge needs "
                         f"all {count}")
    ordered = sorted(shards, key=lambda s: _shard(s)[0])
    manifest = _merged_manifest(ordered)
    parent = out.parent if str(out.parent) else Path(".")

    def fill(staged: Path) -> None:
        for shard in ordered:
            for result in shard.trials:
                source = trial_path(shard.directory, result.variant, result.case_id, result.trial)
                shutil.copytree(source, trial_path(staged, result.variant, result.case_id, result.trial),
                                copy_function=_link_or_copy)
        write_manifest(staged, manifest)

    publish_directory(parent, out.name, fill)
    return load_run(out)


def _shard(run: LoadedRun) -> tuple[int, int]:
    shard = run.manifest.config.shard
    if shard is None:
        raise UsageError(f"{run.directory}: not a shard (made without --shard I/N); nothing to merge it with")
    index, total = shard.split("/")
    return int(index), int(total)


def _same(first: LoadedRun, other: LoadedRun) -> None:
    """Refuse a shard of another configuration, dataset or runtime than the first one's."""
    a, b = first.manifest, other.manifest
    mine = {k: v for k, v in a.config.comparable().items() if k != "shard"}
    theirs = {k: v for k, v in b.config.comparable().items() if k != "shard"}
    differing = next((k for k in mine if mine[k] != theirs.get(k)), None)
    if differing is not None:
        raise UsageError(f"{other.directory}: made with a different {differing.replace('_', ' ')} than "
                         f"{first.directory}; shards must be of one run configuration")
    if a.dataset_fingerprint != b.dataset_fingerprint:
        raise UsageError(f"{other.directory}: a different dataset (fingerprint {b.dataset_fingerprint[:12]}) than "
                         f"{first.directory} ({a.dataset_fingerprint[:12]}): the corpus changed between shards")
    if a.runtime.get("fingerprint") != b.runtime.get("fingerprint"):
        raise UsageError(f"{other.directory}: a different runtime (fingerprint {str(b.runtime.get('fingerprint'))[:12]})"
                         f" than {first.directory} ({str(a.runtime.get('fingerprint'))[:12]}): Hindcast, Python, "
                         f"the OS, git, the agent commands or the sandbox differ between shards")


def _merged_manifest(shards: list[LoadedRun]) -> RunManifest:
    first = shards[0].manifest
    digests: dict[str, str] = {}
    for shard in shards:
        for result in shard.trials:
            key = trial_key(result.variant, result.case_id, result.trial)
            if key in digests:
                raise UsageError(f"{shard.directory}: trial {key} is also in another shard")
            digests[key] = shard.manifest.digests[key]
    meta = {}
    for shard in shards:
        meta.update(shard.manifest.cases_meta)
    run_id, created = new_run_stamp()
    merged = tuple({"run_id": s.manifest.run_id, "shard": s.manifest.config.shard, "created": s.manifest.created,
                    "resumed": len(s.manifest.resumed)} for s in shards)
    return replace(first, run_id=run_id, created=created, config=replace(first.config, shard=None),
                   digests=digests, cases_meta=meta, resumed=tuple(r for s in shards for r in s.manifest.resumed),
                   merged_from=merged)


def _link_or_copy(source: str, target: str) -> None:
    """Hard-link a trial's file (a merge of big transcripts costs no space) or copy it across file systems."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
