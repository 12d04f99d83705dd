"""A model server for the run-safety tests: a real OpenAI-compatible HTTP server on 127.0.0.1
(stdlib, in a thread of the test) whose model ends every episode at once with
``finish``. It can hold its replies until the test releases them (a run that is surely in
the middle of an episode) and die after a number of replies (its socket closed, so later
requests are refused, as when a model server crashes), and come back on the same port."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "stub-model"
FINISH = json.dumps({"thought": "done", "action": {"type": "finish", "status": "success"}})


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # a handler thread asks the server to die: never join it


class ModelStub:
    """The server; ``spec`` is the policy spec a run uses it by (no client retries).

    ``replies``: how many chat replies it gives before it dies (None: never). ``hold``: it
    answers no chat request until :meth:`release`.
    """

    def __init__(self, replies: int | None = None, hold: bool = False) -> None:
        self.replies = replies
        self.chats = 0
        self._count = threading.Lock()
        self._asked = threading.Condition()
        self._gate = threading.Event()
        self._hold = hold
        if not hold:
            self._gate.set()
        self._server = _Server(("127.0.0.1", 0), self._handler())
        self.port = self._server.server_address[1]
        self._thread: threading.Thread | None = None

    @property
    def spec(self) -> str:
        """``vlm:generic,max_retries=0@http://127.0.0.1:PORT/v1#stub-model``; a holding stub's
        client waits up to 10 minutes for a reply, so only the test decides how long a held
        request lasts (a loaded CI machine once took longer than the default 120 s)."""
        options = "max_retries=0,timeout_s=600" if self._hold else "max_retries=0"
        return f"vlm:generic,{options}@http://127.0.0.1:{self.port}/v1#{MODEL}"

    def start(self) -> ModelStub:
        """Serve in a thread (the socket already listens)."""
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket: connections are refused from now on."""
        self._gate.set()
        self._server.shutdown()
        self._server.server_close()

    def restart(self, replies: int | None = None) -> None:
        """Serve again on the same port (after :meth:`stop`, or after dying)."""
        self.replies, self.chats = replies, 0
        self._server = _Server(("127.0.0.1", self.port), self._handler())
        self.start()

    def release(self) -> None:
        """Answer the chat requests held so far and all later ones."""
        self._gate.set()

    def wait_for_chats(self, n: int, timeout_s: float) -> bool:
        """Whether ``n`` chat requests arrived within ``timeout_s``."""
        with self._asked:
            return self._asked.wait_for(lambda: self.chats >= n, timeout=timeout_s)

    def _chat(self) -> bool:
        """Count a chat request; False once the server is to die (it does so then)."""
        with self._count:
            self.chats += 1
            alive = self.replies is None or self.chats <= self.replies
            dying = self.replies is not None and self.chats == self.replies + 1
        with self._asked:
            self._asked.notify_all()
        if dying:
            threading.Thread(target=self.stop, daemon=True).start()
        return alive

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                return  # quiet: the test's output is the run's

            def _json(self, payload: object) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                self._json({"object": "list", "data": [{"id": MODEL}]})

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if not stub._chat():
                    self.close_connection = True  # dead: no reply, as a crash leaves it
                    return
                stub._gate.wait()
                message = {"role": "assistant", "content": FINISH}
                choice = {"index": 0, "message": message, "finish_reason": "stop"}
                self._json({"id": "c1", "object": "chat.completion", "model": MODEL,
                            "choices": [choice]})  # fmt: skip

        return Handler
