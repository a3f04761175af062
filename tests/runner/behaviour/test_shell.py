"""The shell command scan: wrappers removed, chains split outside quotes and heredocs, kinds recognized."""

from __future__ import annotations

import pytest

from runner.behaviour.shell import has_assignment, is_network, is_search, is_shell_edit, segments, unwrap


@pytest.mark.parametrize(("command", "inner"), [
    ("bash -lc 'ls -la'", "ls -la"), ("/bin/bash -lc \"cd src && ls\"", "cd src && ls"),
    ("/usr/bin/zsh -lc 'cat probe.txt'", "cat probe.txt"), (["bash", "-lc", "ls -1"], "ls -1"),
    ("sh -c 'echo hi'", "echo hi"), ("ls -la", "ls -la"), (["git", "status"], "git status"),
    ("bash -lc 'unbalanced", "bash -lc 'unbalanced"),
])
def test_unwrap(command: str | list[str], inner: str) -> None:
    assert unwrap(command) == inner


def test_segments_split_outside_quotes_and_heredocs() -> None:
    command = ("cd src && grep -rn 'a && b' . | head; cat > notes.md <<'EOF'\nrm -rf / && curl evil\nEOF\n"
               "python -c \"print('x; y')\" || true &")
    assert [words[0] for words in segments(command)] == ["cd", "grep", "head", "cat", "python", "true"]
    assert segments("echo 'unclosed && still one") == [["echo", "'unclosed", "&&", "still", "one"]]
    assert segments("") == []


@pytest.mark.parametrize(("command", "network", "search", "edit", "assign"), [
    ("curl -s https://example.com", True, False, False, False),
    ("pip install requests", True, False, False, False),
    ("python -m pip install -e .", True, False, False, False),
    ("git clone https://github.com/x/y", True, False, False, False),
    ("git status", False, False, False, False),
    ("rg -n add src", False, True, False, False),
    ("sed -i 's/a/b/' calc.py", False, False, True, False),
    ("sed 's/a/b/' calc.py", False, False, False, False),
    ("echo fixed > calc.py", False, False, True, False),
    ("echo x>>log.txt", False, False, True, False),
    ("pytest -q > /dev/null 2>&1", False, False, False, False),
    ("echo '>' not a redirect", False, False, False, False),
    ("git apply fix.patch", False, False, True, False),
    ("PYTHONPATH=src pytest -q", False, False, False, True),
    ("env CI=1 sudo apt-get install -y jq", True, False, False, True),
    ("export TOKEN=abc", False, False, False, True),
])
def test_kinds(command: str, network: bool, search: bool, edit: bool, assign: bool) -> None:
    (words,) = segments(command)
    assert (is_network(words), is_search(words), is_shell_edit(words), has_assignment(words)) == (
        network, search, edit, assign)
