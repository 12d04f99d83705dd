"""adbd's ``reverse:`` services: the ``adb reverse`` rules of one host connection.

On a phone, ``reverse:…`` runs AOSP's ``handle_forward_request`` (adb.cpp) on the device,
where each rule is a listener bound on the phone (``<remote>``) whose connections go back
to the host (``<local>``). The adb server has already answered ``OKAY`` to its client when
the stream opened, so the device writes only the status that follows:

* ``forward[:norebind]:<remote>;<local>`` → ``OKAY``; an existing ``<remote>`` with
  ``norebind`` → ``FAIL`` + hex4 + ``cannot rebind existing socket``; a malformed request
  → ``bad forward: <spec>``; an unknown socket kind → ``cannot bind listener: unknown
  socket specification:<remote>``.
* ``killforward:<remote>`` → ``OKAY``, or ``FAIL`` ``listener '<remote>' not found``.
* ``killforward-all`` → ``OKAY``.
* ``list-forward`` → hex4 length + lines ``<transport serial> <remote> <local>\\n``; the
  serial of a host connected over TCP is ``host-<fd>`` (``daemon/transport_socket_server.cpp``).

Rules live as long as the host connection (adbd drops a transport's listeners with it).
Accepting connections on ``<remote>`` is not emulated: the phone has no sockets of its own.
"""

from __future__ import annotations

__all__ = ["ReverseRules"]

_LISTEN_KINDS = ("tcp:", "localabstract:", "localreserved:", "localfilesystem:", "vsock:")


def _okay() -> bytes:
    return b"OKAY"


def _fail(message: str) -> bytes:
    data = message.encode()
    return b"FAIL" + f"{len(data):04x}".encode() + data


def _block(text: str) -> bytes:
    data = text.encode()
    return f"{len(data):04x}".encode() + data


class ReverseRules:
    """The reverse rules of one host connection, answering ``reverse:`` requests.

    Args:
        transport_serial: how adbd names this connection in ``list-forward`` (``host-19``).
    """

    def __init__(self, transport_serial: str) -> None:
        self.transport_serial = transport_serial
        self.rules: dict[str, str] = {}
        """Phone-side spec → host-side spec, in the order they were added."""

    def answer(self, request: str) -> bytes:
        """The bytes adbd writes for ``reverse:<request>`` (before it closes the stream)."""
        if request == "list-forward":
            lines = "".join(
                f"{self.transport_serial} {remote} {local}\n"
                for remote, local in self.rules.items()
            )
            return _block(lines)
        if request == "killforward-all":
            self.rules.clear()
            return _okay()
        if request.startswith("killforward:"):
            return self._kill(request.removeprefix("killforward:"))
        if request.startswith("forward:"):
            return self._forward(request.removeprefix("forward:"))
        return _fail(f"unknown reverse request: {request}")

    def _kill(self, remote: str) -> bytes:
        if not remote or ";" in remote:
            return _fail(f"bad killforward: {remote}")
        if self.rules.pop(remote, None) is None:
            return _fail(f"listener '{remote}' not found")
        return _okay()

    def _forward(self, spec: str) -> bytes:
        norebind = spec.startswith("norebind:")
        pieces = spec.removeprefix("norebind:").split(";")
        if len(pieces) != 2 or not all(pieces) or pieces[1].startswith("*"):
            return _fail(f"bad forward: {spec.removeprefix('norebind:')}")
        remote, local = pieces
        if not remote.startswith(_LISTEN_KINDS):
            return _fail(f"cannot bind listener: unknown socket specification:{remote}")
        if norebind and remote in self.rules:
            return _fail("cannot rebind existing socket")
        self.rules[remote] = local
        return _okay()
