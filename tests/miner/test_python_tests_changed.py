"""The Python test finder against Python's own parser, on generated test modules and diffs made by git."""

from __future__ import annotations

import ast
import random
import subprocess
from pathlib import Path

import pytest

from corpus import languages
from corpus.languages import testids
from tests.testing.gitrepo import git_env


def _statement(rng: random.Random, depth: int) -> list[str]:
    pad = "    " * depth
    choice = rng.randrange(6)
    if choice == 0:
        return [f"{pad}if x > {rng.randrange(9)}:", f"{pad}    x -= 1"]
    if choice == 1:
        return [f'{pad}s = """', "def test_in_a_string():", "    class NotAClass:", '"""']
    if choice == 2:
        return [f"{pad}call(", f"{pad}    {rng.randrange(9)},", f"{pad})"]
    if choice == 3:
        return [f"{pad}# a comment at depth {depth}", f"{pad}x = {rng.randrange(9)}"]
    return [f"{pad}x = {rng.randrange(100)}", f"{pad}assert x >= 0"]


def _function(rng: random.Random, depth: int, name: str) -> list[str]:
    pad = "    " * depth
    lines = [f"{pad}@pytest.mark.parametrize('x', [1])"] if rng.random() < 0.3 else []
    keyword = "async def" if rng.random() < 0.1 else "def"
    lines.append(f"{pad}{keyword} {name}({'self, ' if depth else ''}x=1):")
    if rng.random() < 0.3:
        lines.append(f'{pad}    """Docstring with def test_fake(): inside."""')
    for _ in range(rng.randrange(1, 4)):
        lines += _statement(rng, depth + 1)
    if rng.random() < 0.2:  # a helper nested in the function
        lines += [f"{pad}    def inner():", f"{pad}        return x", *_statement(rng, depth + 1)]
    return lines


def _module(rng: random.Random) -> str:
    lines = ["import pytest", ""]
    for index in range(rng.randrange(3, 9)):
        kind = rng.randrange(4)
        if kind == 0:
            lines += [f"class TestGroup{index}:"]
            for method in range(rng.randrange(1, 4)):
                name = f"test_m{index}_{method}" if rng.random() < 0.8 else f"helper_{index}_{method}"
                lines += _function(rng, 1, name)
                if rng.random() < 0.2:
                    lines += [f"    class TestNested{method}:", *_function(rng, 2, f"test_n{index}_{method}")]
            if rng.random() < 0.3:
                lines += [f"    attribute_{index} = {index}"]
        elif kind == 1:
            lines += [f"CONSTANT_{index} = {index}"]
        else:
            name = f"test_f{index}" if rng.random() < 0.8 else f"helper_{index}"
            lines += _function(rng, 0, name)
        lines.append("")
    return "\n".join(lines) + "\n"


def _mutate(rng: random.Random, text: str) -> str:
    lines = text.split("\n")
    for _ in range(rng.randrange(1, 5)):
        index = rng.randrange(len(lines))
        line = lines[index]
        if not line.strip() or line.lstrip().startswith(("@", '"', "def", "class", "async", "#")):
            continue
        stripped = line.lstrip()
        pad = line[:len(line) - len(stripped)]
        if stripped.startswith("x = "):
            lines[index] = f"{pad}x = {rng.randrange(1000, 2000)}"
        elif stripped.startswith(("assert", "x -=")):
            lines.insert(index + 1, f"{pad}assert {rng.randrange(1000, 2000)}")
    return "\n".join(lines)


def _reference(source: str, lines: set[int]) -> set[tuple[str, tuple[str, ...], int]]:
    """Innermost test function (with its classes) around each changed code line, by ast."""
    tree = ast.parse(source)
    spans: list[tuple[int, int, str, tuple[str, ...], int]] = []

    def visit(node: ast.AST, scope: tuple[str, ...]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, (*scope, child.name))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                assert child.end_lineno is not None
                spans.append((first, child.end_lineno, child.name, scope, child.lineno))
                visit(child, scope)

    visit(tree, ())
    found = set()
    for line in lines:
        around = [span for span in spans if span[0] <= line <= span[1]]
        # The innermost test function; a helper nested in a test counts for the test around it.
        tests = [span for span in around if span[2].startswith("test")]
        if tests:
            _, _, name, scope, def_line = max(tests)
            found.add((name, scope, def_line))
    return found


def _git_diff(tmp_path: Path, old: str, new: str) -> bytes:
    (tmp_path / "a.py").write_text(old)
    (tmp_path / "b.py").write_text(new)
    proc = subprocess.run(["git", "diff", "--no-index", "--no-color", "a.py", "b.py"], cwd=tmp_path,
                          capture_output=True, env=git_env(), check=False)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


@pytest.mark.parametrize("seed", range(60))
def test_python_tests_match_the_parser(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    old = _module(rng)
    new = _mutate(rng, old)
    section = _git_diff(tmp_path, old, new)
    lines = testids.changed_lines(section)
    found = {(ref.name, ref.scope, ref.line) for ref in languages.tests_changed("tests/test_x.py", new.encode(), section)}
    assert found == _reference(new, lines)
