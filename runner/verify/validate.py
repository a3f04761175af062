"""`runner validate`: load every corpus file, check commits exist and oracle patches apply, in one pass."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from corpus import Corpus, corpus_fingerprint
from corpus.errors import CorpusError, UsageError
from corpus.gitutil import git_env, open_repository, run_git
from corpus.layout import CASE_FILE, ORACLE_FILE, Kind
from corpus.store import StoredCase


@dataclass(frozen=True)
class ValidationReport:
    """What validation found."""

    cases: int
    """Number of cases on disk that loaded."""
    active: int
    """Number of active cases."""
    candidates: int
    """Number of candidates awaiting review that loaded."""
    rejected: int
    """Number of rejected fix commits."""
    dataset_fingerprint: str
    """sha256 over the active cases that loaded."""
    errors: tuple[str, ...] = ()
    """Every problem found, one line each ("<file>[:line]: [field: ]message"); empty when the corpus is valid."""


def validate(corpus: Corpus, repo_override: Path | None = None) -> ValidationReport:
    """Validate cases, candidates and rejected.yaml, collecting every problem instead of stopping at the first.

    A case whose case.yaml does not load contributes every problem of it (`Corpus.problems`); a case that loads is then checked against the source repository: both commits must exist and oracle.patch must
    apply to the base commit's tree. Only an unusable source repository is raised (nothing can be checked)."""
    errors: list[str] = []
    cases = _load_all(corpus, "cases", errors)
    candidates = _load_all(corpus, "candidates", errors)
    try:
        rejected = len(corpus.rejections())
    except UsageError as exc:
        errors.append(exc.message)
        rejected = 0
    repo = open_repository(corpus.repo_path(repo_override))
    present = _check_commits(repo, cases + candidates, errors)
    for stored in cases + candidates:
        if stored.case.base_commit in present:
            problem = oracle_problem(repo, stored)
            if problem:
                errors.append(problem)
    return ValidationReport(
        cases=len(cases),
        active=sum(1 for s in cases if s.case.status == "active"),
        candidates=len(candidates),
        rejected=rejected,
        dataset_fingerprint=corpus_fingerprint((s.case, s.files) for s in cases),
        errors=tuple(errors),
    )


def _load_all(corpus: Corpus, kind: Kind, errors: list[str]) -> list[StoredCase]:
    """Every case (or candidate) that loads; each one that does not adds its error."""
    out = []
    for case_id in corpus.ids(kind):
        try:
            out.append(corpus.load(case_id, kind))
        except UsageError:
            errors.extend(corpus.problems(case_id, kind))
    return out


def _check_commits(repo: Path, stored: list[StoredCase], errors: list[str]) -> set[str]:
    """The shas that name commits in repo; each base or fix commit that does not adds an error."""
    wanted = [(s, field, getattr(s.case, field)) for s in stored for field in ("base_commit", "fix_commit")]
    if not wanted:
        return set()
    query = "".join(f"{sha}^{{commit}}\n" for _, _, sha in wanted).encode()
    lines = run_git(["cat-file", "--batch-check"], repo, input=query).stdout.decode().splitlines()
    present = set()
    missing = []
    for (s, field, sha), line in zip(wanted, lines, strict=False):
        if line.endswith("missing") or " commit " not in f" {line} ":
            missing.append(CorpusError(s.directory / CASE_FILE, f"commit {sha} is not in the repository {repo}",
                                       field=field).message)
        else:
            present.add(sha)
    if not present and len(stored) > 1:  # not one line per commit: the repository is the wrong one
        errors.append(f"{repo}: none of the {len(wanted)} commits of the corpus's {len(stored)} cases and "
                      f"candidates is in this repository; is it the right one (--repo, or repo: in corpus.yaml)?")
    else:
        errors.extend(missing)
    return present


def oracle_problem(repo: Path, stored: StoredCase) -> str | None:
    """Why the case's oracle.patch does not apply to its base commit's tree, or None when it does (or is empty).

    Checked without a work tree: a temporary index holds the base tree and `git apply --cached --check` runs
    against it, so neither the repository's index nor its files are touched."""
    patch = stored.files.oracle_patch
    if not patch.strip():
        return None
    base = stored.case.base_commit
    with tempfile.TemporaryDirectory(prefix="hindcast-validate-") as scratch:
        env = git_env({"GIT_INDEX_FILE": str(Path(scratch) / "index")})
        run_git(["read-tree", base], repo, env=env)
        proc = run_git(["apply", "--cached", "--check", "--binary", "--whitespace=nowarn", "-"], repo,
                       input=patch, env=env, check=False)
    if proc.returncode == 0:
        return None
    lines = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return f"{stored.directory / ORACLE_FILE}: does not apply to base {base[:10]}: " \
           f"{lines[0] if lines else 'git apply failed'}"
