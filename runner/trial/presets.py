"""Agent presets: ``--agent codex`` (or ``--agent NAME=preset:codex``) stands for a documented non-interactive
command line of that agent's CLI and the transcript format it writes; ``--agent-arg model=M`` adds its model flag.

Every preset starts in the workspace and reads the prompt from ``{prompt_file}``; each CLI is asked for its
machine-readable stream on stdout and to act without asking for approval (the sandbox is the boundary).
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass

from corpus.errors import UsageError


@dataclass(frozen=True)
class Preset:
    """One agent CLI's command line, split where its model flag goes."""

    name: str
    """The preset's name (codex, claude, gemini, opencode)."""
    head: str
    """The command up to the model flag."""
    model_flag: str
    """The flag that names the model (followed by the shell-quoted model)."""
    tail: str
    """The rest of the command, after the model flag."""
    transcript_format: str
    """The transcript format the command writes (``runner.behaviour.parse.FORMATS``)."""
    hosts: tuple[str, ...] = ()
    """The model provider's hosts (`HOST[:PORT]`) the agent reaches with --agent-network model."""


PRESETS: dict[str, Preset] = {
    "codex": Preset("codex", "codex exec --json --full-auto -C {workspace}", "-m", "- < {prompt_file}", "codex",
                    ("api.openai.com", "chatgpt.com")),
    "claude": Preset("claude", "cd {workspace} && claude -p --output-format stream-json --verbose "
                     "--dangerously-skip-permissions", "--model", "< {prompt_file}", "claude",
                     ("api.anthropic.com",)),
    "gemini": Preset("gemini", "cd {workspace} && prompt=$(cat {prompt_file}) && gemini --output-format stream-json "
                     "--yolo", "--model", '--prompt "$prompt"', "gemini",
                     ("generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com")),
    "opencode": Preset("opencode", "cd {workspace} && prompt=$(cat {prompt_file}) && opencode run --format json",
                       "--model", '"$prompt"', "opencode", ("opencode.ai", "api.anthropic.com", "api.openai.com")),
}
"""The presets by name."""
ARGUMENTS = ("model",)
"""What --agent-arg may set."""
PREFIX = "preset:"


def preset_name(spec: str) -> tuple[str, str] | None:
    """(variant name, preset) for an --agent value naming a preset (``codex``, ``NAME=preset:codex``); None for
    ``NAME=COMMAND``. An unknown preset is a UsageError."""
    name, sep, rest = spec.partition("=")
    if not sep:
        if spec.strip() in PRESETS:
            return spec.strip(), spec.strip()
        return None
    if not rest.startswith(PREFIX):
        return None
    preset = rest[len(PREFIX):].strip()
    if preset not in PRESETS:
        raise UsageError(f"--agent {spec!r}: no preset {preset!r} (presets: {', '.join(PRESETS)})")
    return name.strip(), preset


def preset_command(preset: Preset, arguments: Mapping[str, str]) -> str:
    """The preset's command with its arguments (``model``) applied."""
    unknown = [k for k in arguments if k not in ARGUMENTS]
    if unknown:
        raise UsageError(f"--agent-arg {unknown[0]}: unknown argument (expected {', '.join(ARGUMENTS)})")
    model = arguments.get("model")
    if model is not None and not model.strip():
        raise UsageError("--agent-arg model=: the model is empty")
    middle = f" {preset.model_flag} {shlex.quote(model)} " if model else " "
    return preset.head + middle + preset.tail
