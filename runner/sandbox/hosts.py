"""Which hosts the agent's egress proxy lets through: the allow-list (--allow-host, a preset's provider hosts), how
a host name is compared, and which hosts are loopback or hold a project's later history."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable
from dataclasses import dataclass

from corpus.errors import UsageError

DEFAULT_PORTS = (443, 80)
"""The ports an allowed host without a port is reachable on."""
CODE_HOSTS = (
    # git forges and their content hosts
    "github.com", "githubusercontent.com", "githubassets.com", "github.io", "gitlab.com", "gitlab.io",
    "bitbucket.org", "bitbucket.io", "codeberg.org", "sr.ht", "gitea.com", "gitee.com", "sourceforge.net",
    "sourcehut.org", "googlesource.com", "git.kernel.org", "salsa.debian.org", "launchpad.net", "pagure.io",
    "framagit.org", "notabug.org", "savannah.gnu.org", "git.savannah.gnu.org", "gitlab.gnome.org",
    "invent.kde.org", "huggingface.co",
    # package indexes and their mirrors
    "pypi.org", "pythonhosted.org", "pypi.python.org", "npmjs.org", "npmjs.com", "yarnpkg.com", "unpkg.com",
    "jsdelivr.net", "jsr.io", "deno.land", "crates.io", "rust-lang.org", "proxy.golang.org", "sum.golang.org",
    "goproxy.io", "goproxy.cn", "pkg.go.dev", "rubygems.org", "maven.org", "repo.maven.apache.org",
    "gradle.org", "packagist.org", "nuget.org", "hex.pm", "pub.dev", "cran.r-project.org", "anaconda.org",
    "anaconda.com", "conda-forge.org", "hackage.haskell.org", "opam.ocaml.org", "cpan.org", "metacpan.org",
    "swiftpackageindex.com", "cocoapods.org", "clojars.org",
)
"""Domains (and their subdomains) where a project's later history or releases live."""
LOOPBACK_NAMES = ("localhost", "localhost.localdomain")


@dataclass(frozen=True)
class AllowedHost:
    """A host the agent may reach: one port, or DEFAULT_PORTS."""

    host: str
    """The host name or address, lowercased (an IPv6 address without brackets)."""
    port: int | None = None
    """The port; None for DEFAULT_PORTS."""

    @property
    def local(self) -> bool:
        """A loopback host with a port: forwarded onto the sandbox's loopback instead of proxied."""
        return self.port is not None and is_loopback(self.host)

    def allows(self, host: str, port: int) -> bool:
        """Whether a connection to host:port is this one."""
        return normal_host(host) == self.host and port in ((self.port,) if self.port else DEFAULT_PORTS)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port is None else f"{host}:{self.port}"


def parse_allowed(text: str) -> AllowedHost:
    """HOST, HOST:PORT or [IPV6]:PORT as an AllowedHost; ValueError saying what is wrong."""
    if not text.strip() or any(c.isspace() or c in "/@?#" for c in text.strip()):
        raise ValueError("expected HOST or HOST:PORT, e.g. api.example.com or 127.0.0.1:8000")
    host, port = split_host_port(text.strip(), None)
    if not host:
        raise ValueError("expected HOST or HOST:PORT, e.g. api.example.com or 127.0.0.1:8000")
    if port is None and is_loopback(host):
        raise ValueError("a loopback host needs its port (the local endpoint's, e.g. 127.0.0.1:8000)")
    return AllowedHost(host, port)


def allowed_hosts(texts: Iterable[str], flag: str) -> tuple[AllowedHost, ...]:
    """The allowed hosts of texts, without repeats; UsageError naming flag and the bad value."""
    found: list[AllowedHost] = []
    for text in texts:
        try:
            allowed = parse_allowed(text)
        except ValueError as exc:
            raise UsageError(f"{flag} {text!r}: {exc}") from None
        if allowed not in found:
            found.append(allowed)
    return tuple(found)


def split_host_port(text: str, default: int | None) -> tuple[str, int | None]:
    """(host, port) of `host[:port]` or `[v6][:port]`, the host normalised; ValueError for a bad port."""
    host, port = text, ""
    if text.startswith("["):
        end = text.find("]")
        host, rest = (text[1:end], text[end + 1:]) if end > 0 else (text, "")
        port = rest.removeprefix(":") if rest.startswith(":") else ""
    elif text.count(":") == 1:
        host, port = text.split(":")
    if not port:
        return normal_host(host), default
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{port!r} is not a port")
    return normal_host(host), int(port)


def normal_host(host: str) -> str:
    """A host name as compared: lowercased, without a trailing dot or brackets."""
    return host.strip().strip("[]").rstrip(".").lower()


def is_loopback(host: str) -> bool:
    """localhost, 127.0.0.0/8 or ::1."""
    host = normal_host(host)
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def is_code_host(host: str) -> bool:
    """Whether host is one of CODE_HOSTS or under one."""
    host = normal_host(host)
    return any(host == domain or host.endswith("." + domain) for domain in CODE_HOSTS)


