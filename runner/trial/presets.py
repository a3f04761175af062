"""Agent presets: ``--agent codex`` (or ``--agent NAME=preset:codex``) stands for a tested non-interactive command
line of that agent's CLI, the files it needs in the trial's HOME, the transcript format it writes and where its
trajectory is; ``--agent-arg model=M`` adds its model flag.

Every preset starts in the workspace and reads the prompt from ``{prompt_file}``; each CLI is asked for its
machine-readable stream on stdout, to act without asking for approval (the sandbox is the boundary), to check for
no update and send no telemetry, and to write what it keeps of the session outside the workspace (HOME, or
``{output_dir}``), so none of it reaches the patch. The model endpoint and its credentials are the CLI's own
documented variables in the runner's environment (``ENDPOINT_VARIABLES``), which every trial inherits; the
preset's configuration files name them, never a key.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from corpus.errors import UsageError


@dataclass(frozen=True)
class HomeFile:
    """A file the preset writes into the trial's HOME before the agent starts (unless --agent-home put one there)."""

    path: str
    """Where, relative to HOME."""
    text: str
    """Its text: ``${VAR}`` is the agent environment's VAR (empty when unset), ``${VAR:-default}`` with a
    default, ``$$`` a dollar sign; ``{model}`` is the model, when the preset was given one."""


@dataclass(frozen=True)
class Preset:
    """One agent CLI's command line, split where its model flag goes, and what it needs around it."""

    name: str
    """The preset's name (codex, claude, gemini, opencode, mini, aider)."""
    head: str
    """The command up to the model flag."""
    model_flag: str
    """The flag that names the model (followed by the shell-quoted model)."""
    tail: str
    """The rest of the command, after the model flag."""
    transcript_format: str
    """The transcript format the command writes (``runner.behaviour.parse.FORMATS``)."""
    hosts: tuple[str, ...] = ()
    """The model provider's hosts the CLI reaches by default (the network a preset needs; a base URL given in the
    environment adds its own host)."""
    endpoint: tuple[str, ...] = ()
    """The documented variables that choose its model endpoint and credentials, passed through from the runner's
    environment."""
    files: tuple[HomeFile, ...] = ()
    """Files written into the trial's HOME before it starts."""
    needs_model: bool = False
    """The CLI has no default model: ``--agent-arg model=M`` is required."""
    model_template: str = "{model}"
    """How the model is spelled after the flag (``openai/{model}``)."""
    trajectory: str | None = None
    """A trajectory file the command writes into ``{output_dir}``, read instead of its stdout."""
    session: str | None = None
    """A glob, relative to HOME, of the session files the CLI keeps that hold more than its stream (Codex's
    rollout): the newest is kept as the trial's session.jsonl and read with the transcript."""
    logins: tuple[str, ...] = ()
    """Files, relative to HOME, where the CLI keeps a login of its own (`--agent-home` copies one into trials);
    the program on PATH is the preset's name."""


CODEX_CONFIG = """\
model_provider = "hindcast"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[features]
plugins = false

[analytics]
enabled = false

[model_providers.hindcast]
name = "OpenAI"
base_url = "${OPENAI_BASE_URL:-https://api.openai.com/v1}"
env_key = "OPENAI_API_KEY"
wire_api = "responses"

[projects."/workspace"]
trust_level = "trusted"
"""
"""Codex's config.toml: the Responses API at OPENAI_BASE_URL with OPENAI_API_KEY, no approvals, no update check,
plugin sync or analytics (they reach api.github.com and chatgpt.com)."""
CODEX_CATALOG = (
    "(codex debug models > ~/.codex/bundled-models.json && node -e '"
    'const fs = require("fs"), [file, slug, config] = process.argv.slice(1), all = JSON.parse(fs.readFileSync(file));'
    " if (!all.models.some(m => m.slug === slug)) {"
    ' const base = all.models.find(m => m.slug === "gpt-5.5") || all.models[0], catalog = file.replace("bundled-", "");'
    " all.models.push({...base, slug, display_name: slug, upgrade: null, availability_nux: null});"
    " fs.writeFileSync(catalog, JSON.stringify(all));"
    ' fs.writeFileSync(config, `model_catalog_json = ${JSON.stringify(catalog)}\\n` + fs.readFileSync(config)); }'
    "' ~/.codex/bundled-models.json {model} ~/.codex/config.toml) 2>/dev/null; "
)
"""When Codex's bundled catalog lacks the chosen model, a catalog that has it (a copy of gpt-5.5's entry), named
first in config.toml: Codex offers a model it does not know no apply_patch tool."""
GEMINI_SETTINGS = """\
{"security": {"auth": {"selectedType": "gemini-api-key"}},
 "general": {"disableAutoUpdate": true, "disableUpdateNag": true},
 "privacy": {"usageStatisticsEnabled": false}, "telemetry": {"enabled": false}, "tools": {"useRipgrep": false}}
"""
"""Gemini CLI's settings.json: the API key of GEMINI_API_KEY (without it the CLI exits 41), no updates, no
statistics or telemetry."""
OPENCODE_CONFIG = """\
{"$$schema": "https://opencode.ai/config.json",
 "provider": {"hindcast": {"npm": "@ai-sdk/openai-compatible", "name": "OpenAI compatible",
   "options": {"baseURL": "${OPENAI_BASE_URL:-https://api.openai.com/v1}", "apiKey": "{env:OPENAI_API_KEY}"},
   "models": {"{model}": {"name": "{model}"}}}},
 "model": "hindcast/{model}", "autoupdate": false, "share": "disabled", "snapshot": false}
"""
"""opencode.json: the model over Chat Completions at OPENAI_BASE_URL with OPENAI_API_KEY; no updates, sharing or
git snapshots."""
OPENCODE_PLUGIN_LOCK = """\
{"lockfileVersion": 3, "packages": {"": {"dependencies": {"@opencode-ai/plugin": "1.18.33"}}}}
"""
"""On every start opencode npm-installs its plugin package into its config directory unless node_modules is there
and package-lock.json lists it."""
OPENCODE_QUIET = ("OPENCODE_DISABLE_MODELS_FETCH=1 OPENCODE_DISABLE_AUTOUPDATE=1 OPENCODE_DISABLE_LSP_DOWNLOAD=1 "
                  "OPENCODE_DISABLE_DEFAULT_PLUGINS=1 OPENCODE_DISABLE_CLAUDE_CODE=1 OPENCODE_DISABLE_SHARE=1")
AIDER_PRICES = (
    "(py=$(sed -n '1s/^#!//p' \"$(command -v aider)\") && site=$(\"$py\" -c 'import sysconfig; "
    "print(sysconfig.get_paths()[\"purelib\"])') && mkdir -p ~/.aider/caches && cp "
    "\"$site/litellm/model_prices_and_context_window_backup.json\" "
    "~/.aider/caches/model_prices_and_context_window.json) 2>/dev/null; "
)
"""aider downloads litellm's price list unless a copy less than a day old is in ~/.aider/caches: the copy litellm
ships in aider's own environment."""

PRESETS: dict[str, Preset] = {
    "codex": Preset(
        "codex", "cd {workspace} && codex exec --json --dangerously-bypass-approvals-and-sandbox "
        "--skip-git-repo-check -C {workspace}", "-m", "- < {prompt_file}", "codex",
        hosts=("api.openai.com",), endpoint=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
        files=(HomeFile(".codex/config.toml", CODEX_CONFIG),),
        session=".codex/sessions/*/*/*/rollout-*.jsonl", logins=(".codex/auth.json",)),
    "claude": Preset(
        "claude", "cd {workspace} && IS_SANDBOX=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 claude -p "
        "--output-format stream-json --verbose --dangerously-skip-permissions", "--model", "< {prompt_file}",
        "claude", hosts=("api.anthropic.com",),
        endpoint=("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"),
        logins=(".claude/.credentials.json",)),
    "gemini": Preset(
        "gemini", "cd {workspace} && prompt=$(cat {prompt_file}) && gemini --output-format stream-json --yolo "
        "--skip-trust", "--model", '--prompt "$prompt"', "gemini",
        hosts=("generativelanguage.googleapis.com",), endpoint=("GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL"),
        files=(HomeFile(".gemini/settings.json", GEMINI_SETTINGS),),
        session=".gemini/tmp/*/chats/session-*.jsonl", logins=(".gemini/oauth_creds.json",)),
    "opencode": Preset(
        "opencode", f"cd {{workspace}} && prompt=$(cat {{prompt_file}}) && {OPENCODE_QUIET} opencode run "
        "--format json --auto --pure", "--model", '"$prompt"', "opencode",
        hosts=("api.openai.com",), endpoint=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
        files=(HomeFile(".config/opencode/opencode.json", OPENCODE_CONFIG),
               HomeFile(".config/opencode/package-lock.json", OPENCODE_PLUGIN_LOCK),
               HomeFile(".config/opencode/node_modules/.keep", "")),
        needs_model=True, model_template="hindcast/{model}"),
    "mini": Preset(
        "mini", "cd {workspace} && prompt=$(cat {prompt_file}) && MSWEA_CONFIGURED=true MSWEA_SILENT_STARTUP=1 "
        "MSWEA_COST_TRACKING=ignore_errors LITELLM_LOCAL_MODEL_COST_MAP=True mini", "--model",
        '--yolo --exit-immediately --cost-limit 0 --output {output_dir}/mini.traj.json --task "$prompt"',
        "mini-swe-agent", hosts=("api.openai.com",), endpoint=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
        needs_model=True, trajectory="mini.traj.json"),
    "aider": Preset(
        "aider", f"cd {{workspace}} && {AIDER_PRICES}prompt=$(cat {{prompt_file}}) && "
        "LITELLM_LOCAL_MODEL_COST_MAP=True aider", "--model",
        "--edit-format diff --no-stream --yes-always --no-check-update --analytics-disable "
        "--no-show-model-warnings --no-pretty --no-fancy-input --no-gitignore --no-auto-commits --map-tokens 0 "
        "--no-detect-urls --input-history-file {output_dir}/aider.input.history "
        "--chat-history-file {output_dir}/aider.chat.history.md --analytics-log {output_dir}/aider.analytics.jsonl "
        '--message "$prompt"', "aider", hosts=("api.openai.com",), endpoint=("OPENAI_API_KEY", "OPENAI_BASE_URL"),
        needs_model=True, trajectory="aider.analytics.jsonl"),
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
    if model is None and preset.needs_model:
        raise UsageError(f"--agent {preset.name}: {preset.name} has no default model: give one with "
                         f"--agent-arg model=MODEL")
    head = preset.head
    if model and preset.name == "codex":
        head = head.replace("codex exec", CODEX_CATALOG.replace("{model}", shlex.quote(model)) + "codex exec", 1)
    spelled = preset.model_template.replace("{model}", model) if model else ""
    middle = f" {preset.model_flag} {shlex.quote(spelled)} " if model else " "
    return head + middle + preset.tail


def home_files(preset: Preset, model: str | None, env: Mapping[str, str]) -> dict[str, str]:
    """The preset's HOME files (path relative to HOME: text) for the agent environment env."""
    out = {}
    for file in preset.files:
        spelled = (json.dumps(model)[1:-1] if file.path.endswith(".json") else model) if model else None
        text = file.text.replace("{model}", spelled) if spelled else file.text
        out[file.path] = _expand(text, env)
    return out


def provider_hosts(preset: Preset, env: Mapping[str, str]) -> tuple[str, ...]:
    """The hosts the preset's CLI reaches for its model: the provider's default ones, and the host of each of its
    endpoint variables that env sets to a URL (a gateway's), without repeats."""
    hosts = list(preset.hosts)
    for name in preset.endpoint:
        if name.endswith("_BASE_URL") and env.get(name):
            url = urlsplit(env[name])
            if url.hostname:  # with its port when the URL names one (a local endpoint: 127.0.0.1:8000)
                hosts.append(f"{url.hostname}:{url.port}" if url.port else url.hostname)
    return tuple(dict.fromkeys(hosts))


def _expand(text: str, values: Mapping[str, str]) -> str:
    """``${VAR}``, ``${VAR:-default}`` and ``$$`` of text, from values."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("$$", i):
            out.append("$")
            i += 2
        elif text.startswith("${", i) and (end := text.find("}", i)) > 0:
            name, _, default = text[i + 2:end].partition(":-")
            out.append(values.get(name) or default)
            i = end + 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)

