"""What must never ship in a prompt whatever the justification: secrets, personal data, internal hosts."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterator
from functools import lru_cache
from typing import Any

# (kind, start, end, reason) of one match on one line; columns are 0-based offsets.
Match = tuple[str, int, int, str]

EMAIL = re.compile(r"(?<![\w.+:/-])[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")
RESERVED_DOMAINS = ("example.com", "example.org", "example.net")
RESERVED_TLDS = (".example", ".test", ".invalid", ".localhost")
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://([^\s/?#<>()\[\]`'\"@]+@)?([^\s/?#:<>()\[\]`'\"]+)(:\d+)?[^\s<>`'\"]*",
                 re.IGNORECASE)
HOST = re.compile(r"(?<![\w.@-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}\b", re.IGNORECASE)
INTERNAL_TLDS = frozenset({"internal", "lan", "corp", "intranet", "localdomain", "intra"})
INTERNAL_LABELS = frozenset({"corp", "internal", "intranet", "intra"})
PUBLIC_TLDS = frozenset({"com", "net", "org", "io", "dev", "co", "cloud", "app", "ai", "biz"})
IPV4 = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.])")
PRIVATE_NETWORKS = tuple(ipaddress.ip_network(net) for net in
                         ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "fd00::/8"))
TOKEN = re.compile(r"(?<![\w+/=-])[A-Za-z0-9_+/=-]{20,}(?![\w+/=-])")
BEARER = re.compile(r"\bBearer\s+([A-Za-z0-9._~+/=-]{12,})")
HEX = re.compile(r"^[0-9a-fA-F]+$")


def sensitive_matches(line: str) -> Iterator[Match]:
    """Every secret, personal datum and internal host on one line of a prompt."""
    yield from _secrets(line)
    for match in EMAIL.finditer(line):
        domain = match.group().rsplit("@", 1)[1].lower()
        local = match.group().split("@", 1)[0]
        if local != "git" and domain not in RESERVED_DOMAINS and not domain.endswith(RESERVED_TLDS):
            yield "email", match.start(), match.end(), "an email address is personal data"
    yield from _internal_hosts(line)
    for match in BEARER.finditer(line):
        yield "token", match.start(1), match.end(1), "a bearer token"
    for match in TOKEN.finditer(line):
        if _looks_random(match.group()):
            yield "token", match.start(), match.end(), "a random-looking token (credential or session id)"


def _internal_hosts(line: str) -> Iterator[Match]:
    for match in URL.finditer(line):
        host = match.group(2).lower()
        if "." not in host and host not in ("localhost", "") and not host.isdigit():
            yield "internal-host", match.start(2), match.end(2), "a single-label host only resolves inside a network"
        elif is_internal_host(host, in_url=True):
            yield "internal-host", match.start(2), match.end(2), "an internal host name"
    for match in HOST.finditer(line):
        if is_internal_host(match.group(), in_url=False):
            yield "internal-host", match.start(), match.end(), "an internal host name"
    for match in IPV4.finditer(line):
        try:
            address = ipaddress.ip_address(match.group())
        except ValueError:
            continue
        if any(address in network for network in PRIVATE_NETWORKS if network.version == address.version):
            yield "internal-host", match.start(), match.end(), "a private network address"


def is_internal_host(host: str, *, in_url: bool) -> bool:
    """An intranet name: an internal pseudo-TLD, or a corp/internal label under a public domain.

    `.local` counts only inside a URL, since prose is full of names like `threading.local`.
    """
    labels = host.lower().split(".")
    if len(labels) < 2:
        return False
    if labels[-1] in INTERNAL_TLDS or labels[-2:] == ["home", "arpa"]:
        return True
    if labels[-1] == "local":
        return in_url
    return labels[-1] in PUBLIC_TLDS and bool(INTERNAL_LABELS.intersection(labels[:-1]))


def _looks_random(token: str) -> bool:
    """Random tokens interleave digits and short letter runs; identifiers and words do not."""
    if HEX.match(token):
        return False  # hex runs are commit hashes, reported by the commit rule
    digit_runs = re.findall(r"\d+", token)
    letter_runs = re.findall(r"[A-Za-z]+", token)
    if len(digit_runs) < 3 or not letter_runs:
        return False
    return sum(map(len, letter_runs)) / len(letter_runs) <= 4


@lru_cache(maxsize=1)
def _plugins() -> tuple[Any, ...]:
    """Every detect-secrets plugin, configured once with the library's defaults."""
    from detect_secrets.settings import default_settings, get_plugins

    with default_settings():
        return tuple(get_plugins())


def _secrets(line: str) -> Iterator[Match]:
    """detect-secrets over one line, without its eager mode (which flags every bare word as entropy)."""
    spans: dict[tuple[int, int], list[str]] = {}
    for plugin in _plugins():
        for secret in plugin.analyze_line(filename="prompt.txt", line=line, line_number=1):
            value = secret.secret_value or ""
            if not value or (secret.type == "Hex High Entropy String" and HEX.match(value)):
                continue
            if secret.type.startswith("Public IP") and not _is_global(value):
                continue  # documentation and reserved ranges are fine in a task
            start = line.find(value)
            if start < 0:
                continue
            start, end = _widen(line, start, start + len(value))
            spans.setdefault((start, end), [])
            if secret.type not in spans[(start, end)]:
                spans[(start, end)].append(secret.type)
    for (start, end), types in sorted(spans.items()):
        yield "secret", start, end, f"a secret ({', '.join(types)})"


def _is_global(value: str) -> bool:
    try:
        return ipaddress.ip_address(value).is_global
    except ValueError:
        return True


def _widen(line: str, start: int, end: int) -> tuple[int, int]:
    """Grow a partial match (a plugin may report only a token's prefix) to the whole token."""
    stop = " \t'\"`,;()[]{}<>=:@/"
    while start > 0 and line[start - 1] not in stop:
        start -= 1
    while end < len(line) and line[end] not in stop:
        end += 1
    return start, end


def warm_up() -> None:
    """Load detect-secrets' plugins ahead of the first check (importing them takes about a second)."""
    _plugins()
