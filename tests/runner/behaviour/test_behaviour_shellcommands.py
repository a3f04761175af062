"""Shell commands as agents write them: separators inside command substitutions, escaped separators
(``find -exec ... \\;``) and Codex's unquoted argv join do not split or wrap wrongly."""

from __future__ import annotations

import pytest

from runner.behaviour.shell import segments, unwrap


@pytest.mark.parametrize(("command", "programs"), [
    ("echo $(ls | wc -l)", ["echo"]),
    ("x=`ls | head -1`; cat $x", ["x=`ls", "cat"]),
    ('echo "$(date; uptime)" && ls', ["echo", "ls"]),
    ("echo $(grep 'a)b' f | wc -l) | cat", ["echo", "cat"]),
    ("echo $((1 + 2)); ls", ["echo", "ls"]),
    ("find . -name '*.pyc' -exec rm {} \\; && git status", ["find", "git"]),
    ("echo a\\|b | tr a b", ["echo", "tr"]),
    ("cd /repo && python -m pytest -q 2>&1 | tail -20", ["cd", "python", "tail"]),
])
def test_segments_keep_substitutions_and_escapes_whole(command: str, programs: list[str]) -> None:
    assert [words[0] for words in segments(command)] == programs


def test_a_substitution_keeps_its_words_and_separators() -> None:
    assert segments("echo $(ls | wc -l) done") == [["echo", "$(ls", "|", "wc", "-l)", "done"]]
    assert segments("find . -exec rm {} \\;") == [["find", ".", "-exec", "rm", "{}", "\\;"]]


@pytest.mark.parametrize(("command", "inner"), [
    ("bash -lc ls -1", "ls -1"),  # Codex's experimental JSON joined the argv with spaces
    ("/bin/zsh -lc cd /repo && ls", "cd /repo && ls"),
    ("bash -c 'echo $0' foo", "bash -c 'echo $0' foo"),  # quoted with extra arguments: not a plain join
    (["bash", "-lc", 7], "7"),
])
def test_unwrap_an_unquoted_join(command: str | list[object], inner: str) -> None:
    assert unwrap(command) == inner  # type: ignore[arg-type]
