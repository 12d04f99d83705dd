"""The private adb server on a port someone else took: a port we picked is picked again, a
port the user named is an error that says so. Real adb binary, real sockets."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from device.virtual import adb_server
from device.virtual.adb_server import PrivateAdbServer, free_port
from device.virtual.errors import AdbPortTaken


@pytest.fixture
def held_port() -> Iterator[int]:
    """A loopback port another process holds: bound (not listening, so nothing answers and
    a connection is refused at once), which no other socket may bind."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        yield sock.getsockname()[1]


def test_a_port_we_picked_and_lost_is_picked_again(
    held_port: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = PrivateAdbServer()
    server.port = held_port  # as if free_port's answer was taken before adb could listen
    picked: list[int] = []

    def pick(host: str = "127.0.0.1") -> int:
        picked.append(free_port(host))
        return picked[-1]

    monkeypatch.setattr(adb_server, "free_port", pick)
    server.start(timeout=30)
    try:
        assert server.port == picked[-1] != held_port
        assert server.client().server_version() > 0
    finally:
        server.kill()


def test_a_port_the_user_named_and_is_taken_says_so(held_port: int) -> None:
    server = PrivateAdbServer(port=held_port)
    with pytest.raises(AdbPortTaken, match=f"adb -P {held_port} .*Address already in use"):
        server.start(timeout=30)
    assert not server.owned
