"""Each CLI's tools: which offered tool a script step becomes and with which arguments."""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.testing.model_provider.script import Edit, Finish, Read, Script, Shell, Step
from tests.testing.model_provider.wire import Conversation


class NotOffered(Exception):
    """A step asks for a tool the request does not offer."""


@dataclass(frozen=True)
class ToolCall:
    """One tool call of the scripted model."""

    name: str
    """The tool's name as the request offered it."""
    arguments: dict[str, object]
    """The call's arguments (a function tool's JSON object)."""
    freeform: str | None = None
    """A custom (freeform) tool's raw input instead of arguments (Codex's apply_patch)."""


@dataclass(frozen=True)
class Reply:
    """What the scripted model answers one call with: a tool call, or text alone (the last step, a side request)."""

    text: str = ""
    """The reply's text (an aider reply carries its edits here)."""
    call: ToolCall | None = None
    """The tool call, if any."""


Builder = Callable[[Step, Path], ToolCall]
"""A step and the workspace to the call of one tool."""


@dataclass(frozen=True)
class Dialect:
    """How one CLI's tools play a script: for each step kind, candidate tools in order of preference."""

    name: str
    """The CLI this dialect speaks for."""
    tools: dict[str, tuple[tuple[str, Builder], ...]]
    """Step kind to (tool name, builder) pairs, the first one offered wins; a kind absent here plays as text."""
    text_edits: bool = False
    """Edits travel in the reply text (aider's SEARCH/REPLACE blocks), not as tool calls."""
    finish_tool: tuple[str, Builder] | None = None
    """A tool the last step calls instead of answering text (mini-swe-agent submits with a command)."""
    side: Callable[[Conversation], bool] = lambda conversation: not conversation.offered
    """Whether a request is a side request (a title, router or commit message), not a step of the script."""

    def turns(self, conversation: Conversation, script: Script) -> int:
        """The index of the step a main request asks for: the assistant turns already in its history, or for a CLI
        whose prompt holds example turns of its own (aider) the turns that are replies of this script."""
        if not self.text_edits:
            return conversation.turns
        own = {self.reply(step, set(), Path()).text for step in script.steps if isinstance(step, Edit | Finish)}
        return sum(text in own for text in conversation.assistant_texts)

    def reply(self, step: Step, offered: set[str], workspace: Path) -> Reply:
        """The reply that plays step, given the tool names the request offers. Raises NotOffered."""
        if isinstance(step, Finish):
            if self.finish_tool is None:
                return Reply(text=step.text)
            return Reply(text=step.text, call=self._pick(step, (self.finish_tool,), offered, workspace))
        if isinstance(step, Edit) and self.text_edits:
            return Reply(text=search_replace(step))
        return Reply(call=self._pick(step, self.tools.get(step.kind, ()), offered, workspace))

    def _pick(self, step: Step, candidates: tuple[tuple[str, Builder], ...], offered: set[str],
              workspace: Path) -> ToolCall:
        for name, build in candidates:
            if name in offered:
                return build(step, workspace)
        wanted = ", ".join(name for name, _ in candidates) or "(none mapped)"
        raise NotOffered(f"{self.name}: step {step.kind!r} needs one of the tools [{wanted}], "
                         f"the request offers [{', '.join(sorted(offered))}]")


def search_replace(step: Edit) -> str:
    """An aider SEARCH/REPLACE block for an edit."""
    return (f"I'll fix it.\n\n{step.path}\n```python\n<<<<<<< SEARCH\n{step.old.rstrip(chr(10))}\n=======\n"
            f"{step.new.rstrip(chr(10))}\n>>>>>>> REPLACE\n```\n")


def apply_patch_text(step: Edit) -> str:
    """Codex's apply_patch grammar for an edit: one update hunk of the whole old lines."""
    old = [f"-{line}" for line in step.old.rstrip("\n").split("\n")]
    new = [f"+{line}" for line in step.new.rstrip("\n").split("\n")]
    return "\n".join(["*** Begin Patch", f"*** Update File: {step.path}", "@@", *old, *new, "*** End Patch"]) + "\n"


def python_edit(step: Edit) -> str:
    """A shell command that makes an edit with Python (for a CLI whose only tool is a shell)."""
    program = (f"import pathlib; p = pathlib.Path({step.path!r}); t = p.read_text(); "
               f"assert t.count({step.old!r}) == 1; p.write_text(t.replace({step.old!r}, {step.new!r}))")
    return f"python3 -c {shlex.quote(program)}"


def _command(step: Step) -> str:
    """The shell command line of a shell or read step."""
    if isinstance(step, Shell):
        return step.command
    if isinstance(step, Read):
        return f"cat {shlex.quote(step.path)}"
    if isinstance(step, Edit):
        return python_edit(step)
    if isinstance(step, Finish):
        return "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
    raise TypeError(step)


def _path(step: Step, workspace: Path) -> str:
    assert isinstance(step, Read | Edit)
    return str(workspace / step.path)


def _call(name: str, arguments: Callable[[Step, Path], dict[str, object]]) -> tuple[str, Builder]:
    return name, lambda step, workspace: ToolCall(name, arguments(step, workspace))


def _edit_args(path_key: str, old_key: str = "old_string", new_key: str = "new_string") -> Callable[
        [Step, Path], dict[str, object]]:
    def build(step: Step, workspace: Path) -> dict[str, object]:
        assert isinstance(step, Edit)
        return {path_key: _path(step, workspace), old_key: step.old, new_key: step.new}
    return build


def _apply_patch(step: Step) -> ToolCall:
    """Codex's apply_patch: raw input for the freeform tool, {"input": ...} for the function one."""
    assert isinstance(step, Edit)
    patch = apply_patch_text(step)
    return ToolCall("apply_patch", {"input": patch}, freeform=patch)


_CODEX_SHELL = (
    _call("exec_command", lambda s, w: {"cmd": _command(s), "workdir": str(w)}),
    _call("shell_command", lambda s, w: {"command": _command(s), "workdir": str(w)}),
    _call("shell", lambda s, w: {"command": ["bash", "-lc", _command(s)], "workdir": str(w)}),
)

CODEX = Dialect("codex", {
    "shell": _CODEX_SHELL,
    "read": _CODEX_SHELL,
    "edit": (("apply_patch", lambda s, w: _apply_patch(s)),),
})

CLAUDE = Dialect("claude", {
    "shell": (_call("Bash", lambda s, w: {"command": _command(s), "description": "Run the scripted command"}),),
    "read": (_call("Read", lambda s, w: {"file_path": _path(s, w)}),),
    "edit": (_call("Edit", _edit_args("file_path")),),
})

GEMINI = Dialect("gemini", {
    "shell": (_call("run_shell_command", lambda s, w: {"command": _command(s), "description": "scripted"}),),
    "read": (_call("read_file", lambda s, w: {"file_path": _path(s, w)}),),
    "edit": (_call("replace", lambda s, w: {**_edit_args("file_path")(s, w), "instruction": "Fix the bug"}),),
})

OPENCODE = Dialect("opencode", {
    "shell": (_call("bash", lambda s, w: {"command": _command(s), "description": "Run the scripted command"}),),
    "read": (_call("read", lambda s, w: {"filePath": _path(s, w)}),),
    "edit": (_call("edit", _edit_args("filePath", "oldString", "newString")),),
})

_MINI_BASH = _call("bash", lambda s, w: {"command": _command(s)})

MINI = Dialect("mini", {"shell": (_MINI_BASH,), "read": (_MINI_BASH,), "edit": (_MINI_BASH,)},
               finish_tool=_MINI_BASH)

AIDER = Dialect("aider", {}, text_edits=True,
                side=lambda conversation: "commit message" in conversation.instructions.lower())
"""aider offers no tools: its main requests carry edits in text, and its side request writes the commit message."""

DIALECTS = {dialect.name: dialect for dialect in (CODEX, CLAUDE, GEMINI, OPENCODE, MINI, AIDER)}
"""Every CLI's dialect by name."""


def arguments_json(call: ToolCall) -> str:
    """A function call's arguments as the JSON string OpenAI's APIs carry."""
    return json.dumps(call.arguments)
