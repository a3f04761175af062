"""The extras a setup.py declares, read from its extras_require mapping."""

from __future__ import annotations

import ast
import re

SETUP_PY_KEY = re.compile(r"""["'](test|tests|testing|dev)["']\s*:|\[\s*["'](test|tests|testing|dev)["']\s*\]\s*=(?!=)""")
"""A test extra's key in a setup.py Python 3 cannot parse (a Python 2 one), found in its text."""


def _literal_strings(node: ast.expr) -> tuple[str, ...] | None:
    """The strings of a list or tuple literal of strings; None for anything else (a computed list)."""
    if isinstance(node, ast.List | ast.Tuple) and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                                                       for e in node.elts):
        return tuple(e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
    return None


def _dict_entries(node: ast.Dict) -> list[tuple[str, ast.expr]]:
    return [(k.value, v) for k, v in zip(node.keys, node.values, strict=True)
            if isinstance(k, ast.Constant) and isinstance(k.value, str)]


def setup_py_extras(text: str) -> list[tuple[str, tuple[str, ...] | None]]:
    """The extras of setup.py's extras_require mapping (a literal given as the keyword or a dict entry, or a name
    bound to one, with the keys later set on that name), each with its requirements when written as a literal.
    Other mappings (`cmdclass={"test": ...}`) are not extras. A setup.py Python 3 cannot parse is searched as text."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return [(m.group(1) or m.group(2), None) for m in SETUP_PY_KEY.finditer(text)]
    bound: dict[str, list[tuple[str, ast.expr]]] = {}
    mappings: list[ast.expr] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name) and isinstance(node.value, ast.Dict):
                    bound.setdefault(target.id, []).extend(_dict_entries(node.value))
                elif (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)
                      and isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, str)):
                    bound.setdefault(target.value.id, []).append((target.slice.value, node.value))
        elif isinstance(node, ast.keyword) and node.arg == "extras_require":
            mappings.append(node.value)
        elif isinstance(node, ast.Dict):
            mappings += [value for key, value in _dict_entries(node) if key == "extras_require"]
    found: list[tuple[str, tuple[str, ...] | None]] = []
    for mapping in mappings:
        entries = (_dict_entries(mapping) if isinstance(mapping, ast.Dict)
                   else bound.get(mapping.id, []) if isinstance(mapping, ast.Name) else [])
        found += [(name, _literal_strings(value)) for name, value in entries]
    return found
