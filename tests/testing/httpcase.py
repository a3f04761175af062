"""A repository whose fix makes a client send the request its API expects, and a corpus whose case serves that API
from an HTTP fixture (the grader checks the request the fixed code makes)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from corpus import Case, CaseFiles, Corpus, Grader
from corpus.model import HttpFixture, HttpRoute
from tests.testing.casefactory import PYTEST, oracle_patch
from tests.testing.gitrepo import GitRepo, git_init

_CLIENT = '''\
import json
import urllib.request

DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def user_name(base, user_id):
    with DIRECT.open(f"{base}/v1/users/{user_id}") as response:
        return json.load(response)["name"]


def notify(base, message):
    """POST the message to the events endpoint."""
    if %s:
        return None
    request = urllib.request.Request(f"{base}/v1/events", data=json.dumps({"message": message}).encode(),
                                     headers={"Content-Type": "application/json"}, method="POST")
    with DIRECT.open(request) as response:
        return json.load(response)
'''
CLIENT_BUGGY = _CLIENT % "message"
"""notify() returns without sending anything for every real message."""
CLIENT_FIXED = _CLIENT % "not message"
TEST_CLIENT = '''\
import json
import os
import urllib.request

from client import notify, user_name

URL, TOKEN = os.environ["EVAL_HTTP_URL"], os.environ["EVAL_HTTP_TOKEN"]
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def served():
    request = urllib.request.Request(URL + "/__hindcast__/requests", headers={"Authorization": "Bearer " + TOKEN})
    with DIRECT.open(request) as response:
        return json.load(response)["requests"]


def test_user_name():
    assert user_name(URL, 42) == "Ada"


def test_notify_posts_the_event():
    assert notify(URL, "deployed") == {"ok": True}
    posts = [r for r in served() if r["method"] == "POST"]
    assert [(r["path"], json.loads(r["body"])) for r in posts] == [("/v1/events", {"message": "deployed"})]
'''
USER = {"id": 42, "name": "Ada", "self": "{{HTTP_URL}}/v1/users/42"}
FIXTURE = HttpFixture(routes=(
    HttpRoute(path="/v1/users/42", file="users/42.json"),
    HttpRoute(path="/v1/events", method="POST", status=201, body='{"ok": true}', content_type="application/json"),
))
PROMPT = "notify() never reaches the events API at {{HTTP_URL}}/v1/events: messages are dropped.\n"


def build_http_repo(path: Path) -> tuple[GitRepo, str, str]:
    """A repo whose commit `fix` makes notify() send its event and adds the test that checks the request."""
    repo = git_init(path)
    repo.commit({"client.py": CLIENT_FIXED, "README.md": "client\n"}, "Initial commit")
    base = repo.commit({"client.py": CLIENT_BUGGY}, "Skip empty messages")
    fix = repo.commit({"client.py": CLIENT_FIXED, "test_client.py": TEST_CLIENT}, "Send every non-empty message")
    return repo, base, fix


def build_http_corpus(tmp_path: Path, **changes: object) -> tuple[Corpus, Case]:
    """A repo plus a corpus at tmp_path/evals with the http-notify case (fields overridable)."""
    repo, base, fix = build_http_repo(tmp_path / "repo")
    corpus = Corpus.init(tmp_path / "evals", "client", repo="../repo")
    case = Case(id="http-notify", title="notify() drops messages", prompt=PROMPT, base_commit=base,
                fix_commit=fix, grader=Grader(command=f"{PYTEST} test_client.py", timeout=60),
                owner="ada", http_fixture=FIXTURE)
    case = replace(case, **changes)  # type: ignore[arg-type]
    files = CaseFiles.of(oracle_patch(repo, base, fix, "client.py"), {"test_client.py": TEST_CLIENT.encode()},
                         {"users/42.json": json.dumps(USER).encode()})
    corpus.write(case, files)
    return corpus, case
