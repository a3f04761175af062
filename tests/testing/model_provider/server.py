"""The scripted provider: a ThreadingHTTPServer on 127.0.0.1 that routes each API's requests, plays the script
step the request's history asks for, and logs every request to a JSONL file."""

from __future__ import annotations

import gzip
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

from tests.testing.model_provider import anthropic_wire, gemini_wire, openai_wire
from tests.testing.model_provider.dialects import Dialect, NotOffered, Reply
from tests.testing.model_provider.script import Finish, Script, Usage
from tests.testing.model_provider.wire import Answer, Conversation, json_answer

SECRET_HEADERS = frozenset({"authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie",
                            "proxy-authorization", "chatgpt-account-id"})
"""Headers whose values the log replaces with "<redacted>"."""
RESULT_LOG_CHARS = 4000
"""How much of a tool result a log line keeps."""

Render = Callable[[Reply, str, Usage, Conversation, int], Answer]
_GEMINI = re.compile(r"/models/(?P<model>[^/:]+):(?P<method>generateContent|streamGenerateContent|countTokens)$")


class ScriptError(Exception):
    """A request the script cannot answer: the server answers HTTP 500 with this message and logs it."""


class ScriptedProvider:
    """A model provider that plays one script in one CLI's dialect; use as a context manager.

    Every request, side requests and unknown paths included, is one line of the JSONL log at log_path: method,
    path, query, the API it spoke, whether it was a main, side, meta or unknown request, the model, the headers
    (names lowercased, secrets redacted), the body, and for a main request the step played, its reply and usage, and the result of
    the previous step's tool call. Model lists name model alone."""

    def __init__(self, script: Script, dialect: Dialect, workspace: Path, log_path: Path,
                 model: str = "hindcast-scripted") -> None:
        self.script = script
        self.model = model
        self.dialect = dialect
        self.workspace = workspace
        self.log_path = log_path
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._serial = 0
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="scripted-provider", daemon=True)

    @property
    def url(self) -> str:
        """The server's root URL, http://127.0.0.1:PORT (no trailing slash)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_path.write_text("")
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=10)

    def requests(self) -> list[dict[str, Any]]:
        """Every logged request so far, in the order they arrived."""
        return [json.loads(line) for line in self.log_path.read_text().splitlines() if line]

    def main_requests(self) -> list[dict[str, Any]]:
        """The logged requests that played a step of the script."""
        return [entry for entry in self.requests() if entry["kind"] == "main"]

    # --- answering -------------------------------------------------------------------------------------------

    def answer(self, method: str, raw_path: str, headers: dict[str, str], body: Any) -> Answer:
        """The answer to one request, logged."""
        split = urlsplit(raw_path)
        path, query = split.path.rstrip("/"), parse_qs(split.query)
        entry: dict[str, Any] = {"time": time.time(), "method": method, "path": path,
                                 "query": {k: ("<redacted>" if k == "key" else v) for k, v in query.items()},
                                 "headers": {k.lower(): ("<redacted>" if k.lower() in SECRET_HEADERS else v)
                                             for k, v in headers.items()},
                                 "body": body}
        try:
            answer = self._route(method, path, query, body if isinstance(body, dict) else {}, entry)
        except (ScriptError, NotOffered) as error:
            message = f"scripted provider: {error}"
            entry.update(kind=entry.get("kind", "main"), error=message)
            with self._lock:
                self.errors.append(message)
            answer = json_answer({"error": {"message": message, "type": "scripted_provider_error",
                                            "code": "scripted_provider_error"}}, status=500)
        entry.update(status=answer.status, **answer.logged)
        self._log(entry)
        return answer

    def _route(self, method: str, path: str, query: dict[str, list[str]], body: dict[str, Any],
               entry: dict[str, Any]) -> Answer:
        model = self.model
        gemini = _GEMINI.search(path)
        if method == "GET" and path.endswith("/models"):
            entry.update(api="models", kind="meta")
            return gemini_wire.models_list(model) if "v1beta" in path else openai_wire.models_list(model)
        if method == "POST" and path.endswith("/messages/count_tokens"):
            entry.update(api="anthropic", kind="meta", model=body.get("model"))
            return anthropic_wire.count_tokens(body)
        if method == "POST" and gemini and gemini["method"] == "countTokens":
            entry.update(api="gemini", kind="meta", model=gemini["model"])
            return gemini_wire.count_tokens(body)
        if method == "POST" and path.endswith("/responses"):
            return self._play("responses", openai_wire.responses_conversation(body), openai_wire.responses_answer,
                              "call_hindcast_", entry)
        if method == "POST" and path.endswith("/chat/completions"):
            return self._play("chat", openai_wire.chat_conversation(body), openai_wire.chat_answer,
                              "call_hindcast_", entry)
        if method == "POST" and path.endswith("/messages"):
            return self._play("anthropic", anthropic_wire.messages_conversation(body),
                              anthropic_wire.messages_answer, "toolu_hindcast_", entry)
        if method == "POST" and gemini:
            stream = gemini["method"] == "streamGenerateContent" and query.get("alt") == ["sse"]
            conversation = gemini_wire.generate_conversation(body, gemini["model"], stream)
            return self._play("gemini", conversation, gemini_wire.generate_answer, "hindcast_", entry)
        entry.update(api="unknown", kind="unknown")
        return json_answer({"error": {"message": f"scripted provider: no such endpoint {method} {path}"}},
                           status=404)

    def _play(self, api: str, conversation: Conversation, render: Render, id_prefix: str,
              entry: dict[str, Any]) -> Answer:
        serial = self._next_serial()
        entry.update(api=api, model=conversation.model, offered=sorted(conversation.offered))
        if self.dialect.side(conversation):
            entry.update(kind="side", usage=asdict(self.script.side_usage))
            return render(Reply(text=self.script.side_text), f"{id_prefix}side_{serial}", self.script.side_usage,
                          conversation, serial)
        entry["kind"] = "main"
        index = self.dialect.turns(conversation, self.script)
        entry["step"] = index
        if index >= len(self.script.steps):
            raise ScriptError(f"the script has {len(self.script.steps)} steps, the request asks for step "
                              f"{index + 1} (its history holds {index} assistant turns)")
        if index > 0:
            entry["tool_result"] = self._previous_result(index, conversation)[:RESULT_LOG_CHARS]
        step = self.script.steps[index]
        reply = self.dialect.reply(step, set(conversation.offered), self.workspace)
        usage = self.script.usage[index]
        entry.update(usage=asdict(usage), reply={"text": reply.text, "tool": reply.call and reply.call.name,
                                                 "arguments": reply.call and reply.call.arguments})
        return render(reply, f"{id_prefix}{index}", usage, conversation, serial)

    def _previous_result(self, index: int, conversation: Conversation) -> str:
        """The result of the previous step's tool call, checked against what that step expects."""
        previous = self.script.steps[index - 1]
        if isinstance(previous, Finish) or (previous.kind == "edit" and self.dialect.text_edits):
            return ""
        if not conversation.calls:
            raise ScriptError(f"step {index + 1}: the history holds no tool call for step {index}")
        call_id, name = conversation.calls[-1]
        result = conversation.results.get(call_id, conversation.results.get(name))
        if result is None:
            raise ScriptError(f"step {index + 1}: the history holds no result of step {index}'s call {call_id} "
                              f"({name}); results: {sorted(conversation.results)}")
        if previous.expect and previous.expect not in result:
            raise ScriptError(f"step {index + 1}: step {index}'s {name} result lacks {previous.expect!r}: "
                              f"{result[:1000]!r}")
        return result

    def _next_serial(self) -> int:
        with self._lock:
            self._serial += 1
            return self._serial

    def _log(self, entry: dict[str, Any]) -> None:
        with self._lock, self.log_path.open("a") as log:
            log.write(json.dumps(entry, default=str) + "\n")


def _handler(provider: ScriptedProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._serve(None)

        def do_POST(self) -> None:
            self._serve(self._body())

        def log_message(self, format: str, *args: object) -> None:
            """The JSONL log records every request; nothing goes to stderr."""

        def _body(self) -> Any:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                raw = b""
                while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
                    raw += self.rfile.read(size)
                    self.rfile.readline()
                self.rfile.readline()
            else:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            if self.headers.get("Content-Encoding", "").lower() == "gzip":
                raw = gzip.decompress(raw)
            try:
                return json.loads(raw) if raw else None
            except ValueError:
                return raw.decode("utf-8", "replace")

        def _serve(self, body: Any) -> None:
            answer = provider.answer(self.command, self.path, dict(self.headers.items()), body)
            self.send_response(answer.status)
            self.send_header("Content-Type", answer.content_type)
            if answer.content_type == "text/event-stream":
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for chunk in answer.chunks:
                    self.wfile.write(f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n")
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            else:
                payload = b"".join(answer.chunks)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            self.wfile.flush()

    return Handler
