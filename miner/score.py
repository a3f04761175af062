"""Which commits look like fixes, and why: the first-pass filter and the evidence-backed score."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from corpus.references import find_references
from miner.classify import Category, PathClassifier, is_binary_name, is_formatting_message
from miner.gitlog import LogCommit

FIX_WORDS = re.compile(
    r"\b(?:fix(?:es|ed|ing)?|bug(?:s|fix)?|hotfix|regress(?:ion|ions|ed)?|crash(?:es|ed|ing)?|errors?|"
    r"incorrect(?:ly)?|broken|break(?:s|ing)?|wrong(?:ly)?|fail(?:s|ed|ing|ure)?|exception|invalid|leak(?:s|ed)?|"
    r"race|deadlock|hangs?|overflow|underflow|panic(?:s|ked)?|segfault|typo|mistake|issue|defect|resolve[sd]?|"
    r"prevents?|handle)\b",
)
"""Fix words, matched in the lower-cased message (several times faster than an IGNORECASE search); no group
captures, so findall gives the words."""
STRONG_FIX_WORDS = frozenset({"fix", "fixes", "fixed", "fixing", "bug", "bugfix", "hotfix", "regression",
                              "regressed", "crash", "crashes", "crashed", "broken", "incorrect", "incorrectly"})
FEATURE_WORDS = re.compile(
    r"^(add(s|ed)? (support|option|feature|new)|implement(s|ed)?|introduce[sd]?|feat(\([^)]*\))?!?:|"
    r"refactor|bump|release|version|prepare|initial|wip\b|merge branch)",
    re.IGNORECASE,
)
REVERT = re.compile(r"^revert\b|\bthis reverts commit [0-9a-f]{7,40}", re.IGNORECASE | re.MULTILINE)
MAINTENANCE_PENALTY = 2.0
"""Taken off the score of a subject that reads like maintenance rather than a fix of behaviour."""
MAINTENANCE: tuple[tuple[str, re.Pattern[str]], ...] = tuple((label, re.compile(pattern)) for label, pattern in (
    ("typo", r"\btypos?\b|\bspelling\b|\bmisspel\w*|\bgrammar\b"),
    ("fix tests", r"^(fix|fixes|fixed|fixing|repair|update)\s+((the|a|some|broken|failing|failed)\s+)*tests?\b"),
    ("flaky test", r"\bflak(y|iness|es)\b|\bde-?flake\w*|\bintermittent(ly)?\s+(fail|test)"),
    ("chore", r"^(chore|ci|build|style|docs?|tests?|deps)(\([^)]*\))?!?:"),
    ("deprecation warning", (r"\w*(deprecation|future)warning\b|\bdeprecat(ion|ed)\s+warnings?\b"
                            r"|^(fix|fixes|fixed|silence|suppress|avoid|remove)\s+(\w+\s+)?deprecations?\b")),
    ("lint", (r"\b(ruff|flake8|isort|mypy|pylint|pyflakes|pycodestyle|autopep8|yapf|pre-?commit|eslint|prettier|"
             r"rubocop|clippy|gofmt|rustfmt|lint|lints|linter|linting)\b"
             r"|\b(run|ran|apply|applied|with|by|appease|satisfy|per)\s+black\b|^black\b"
             r"|\bblack\s+(format\w*|reformat\w*|style|fixes|changes|errors)\b"
             r"|^(re)?format(s|ted|ting)?\s+(code|files|sources|the code)\b|\breformat\w*")),
    ("bump", r"^bump(s|ed)?\b"),
    ("release", (r"^(release|releasing|released|version)\s+v?\d|^prepare(s|d)?\s+(for\s+)?(the\s+)?(next\s+)?"
                r"(release|v?\d)|^v?\d+(\.\d+)+\S*$")),
    ("merge of a main line", (r"^merge\s+(remote-tracking\s+)?branch(es)?\s+'?((origin|upstream)/)?(main|master|"
                             r"develop|dev|trunk|stable|release[-/]?[\w.]*|v?\d[\w.]*|[\w.]*-maintenance|"
                             r"proposed/[\w.]*)('|\s|$)|^merge\s+tag\b")),
))
"""(label, pattern) of maintenance subjects, matched in the lower-cased subject (a merge's: its description's)."""
MERGE_SUBJECT = re.compile(r"^Merge (pull request|branch|remote-tracking branch|.* into )", re.IGNORECASE)
MIN_SUBJECTS = 20
"""Below this many subjects scanned, how common a word is says nothing: every fix word keeps its weight."""
DIFF_SIGNAL = 1.0
"""Added for a changed condition or return in the source, and again for a test that asserts a changed value."""


@dataclass(frozen=True)
class SizeLimits:
    """Bounds that keep a candidate small enough to be a task."""

    max_files: int = 50
    """Changed paths per commit (first pass, all categories)."""
    max_lines: int = 1500
    """Changed lines (added + deleted) over the oracle and test files (second pass)."""


@dataclass(frozen=True)
class Survivor:
    """A commit that passed the first pass, with its paths sorted into categories."""

    commit: LogCommit
    """The commit."""
    categories: tuple[tuple[str, Category], ...]
    """(path, category) for every changed path."""

    def paths(self, *wanted: Category) -> tuple[str, ...]:
        """Paths of the given categories, in git's order."""
        return tuple(path for path, category in self.categories if category in wanted)


def prefilter(commit: LogCommit, classifier: PathClassifier, limits: SizeLimits) -> Survivor | str:
    """Return a Survivor, or the reason (a short slug) the commit is not a candidate."""
    if not commit.parents:
        return "root-commit"
    if not commit.changes:
        return "no-changes"
    if len(commit.changes) > limits.max_files:
        return "too-many-files"
    facts = classifier.facts
    categories = []
    lockfiles = binaries = vendored = 0
    kinds = set()
    for change in commit.changes:
        category, lockfile, binary = facts(change.path)
        categories.append((change.path, category))
        kinds.add(category)
        lockfiles += lockfile
        binaries += binary
        vendored += category == "vendored"
    count = len(categories)
    if lockfiles == count:
        return "bulk-lockfile"
    if binaries == count:
        return "bulk-binary"
    if is_formatting_message(commit.message):
        return "bulk-formatting"
    if vendored >= 3 and vendored * 2 >= count:
        return "bulk-vendored"
    if "test" not in kinds:
        return "no-test-change"
    if "source" not in kinds:
        return "no-source-change"
    if all(is_binary_name(path) for path, category in categories if category == "source"):
        return "bulk-binary"
    return Survivor(commit, tuple(categories))


def message_text(commit: LogCommit) -> str:
    """The message that describes the change: for a merge of a pull request, its body (the PR title)."""
    if commit.is_merge and MERGE_SUBJECT.match(commit.subject):
        body = commit.message.split("\n", 1)[1].strip() if "\n" in commit.message else ""
        if body:
            return body
    return commit.message


def maintenance(subject: str) -> list[str]:
    """The labels of the maintenance patterns a subject matches (typo, flaky test, lint, ...); [] for none."""
    lowered = subject.lower()
    return [label for label, pattern in MAINTENANCE if pattern.search(lowered)]


class SubjectWords:
    """How many of the subjects the first pass read carry each fix word: a word most subjects of a history carry
    ("Fix #N: ..." on every commit) says little there."""

    def __init__(self) -> None:
        self.subjects = 0
        """Subjects read."""
        self.counts: Counter[str] = Counter()
        """Fix word -> subjects carrying it."""

    def observe(self, commit: LogCommit) -> None:
        """Count one commit's subject (a merge of a pull request: its title)."""
        self.subjects += 1
        message = message_text(commit) if len(commit.parents) > 1 else commit.message
        end = message.find("\n")
        found = FIX_WORDS.findall((message if end < 0 else message[:end]).lower())
        if found:
            self.counts.update(set(found))

    def share(self, word: str) -> float:
        """The part of the subjects that carry word (0 below MIN_SUBJECTS)."""
        return self.counts[word] / self.subjects if self.subjects >= MIN_SUBJECTS else 0.0

    def weight(self, word: str) -> float:
        """What the word counts for: all of it in at most half the subjects, nothing in all of them, linearly
        between."""
        return min(1.0, 2.0 * (1.0 - self.share(word)))


def score_commit(commit: LogCommit, *, oracle_lines: int, test_lines: int, test_functions: int,
                 behaviour_lines: int = 0, assertion_lines: int = 0,
                 words: SubjectWords | None = None) -> tuple[float, tuple[str, ...]]:
    """Score a candidate and say why; higher is more likely a real, well-tested fix. The fix words count for
    the most telling of them (words: how common each is in the history scanned); behaviour_lines are the
    condition and return lines the source change changed, assertion_lines the assertions the tests changed
    (`miner.diffsignals`)."""
    text = message_text(commit)
    evidence: list[str] = []
    score = 0.0
    found = sorted({match.group(0) for match in FIX_WORDS.finditer(text.lower())})
    if found:
        weights = {word: words.weight(word) if words is not None else 1.0 for word in found}
        value = max((2.0 if word in STRONG_FIX_WORDS else 1.0) * weights[word] for word in found)
        score += value
        line = f"fix words in message: {', '.join(found)}"
        common = [word for word in found if weights[word] < 1.0]
        if common and words is not None:
            shares = ", ".join(f"{word} in {words.share(word):.0%}" for word in common)
            line += f" (common in this history's subjects: {shares}; +{round(value, 2):g})"
        evidence.append(line)
    refs = sorted({ref.text.strip() for ref in find_references(text) if ref.kind != "change-id"})
    if refs:
        score += 1.0
        evidence.append(f"issue references: {', '.join(refs[:5])}")
    if REVERT.search(commit.message):
        score += 0.5
        evidence.append("revert marker")
    subject = text.split("\n", 1)[0].strip()
    chores = maintenance(subject)
    if chores:
        score -= MAINTENANCE_PENALTY
        evidence.append(f"subject looks like maintenance ({', '.join(chores)}) -{MAINTENANCE_PENALTY}")
    elif FEATURE_WORDS.match(subject):
        score -= 1.0
        evidence.append("subject reads like a feature, refactor or release")
    if oracle_lines <= 20:
        score += 1.0
        evidence.append(f"small fix: {oracle_lines} changed source lines")
    elif oracle_lines <= 100:
        score += 0.5
        evidence.append(f"moderate fix: {oracle_lines} changed source lines")
    else:
        score -= 0.5
        evidence.append(f"large change: {oracle_lines} changed source lines")
    if behaviour_lines:
        score += DIFF_SIGNAL
        evidence.append(f"behaviour change in source: {behaviour_lines} condition or return "
                        f"line{'s' if behaviour_lines != 1 else ''} changed")
    if test_functions:
        score += min(2.0, 0.75 * test_functions)
        evidence.append(f"{test_functions} test function{'s' if test_functions != 1 else ''} added or changed")
    else:
        score -= 0.5
        evidence.append(f"no test function added or changed ({test_lines} test lines changed)")
    if assertion_lines:
        score += DIFF_SIGNAL
        evidence.append(f"test asserts a changed value: {assertion_lines} assertion "
                        f"line{'s' if assertion_lines != 1 else ''} changed")
    if commit.is_merge:
        evidence.append("landed as a merge (diff against the first parent)")
    return round(score, 2), tuple(evidence)
