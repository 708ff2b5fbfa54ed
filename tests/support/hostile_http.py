"""HTTP endpoints on 127.0.0.1 that misbehave the way real networks and proxies do.

Raw sockets, not an HTTP server library: the point is to send what no well-behaved server
would (a status line that is not HTTP, 150 headers, a reply trickled a byte at a time, no reply
at all). Used to prove that the Phoenix writers neither die nor hang on any of them.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from typing import Literal

Behaviour = Literal["ok", "bad_status", "many_headers", "silent", "trickle", "not_found"]

_OK = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
_NOT_FOUND_BODY = b'{"detail":"Not Found"}'
_NOT_FOUND = (b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\n"
              b"content-length: %d\r\n\r\n" % len(_NOT_FOUND_BODY)) + _NOT_FOUND_BODY


class HostileServer:
    """Answers its first ``hostile`` requests (all, if ``None``) with ``behaviour``, then OK.

    ``annotations`` counts the span annotations in the requests it answered 200; ``requests``
    lists (method, path, lower-cased headers) of every request it read.
    """

    def __init__(self, behaviour: Behaviour, hostile: int | None = None,
                 trickle_every: float = 0.5) -> None:
        self.behaviour = behaviour
        self.hostile = hostile
        self.trickle_every = trickle_every
        self.annotations = 0
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._conns: list[socket.socket] = []
        self._listener = socket.socket()
        self._listener.bind(("127.0.0.1", 0))
        self._listener.listen(128)
        self._accepter = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def start(self) -> HostileServer:
        self._accepter.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._listener.close()
        with self._lock:
            conns, self._conns = self._conns, []
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.close()
        self._accepter.join(2)

    def __enter__(self) -> HostileServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- serving ---------------------------------------------------------------------------

    def _accept(self) -> None:
        self._listener.settimeout(0.1)
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self._conns.append(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        buffer = b""
        try:
            while not self._stop.is_set():
                request, buffer = self._read_request(conn, buffer)
                if request is None:
                    return
                with self._lock:
                    self.requests.append(request[:3])
                    hostile = self.hostile is None or len(self.requests) <= self.hostile
                behaviour = self.behaviour if hostile else "ok"
                if not self._answer(conn, behaviour, request[3]):
                    return
        except OSError:
            return
        finally:
            conn.close()

    def _read_request(self, conn: socket.socket, buffer: bytes
                      ) -> tuple[tuple[str, str, dict[str, str], bytes] | None, bytes]:
        while b"\r\n\r\n" not in buffer:
            chunk = conn.recv(65536)
            if not chunk:
                return None, b""
            buffer += chunk
        head, _, rest = buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = {k.strip().lower(): v.strip()
                   for k, _, v in (line.partition(":") for line in lines[1:])}
        length = int(headers.get("content-length", "0"))
        while len(rest) < length:
            chunk = conn.recv(65536)
            if not chunk:
                return None, b""
            rest += chunk
        return (method, path, headers, rest[:length]), rest[length:]

    def _count(self, body: bytes) -> None:
        try:
            notes = len(json.loads(body).get("data", []))
        except (ValueError, AttributeError):
            notes = 0
        with self._lock:
            self.annotations += notes

    def _answer(self, conn: socket.socket, behaviour: Behaviour, body: bytes) -> bool:
        """Answer one request; False when the connection is done."""
        if behaviour == "ok":
            self._count(body)
            conn.sendall(_OK)
            return True
        if behaviour == "not_found":
            conn.sendall(_NOT_FOUND)
            return True
        if behaviour == "bad_status":
            conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n\r\n")
            return False
        if behaviour == "many_headers":
            self._count(body)  # an answer like any other, however long
            headers = b"".join(b"x-filler-%d: %d\r\n" % (i, i) for i in range(150))
            conn.sendall(b"HTTP/1.1 200 OK\r\n" + headers
                         + b"content-type: application/json\r\ncontent-length: 2\r\n\r\n{}")
            return True
        if behaviour == "trickle":  # a header that never ends, one byte at a time
            conn.sendall(b"HTTP/1.1 200 OK\r\nx-slow: ")
            while not self._stop.wait(self.trickle_every):
                conn.sendall(b"a")
            return False
        self._stop.wait()  # silent: read the request, never answer
        return False
