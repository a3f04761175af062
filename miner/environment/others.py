"""Setup commands of the languages other than Python: fetch the dependencies the base commit pins."""

from __future__ import annotations

from miner.environment.read import BaseFiles

JS_LOCKFILES = (
    ("pnpm-lock.yaml", "pnpm install --frozen-lockfile"),
    ("yarn.lock", "yarn install --frozen-lockfile"),
    ("bun.lock", "bun install --frozen-lockfile"),
    ("bun.lockb", "bun install --frozen-lockfile"),
    ("package-lock.json", "npm ci"),
    ("npm-shrinkwrap.json", "npm ci"),
)
"""Lockfile -> the install that keeps to it, first match wins."""


def js(files: BaseFiles) -> tuple[str | None, str]:
    """The package manager its lockfile names; `npm install` without one."""
    if not files.has("package.json"):
        return None, "command: none (no package.json)"
    for lockfile, command in JS_LOCKFILES:
        if files.has(lockfile):
            return command, f"command: {command.split()[0]}, from {lockfile}"
    return "npm install", "command: npm install (package.json without a lockfile)"


def go(files: BaseFiles) -> tuple[str | None, str]:
    """`go mod download` for a module."""
    if files.has("go.mod"):
        return "go mod download", "command: go mod download (go.mod)"
    return None, "command: none (no go.mod)"


def rust(files: BaseFiles) -> tuple[str | None, str]:
    """`cargo fetch` for a crate or workspace."""
    if files.has("Cargo.toml"):
        return "cargo fetch", "command: cargo fetch (Cargo.toml)"
    return None, "command: none (no Cargo.toml)"


def java(files: BaseFiles) -> tuple[str | None, str]:
    """Maven's offline resolution; nothing for Gradle, whose test run resolves its own."""
    if files.has("pom.xml"):
        return "mvn -q dependency:go-offline", "command: mvn dependency:go-offline (pom.xml)"
    if files.has("build.gradle") or files.has("build.gradle.kts"):
        return None, "command: none (gradle resolves dependencies in the grader's run)"
    return None, "command: none (no pom.xml or build.gradle)"


def ruby(files: BaseFiles) -> tuple[str | None, str]:
    """`bundle install` for a Gemfile."""
    if files.has("Gemfile"):
        return "bundle install", "command: bundle install (Gemfile)"
    return None, "command: none (no Gemfile)"


COMMANDS = {"go": go, "java": java, "js": js, "ruby": ruby, "rust": rust}
"""Language name (miner.languages NAME) -> its setup command."""
