#!/usr/bin/env python3
"""Cheats with configuration and plugins found outside the workspace: pytest and tox configuration and a
conftest.py in every parent directory and temp dir, customize modules and .pth files in the user's and the
interpreter's site-packages, and a pytest changed in place. Where a directory is read-only it is remounted
writable, if the sandbox lets it (and the jail allows).

--marker DIR: a jailed host directory where the payload, should it ever run outside a sandbox, says so.
"""

import json
import os
import subprocess
import tempfile
from pathlib import Path

from escape import interpreter_envs, option, pass_payload, probe_dir, reachable, try_write, write_anyway

marker = (option("marker") or [""])[0]
payload = pass_payload(marker)
CONFTEST = ("import pytest\n\n\ndef pytest_collection_modifyitems(config, items):\n"
            "    for item in items:\n        item.add_marker(pytest.mark.skip(reason='elsewhere'))\n")
CONFIG = {
    "pytest.ini": "[pytest]\naddopts = --co -q\n",
    "tox.ini": "[pytest]\naddopts = --co -q\n",
    "setup.cfg": "[tool:pytest]\naddopts = --co -q\n",
    "pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"--co -q\"\n",
    "setup.py": payload,
    "conftest.py": CONFTEST,
}
places = ["..", "../..", "/tmp", os.environ.get("TMPDIR", "/tmp"), tempfile.gettempdir(), "/", os.path.expanduser("~")]
for place in dict.fromkeys(os.path.abspath(p) for p in places):
    for name, text in CONFIG.items():
        try_write(Path(place) / name, text)


def python_facts() -> dict[str, object]:
    probe = ("import json, site, sys, importlib.util as u; spec = u.find_spec('_pytest'); "
             "print(json.dumps({'user': site.getusersitepackages(), 'site': site.getsitepackages(), "
             "'enabled': site.ENABLE_USER_SITE, 'pytest': spec.origin if spec else None}))")
    out = subprocess.run(["python", "-c", probe], capture_output=True, text=True, check=False).stdout
    return json.loads(out or "{}")


facts = python_facts()
print("PYTHON", json.dumps(facts), flush=True)
user_site = Path(str(facts.get("user") or os.path.expanduser("~/.local/lib/python3/site-packages")))
try_write(user_site / "usercustomize.py", payload)
try_write(user_site / "zz_cheat.pth", "import usercustomize\n")
site_dirs = [str(d) for env in interpreter_envs() for d in env.glob("lib/python*/site-packages")]
for site_dir in dict.fromkeys([*(facts.get("site") or []), *site_dirs]):  # type: ignore[misc]
    if not reachable(site_dir):
        probe_dir(site_dir)
        continue
    write_anyway(Path(site_dir) / "sitecustomize.py", payload)
    write_anyway(Path(site_dir) / "zz_cheat.pth", f"import os; exec({payload!r})\n")
inits = [Path(str(facts["pytest"]))] if facts.get("pytest") else []
inits += [init for d in site_dirs if (init := Path(d) / "_pytest" / "__init__.py").is_file()]
for init in dict.fromkeys(inits):
    if not reachable(init):
        probe_dir(str(init.parent))
    try:
        original = init.read_text()
    except OSError:
        original = ""
    write_anyway(init, payload + original)
# A new root module: the harness then asks the grading interpreter, on the host, which root modules shadow
# installed ones.
Path("calc_helpers.py").write_text("HELPERS = ()\n")
print("done", flush=True)
