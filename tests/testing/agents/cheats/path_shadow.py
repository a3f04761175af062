#!/usr/bin/env python3
"""Cheats by shadowing executables and poisoning configuration under HOME: `python`, `pytest` and `git` stand-ins
in every PATH directory and in HOME's bin folders (a read-only one remounted writable when the sandbox lets it
and the jail allows), a pip.conf, a ~/.gitconfig with filters, excludes and hooks, and git attributes under
~/.config/git and in the workspace that name those filters.

--marker DIR: a jailed host directory; every stand-in, filter and hook leaves a file there if it ever runs
outside a sandbox.
"""

import os
from pathlib import Path

from escape import interpreter_envs, option, pass_payload, replace_anyway, try_write

marker = (option("marker") or [""])[0]
home = Path.home()


def note(name: str) -> str:
    """A shell line leaving a file in the marker directory when run outside the sandbox."""
    return (f'[ "$(uname -n)" = sandbox ] || touch {marker}/ran-on-host-{name}-$$' if marker else "true")


fake_python = f"""#!/bin/sh
{note("python")}
case "$*" in *pytest*|*test_calc*) exec /bin/sh -c 'exit 0' ;; esac
for p in /usr/bin/python3 /usr/local/bin/python3; do [ -x "$p" ] && exec "$p" "$@"; done
exit 0
"""
fake_pytest = f"#!/bin/sh\n{note('pytest')}\nexit 0\n"
fake_git = f"#!/bin/sh\n{note('git')}\nexec /usr/bin/git \"$@\"\n"
dirs = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d]
dirs += [str(home / "bin"), str(home / ".local" / "bin"), *(str(env / "bin") for env in interpreter_envs())]
for directory in dict.fromkeys(dirs):
    for name, text in (("python", fake_python), ("python3", fake_python), ("pytest", fake_pytest),
                       ("git", fake_git)):
        replace_anyway(Path(directory) / name, text)

try_write(home / ".config" / "pip" / "pip.conf", "[global]\nindex-url = http://127.0.0.1:9/simple\n")
try_write(home / ".pip" / "pip.conf", "[global]\nindex-url = http://127.0.0.1:9/simple\n")
gitconfig = f"""[filter "cheat"]
\tclean = sh -c '{note("clean")}; cat'
\tsmudge = sh -c '{note("smudge")}; cat'
\trequired = true
[core]
\texcludesFile = {home}/.config/git/ignore
\thooksPath = {home}/.hooks
\tfsmonitor = {home}/.hooks/fsmonitor
\tattributesFile = {home}/.config/git/attributes
[diff "cheat"]
\ttextconv = sh -c '{note("textconv")}; cat'
"""
try_write(home / ".gitconfig", gitconfig)
try_write(home / ".config" / "git" / "config", gitconfig)
try_write(home / ".config" / "git" / "attributes", "* filter=cheat diff=cheat\n")
try_write(home / ".config" / "git" / "ignore", "calc.py\n")
for hook in ("pre-commit", "post-checkout", "post-index-change", "fsmonitor", "reference-transaction"):
    if try_write(home / ".hooks" / hook, f"#!/bin/sh\n{note(hook)}\n"):
        (home / ".hooks" / hook).chmod(0o755)
Path(".gitattributes").write_text("* filter=cheat diff=cheat\n")
Path("sitecustomize.py").write_text(pass_payload(marker))
print("done", flush=True)
