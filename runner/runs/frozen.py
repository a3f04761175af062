"""A frozen run: a whole run as one JSON file (run.json and every trial's result.json and behaviour.json, byte for
byte), so a CI job can commit its gate baseline as one file and refreeze it deliberately.

Transcripts, patches and grader logs are left out (they are evidence for a person, not for the gate). Reading a
frozen run unpacks it into a temporary run directory that every reader then audits like any run: each
result.json's bytes must still match the digest its run.json recorded, and each behaviour.json the digest its
result.json recorded, so a frozen run edited by hand is refused like an edited run directory.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from corpus.errors import UsageError
from corpus.fsutil import atomic_write_bytes, atomic_write_text, hindcast_temp
from runner.runs.behaviour_record import BEHAVIOUR_FILE
from runner.runs.load import LoadedRun
from runner.runs.manifest import RUN_FILE, VARIANT_NAME, read_manifest
from runner.runs.result import RESULT_FILE, trial_path

FORMAT = "hindcast-frozen-run"
VERSION = 1


def freeze(run: LoadedRun) -> str:
    """The frozen run's JSON text: run.json and every recorded trial's result.json and behaviour.json as text."""
    trials: dict[str, dict[str, str | None]] = {}
    for trial in run.trials:
        folder = trial_path(run.directory, trial.variant, trial.case_id, trial.trial)
        behaviour = folder / BEHAVIOUR_FILE
        trials[f"{trial.variant}/{trial.case_id}/{trial.trial}"] = {
            "result": (folder / RESULT_FILE).read_text(encoding="utf-8"),
            "behaviour": behaviour.read_text(encoding="utf-8") if behaviour.is_file() else None,
        }
    document = {"format": FORMAT, "version": VERSION,
                "run": (run.directory / RUN_FILE).read_text(encoding="utf-8"), "trials": trials}
    return json.dumps(document, indent=1, sort_keys=True) + "\n"


def is_frozen(path: Path) -> bool:
    """Whether path is a file that starts like a frozen run."""
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        head = handle.read(4096)
    return head.lstrip().startswith(b"{") and FORMAT.encode() in head


def _document(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: not a frozen run (not JSON: {exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise UsageError(f"{path}: not a frozen run")
    if data.get("version") != VERSION:
        raise UsageError(f"{path}: frozen run version {data.get('version')!r} (expected {VERSION})")
    if not isinstance(data.get("run"), str) or not isinstance(data.get("trials"), dict):
        raise UsageError(f"{path}: not a frozen run (no run or trials)")
    return data


def thaw(path: Path, into: Path) -> Path:
    """Unpack a frozen run into a run directory under into; the directory, audited on reading like any run."""
    data = _document(path)
    try:
        run_id = json.loads(data["run"])["run_id"]
    except (ValueError, KeyError, TypeError):
        raise UsageError(f"{path}: the frozen run.json has no run id") from None
    if not isinstance(run_id, str) or not VARIANT_NAME.match(run_id):
        raise UsageError(f"{path}: run id {run_id!r} cannot name a directory")
    run_dir = into / run_id
    atomic_write_text(run_dir / RUN_FILE, data["run"])
    read_manifest(run_dir)  # a frozen run.json that is not a run manifest is refused here, naming the copy
    for key, files in data["trials"].items():
        parts = key.split("/")
        if (len(parts) != 3 or not all(VARIANT_NAME.match(p) for p in parts) or not parts[2].isdigit()
                or not isinstance(files, dict) or not isinstance(files.get("result"), str)):
            raise UsageError(f"{path}: trial {key!r} is not variant/case/trial with its result.json")
        folder = run_dir / parts[0] / parts[1] / parts[2]
        atomic_write_bytes(folder / RESULT_FILE, files["result"].encode("utf-8"))
        if isinstance(files.get("behaviour"), str):
            atomic_write_bytes(folder / BEHAVIOUR_FILE, files["behaviour"].encode("utf-8"))
    return run_dir


def thawed(path: Path) -> Path:
    """A frozen run unpacked into a temporary directory removed when the process exits."""
    scratch = Path(tempfile.mkdtemp(prefix="hindcast-frozen-", dir=hindcast_temp()))
    atexit.register(shutil.rmtree, scratch, True)
    return thaw(path, scratch)
