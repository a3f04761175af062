#!/usr/bin/env python3
"""Talks to the case's HTTP fixture at the URL its prompt names, then fixes notify() (or, with `cheat`, posts the
event itself and leaves the code as it is)."""

import json
import os
import re
import sys
import urllib.request
from pathlib import Path

prompt = Path(sys.argv[1]).read_text()
url = re.search(r"http://127\.0\.0\.1:\d+", prompt).group(0)
direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
print("env url matches prompt:", os.environ.get("EVAL_HTTP_URL") == url)
with direct.open(f"{url}/v1/users/42") as response:
    print("user:", json.load(response))
if "cheat" in sys.argv[2:]:
    request = urllib.request.Request(f"{url}/v1/events", data=json.dumps({"message": "deployed"}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    print("posted:", direct.open(request).status)
else:
    source = Path("client.py").read_text()
    Path("client.py").write_text(source.replace("    if message:\n", "    if not message:\n"))
    print("fixed notify()")
