"""Ruby: RSpec examples and `def test_` methods by indentation; `bundle exec rspec` or `ruby -Itest`;
`bundle install`."""

from __future__ import annotations

import re

from corpus.languages.base import (
    Command,
    RepoHints,
    SetupFiles,
    TestRef,
    no_interpreter,
    owns_nothing,
    quote,
    ref_id,
    setup_when,
)
from corpus.languages.testids import changed_text, indent

NAME = "ruby"
SUFFIXES: tuple[str, ...] = (".rb",)
TEST_GLOBS: tuple[str, ...] = ("*_spec.rb", "*_test.rb", "test_*.rb")
BUILD_GLOBS: tuple[str, ...] = ("Gemfile", "*.gemspec", "Rakefile", ".rubocop.yml")
LOCK_FILES: tuple[str, ...] = ("Gemfile.lock",)
DEPENDENCY_GLOBS: tuple[str, ...] = ("Gemfile", *LOCK_FILES)
GRADER_FILES: tuple[str, ...] = ()
SETUP_FILES = SetupFiles(present=("Gemfile",))
owns = owns_nothing
interpreter = no_interpreter
setup = setup_when("Gemfile", "bundle install")
RUBY_EXAMPLE = re.compile(r"""^(\s*)(?:it|specify|scenario|example|test)\b\s*\(?\s*(?:(['"])(.*?)\2)?""")
RUBY_DEF = re.compile(r"^(\s*)def\s+(test_\w+)")


def tests(path: str, content: bytes, section: bytes) -> set[TestRef]:
    """For each changed line, the nearest example or test method above it that it is indented under."""
    text, lines = changed_text(content, section)
    found: set[TestRef] = set()
    for number in lines:
        index = min(number, len(text)) - 1
        own = indent(text[index]) if 0 <= index < len(text) and text[index].strip() else 10**6
        for cursor in range(index, -1, -1):
            line = text[cursor]
            if not line.strip():
                continue
            match = RUBY_DEF.match(line) or RUBY_EXAMPLE.match(line)
            if match and (indent(line) < own or cursor == index):
                name = match.group(2) if RUBY_DEF.match(line) else (match.group(3) or "example")
                found.add(TestRef(path, name, (), cursor + 1))
                break
            if indent(line) < own:
                own = indent(line)
                if own == 0:
                    break
    return found


def command(files: list[str], refs: list[TestRef], hints: RepoHints) -> Command:
    """rspec of the spec files changed, at the lines of their changed examples; ruby -Itest of each other
    test file, filtered to its changed methods."""
    commands = []
    specs = [p for p in sorted(files) if p.endswith("_spec.rb")]
    if specs:
        lines: dict[str, list[int]] = {}
        for ref in refs:
            if ref.path in specs:
                lines.setdefault(ref.path, []).append(ref.line)
        args = [p + "".join(f":{n}" for n in sorted(lines.get(p, []))) for p in specs]
        commands.append("bundle exec rspec " + " ".join(map(quote, args)))
    for path in sorted(p for p in files if p.endswith(".rb") and p not in specs and "/" in p):
        names = sorted({ref.name for ref in refs if ref.path == path})
        if not (path.rsplit("/", 1)[-1].startswith("test_") or path.endswith("_test.rb")):
            continue
        only = f" -n {quote('/^(' + '|'.join(names) + ')$/')}" if names else ""
        commands.append(f"bundle exec ruby -Itest {quote(path)}{only}")
    return Command(" && ".join(commands), tuple(ref_id(ref) for ref in refs))

