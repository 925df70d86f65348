"""A tiny scripted HTTP server for the bot kit's unit tests: each route answers from
a queue of canned replies (JSON or a Server-Sent Events stream), and every request
is recorded, so a test can say exactly what the kit sent and in which order."""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Stream:
    """A text/event-stream answer: ``text`` sent at once, then silence for ``hang`` seconds, then EOF."""

    text: str
    hang: float = 0.0


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any


class FakeServer:
    def __init__(self) -> None:
        self.replies: dict[tuple[str, str], deque[Reply | Stream]] = defaultdict(deque)
        self.seen: list[Seen] = []
        self.stopping = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # a stream ends when the connection closes

            def do_GET(self) -> None:
                self.answer("GET")

            def do_POST(self) -> None:
                self.answer("POST")

            def answer(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                path = self.path.removeprefix("/api/v1")
                owner.seen.append(Seen(method, path, dict(self.headers), json.loads(raw) if raw else None))
                queue = owner.replies[(method, path)]
                reply = (
                    queue.popleft() if len(queue) > 1 else (queue[0] if queue else Reply(404, {"code": "not_found"}))
                )
                if isinstance(reply, Stream):
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    self.wfile.write(reply.text.encode())
                    self.wfile.flush()
                    owner.stopping.wait(reply.hang)
                    return
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                for name, value in {"Content-Type": "application/json", **reply.headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def script(self, method: str, path: str, *replies: Reply | Stream) -> None:
        """Queue replies for ``method path``; the last one repeats."""
        self.replies[(method, path)].extend(replies)

    def requests(self, method: str, path: str) -> list[Seen]:
        return [s for s in self.seen if s.method == method and s.path == path]

    def stop(self) -> None:
        self.stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()
