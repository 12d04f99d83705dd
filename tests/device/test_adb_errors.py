"""Closing the sockets a failed adbutils call left behind, including a connection object
whose constructor itself failed (nothing to close; adbutils' own ``close`` would raise)."""

from __future__ import annotations

import socket

import adbutils

from device.adb import close_dangling


def _failing_call(connection: adbutils.AdbConnection) -> None:
    raise adbutils.AdbError("device 'x' not found")


def test_a_half_built_connection_in_a_failed_frame_is_skipped() -> None:
    half_built = adbutils.AdbConnection.__new__(adbutils.AdbConnection)  # __init__ failed
    try:
        _failing_call(half_built)
    except adbutils.AdbError as exc:
        close_dangling(exc)  # must not raise AttributeError


def test_an_open_connection_in_a_failed_frame_is_closed() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    host, port = server.getsockname()
    try:
        connection = adbutils.AdbConnection(host, port)
        try:
            _failing_call(connection)
        except adbutils.AdbError as exc:
            close_dangling(exc)
        assert connection.closed
    finally:
        server.close()
