"""All ruamel.yaml handling lives here: one round-trip instance per call, nothing global.

ruamel.yaml is imported on first use: a command that never reads a person's YAML (`miner scan` into a new
corpus) does not pay for loading it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpus.errors import CorpusError
from corpus.fsutil import atomic_write_text

if TYPE_CHECKING:
    from ruamel.yaml import YAML
    from ruamel.yaml.comments import CommentedMap


def _yaml() -> YAML:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def parse_yaml(text: str, path: Path) -> Any:
    """Parse YAML text (round-trip types keep line numbers); errors name the file and line."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    try:
        return _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise CorpusError(path, f"malformed YAML: {problem}", line=line) from None
    except YAMLError as exc:
        raise CorpusError(path, f"malformed YAML: {exc}") from None


def load_yaml(path: Path) -> Any:
    """Load a YAML file; a missing, unreadable or non-UTF-8 file is a CorpusError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CorpusError(path, "file not found") from None
    except UnicodeDecodeError:
        raise CorpusError(path, "not UTF-8 text") from None
    except OSError as exc:
        raise CorpusError(path, f"cannot read: {exc.strerror}") from None
    return parse_yaml(text, path)


def dump_yaml(data: Any) -> str:
    """Serialize a document to text."""
    import io

    stream = io.StringIO()
    _yaml().dump(data, stream)
    return stream.getvalue()


def write_yaml(path: Path, data: Any) -> None:
    """Write a document atomically."""
    atomic_write_text(path, dump_yaml(data))


def to_yaml_value(value: Any) -> Any:
    """Plain Python values to YAML nodes: multi-line strings become literal blocks, tuples lists."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import LiteralScalarString

    if isinstance(value, dict):
        out = CommentedMap()
        for key, item in value.items():
            out[key] = to_yaml_value(item)
        return out
    if isinstance(value, (list, tuple)):
        seq = CommentedSeq(to_yaml_value(item) for item in value)
        if all(isinstance(item, (str, int, float, bool)) for item in value) and len(value) <= 8:
            seq.fa.set_flow_style()
        return seq
    if isinstance(value, str) and "\n" in value:
        return LiteralScalarString(value if value.endswith("\n") else value + "\n")
    return value


def merge_into(target: CommentedMap, new: dict[str, Any]) -> CommentedMap:
    """Update target in place to equal new, touching only keys whose value changed.

    Comments and the order of keys a person wrote survive; new keys are appended, removed keys dropped.
    """
    from ruamel.yaml.comments import CommentedMap

    for key in [k for k in target if k not in new]:
        del target[key]
    for key, value in new.items():
        if key in target:
            current = target[key]
            if isinstance(current, CommentedMap) and isinstance(value, dict):
                merge_into(current, value)
                continue
            if _plain(current) == _plain(value):
                continue
        target[key] = to_yaml_value(value)
    return target


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, str):
        return str(value).rstrip("\n") if "\n" in value else str(value)
    return value


def line_of(node: Any, key: str | int | None = None) -> int | None:
    """1-based line of a mapping key (or of the node itself) when the node came from a file."""
    lc = getattr(node, "lc", None)
    if lc is None:
        return None
    from ruamel.yaml.comments import CommentedMap

    try:
        if key is None:
            return int(lc.line) + 1
        return int(lc.key(key)[0]) + 1 if isinstance(node, CommentedMap) else int(lc.item(key)[0]) + 1
    except (KeyError, IndexError, TypeError, AttributeError):
        return int(lc.line) + 1
