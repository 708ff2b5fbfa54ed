"""A small OpenAI-compatible chat-completions server on 127.0.0.1, scripted per test.

It speaks real HTTP, so litellm is exercised end to end (request building, retries, usage
parsing); only the model's answers are scripted.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer: content and usage, or an HTTP error, after an optional delay."""

    content: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    usage: bool = True


class FakeOpenAI:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.responder: Callable[[dict[str, Any]], Reply] = lambda body: Reply("{}")
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                with owner._lock:
                    owner.requests.append(body)
                reply = owner.responder(body)
                if reply.delay:
                    time.sleep(reply.delay)
                if reply.status != 200:
                    payload = json.dumps({"error": {"message": "scripted failure",
                                                    "type": "server_error"}}).encode()
                else:
                    answer: dict[str, Any] = {
                        "id": "chatcmpl-test", "object": "chat.completion", "created": 0,
                        "model": body.get("model", "test-model"),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": reply.content}}],
                    }
                    if reply.usage:
                        answer["usage"] = {
                            "prompt_tokens": reply.prompt_tokens,
                            "completion_tokens": reply.completion_tokens,
                            "total_tokens": reply.prompt_tokens + reply.completion_tokens,
                        }
                    payload = json.dumps(answer).encode()
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> FakeOpenAI:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
