"""Our adb client connections (device/adb.py): no Nagle delay, no sleep on close, and the
server's version asked once per client — against a small adb server speaking the
smart-socket protocol on loopback, so each request the client makes can be counted."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest

from device.adb import AdbTarget


class VersionServer:
    """Answers ``host:version`` with protocol version 41 on a loopback port, and counts."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.requests: list[str] = []
        self.closed_cleanly: list[bool] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return  # the listener was closed: the test is over
            with conn:
                head = conn.recv(4)
                if not head:
                    continue  # AdbTarget.client() checks that something listens: no request
                length = int(head, 16)
                request = conn.recv(length).decode()
                self.requests.append(request)
                if request == "host:version":
                    conn.sendall(b"OKAY0004" + b"%04x" % 41)
                self.closed_cleanly.append(conn.recv(1) == b"")  # our FIN, not a reset

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the blocked accept()
        self.listener.close()
        self._thread.join(5)
        assert not self._thread.is_alive()


@pytest.fixture
def server() -> Iterator[VersionServer]:
    running = VersionServer()
    yield running
    running.close()


def test_connections_turn_nagle_off(server: VersionServer) -> None:
    connection = AdbTarget(port=server.port).client().make_connection()
    try:
        assert connection.conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
    finally:
        connection.close()
    assert connection.closed


def test_the_server_version_is_asked_once_per_client(server: VersionServer) -> None:
    client = AdbTarget(port=server.port).client()
    assert [client.server_version() for _ in range(3)] == [41, 41, 41]
    assert server.requests == ["host:version"]
    another = AdbTarget(port=server.port).client()
    assert another.server_version() == 41
    assert server.requests == ["host:version", "host:version"]


def test_a_closed_connection_ends_with_a_fin(server: VersionServer) -> None:
    AdbTarget(port=server.port).client().server_version()
    server.close()  # joins the serving thread: it has seen the end of the connection
    assert server.closed_cleanly == [True]
