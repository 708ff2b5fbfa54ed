"""The demo's "model": an OpenAI-compatible chat-completions server with scripted answers.

``vcg-otel demo`` runs a real RAG pipeline whose generator calls a model over HTTP. So that
the demo runs offline, deterministically and without model weights or API keys, the model is
this server: standard library only, on 127.0.0.1, on a free port, speaking the
``POST /v1/chat/completions`` subset that OpenAI clients (Haystack's ``OpenAIChatGenerator``,
litellm, the ``openai`` package) send and read. It answers each question it was scripted for
with that answer, whatever else the prompt holds, and anything else with ``fallback``.

Not a test double of OpenAI (tests/support/fake_openai.py scripts errors, delays, streaming and
embeddings per test); this is a fixed answer book for a demo.
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["AnswerServer", "question_of"]


def _text(content: Any) -> str:
    """A message's text: a string, or OpenAI's list of content parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def question_of(body: Mapping[str, Any], questions: list[str]) -> str | None:
    """The scripted question a chat request asks: the longest one found in its last user
    message (a prompt holds the retrieved sources around the question), else ``None``."""
    messages = body.get("messages")
    users = [m for m in messages if isinstance(m, dict) and m.get("role") == "user"] if (
        isinstance(messages, list)) else []
    text = _text(users[-1].get("content")) if users else ""
    found = [q for q in questions if q in text]
    return max(found, key=len) if found else None


class AnswerServer:
    """Serve ``answers`` (question -> the model's answer text) as a chat-completions model.

    Args:
        answers: the answer book; a request is matched by :func:`question_of`.
        fallback: the answer to any other request.
        model: the model name reported back (requests may name any model).

    ``start()`` binds a free port on 127.0.0.1; ``base_url`` (``http://127.0.0.1:<port>/v1``)
    is what an OpenAI client takes as its base URL; ``stop()`` closes it. Also a context
    manager. Token usage is not reported: there is no tokenizer to count with.
    """

    def __init__(self, answers: Mapping[str, str], fallback: str,
                 model: str = "vcg-otel-demo-answers") -> None:
        self.answers = dict(answers)
        self.fallback = fallback
        self.model = model
        self._ids = itertools.count(1)  # next() on a count is atomic: handler threads
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # the demo prints its own output
                pass

            def do_POST(self) -> None:
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}",
                                               "type": "invalid_request_error"}})
                    return
                length = int(self.headers.get("content-length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except ValueError:
                    body = None
                if not isinstance(body, dict):
                    self._send(400, {"error": {"message": "the body is not a JSON object",
                                               "type": "invalid_request_error"}})
                    return
                self._send(200, owner.completion(body))

            def _send(self, status: int, answer: dict[str, Any]) -> None:
                payload = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        name="vcg-otel-answer-server", daemon=True)

    def completion(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """The ``chat.completion`` object answering one request body."""
        question = question_of(body, list(self.answers))
        content = self.answers[question] if question is not None else self.fallback
        return {
            "id": f"chatcmpl-demo-{next(self._ids)}", "object": "chat.completion", "created": 0,
            "model": self.model,
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
        }

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> AnswerServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():  # shutdown() waits for serve_forever, so only if it runs
            self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> AnswerServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
