"""A small OpenAI-compatible chat-completions server on 127.0.0.1, scripted per test.

It speaks real HTTP, so litellm is exercised end to end (request building, retries, usage
parsing); only the model's answers are scripted.
"""

from __future__ import annotations

import json
import math
import re
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: Size of the vectors ``/v1/embeddings`` returns.
EMBEDDING_DIMENSIONS = 256


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
                if self.path.rstrip("/").endswith("/embeddings"):  # not a chat request
                    self._send_json(owner.embeddings(body))
                    return
                with owner._lock:
                    owner.requests.append(body)
                reply = owner.responder(body)
                if body.get("stream") and reply.status == 200:
                    if reply.delay:
                        time.sleep(reply.delay)
                    self._send_stream(body, reply)
                    return
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

            def _send_json(self, answer: dict[str, Any]) -> None:
                payload = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _send_stream(self, body: dict[str, Any], reply: Reply) -> None:
                """Server-sent events as OpenAI streams them: the content in a few deltas, a
                finish chunk, usage when asked for (``stream_options.include_usage``)."""
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                model = body.get("model", "test-model")

                def event(choices: list[dict[str, Any]], **extra: Any) -> None:
                    chunk = {"id": "chatcmpl-test", "object": "chat.completion.chunk",
                             "created": 0, "model": model, "choices": choices, **extra}
                    self.wfile.write(b"data: " + json.dumps(chunk).encode() + b"\n\n")
                    self.wfile.flush()

                text = reply.content or ""
                step = max(1, len(text) // 3 + 1)
                event([{"index": 0, "delta": {"role": "assistant", "content": ""},
                        "finish_reason": None}])
                for i in range(0, len(text), step):
                    event([{"index": 0, "delta": {"content": text[i:i + step]},
                            "finish_reason": None}])
                event([{"index": 0, "delta": {}, "finish_reason": "stop"}])
                if (body.get("stream_options") or {}).get("include_usage") and reply.usage:
                    event([], usage={"prompt_tokens": reply.prompt_tokens,
                                     "completion_tokens": reply.completion_tokens,
                                     "total_tokens": reply.prompt_tokens
                                     + reply.completion_tokens})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @staticmethod
    def embeddings(body: dict[str, Any]) -> dict[str, Any]:
        """``/v1/embeddings``: a small real embedding (hashed bag of words, L2-normalized), so
        vector stores and retrievers rank documents by shared words, deterministically."""
        texts = body.get("input")
        texts = [texts] if isinstance(texts, str) else list(texts or [])
        data = []
        for i, text in enumerate(texts):
            if not isinstance(text, str):  # token ids: embed their string form
                text = " ".join(map(str, text))
            vector = [0.0] * EMBEDDING_DIMENSIONS
            for word in re.findall(r"\w+", text.lower()):
                vector[zlib.crc32(word.encode()) % EMBEDDING_DIMENSIONS] += 1.0
            norm = math.sqrt(sum(v * v for v in vector)) or 1.0
            data.append({"object": "embedding", "index": i,
                         "embedding": [v / norm for v in vector]})
        return {"object": "list", "data": data, "model": body.get("model", "test-embedding"),
                "usage": {"prompt_tokens": 0, "total_tokens": 0}}

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
