"""``mgb vlm record``: a recording proxy in front of a model server, so that a live run's
model replies can be replayed later without a GPU (``vlm-replay:DIR``)."""

from __future__ import annotations

import socket
from pathlib import Path
from typing import Annotated
from urllib.parse import urlsplit

import typer

from transfer_eval.commands.common import GuardedGroup, console, fail, usage

__all__ = ["vlm_app"]

vlm_app = typer.Typer(
    cls=GuardedGroup,
    help="VLM policies: record a live model's replies to replay them later (vlm-replay:DIR).",
    no_args_is_help=True,
    add_completion=False,
)

_ADAPTER_HELP = (
    "ADAPTER[,K=V...] of the policy you will point here, kept with the recording so that "
    "vlm-replay:DIR needs no run directory."
)


@vlm_app.command("record")
def record_command(
    upstream: Annotated[
        str, typer.Option(help="The model server's base URL, e.g. http://gpu:8000/v1.")
    ],
    out: Annotated[Path, typer.Option(help="The recording directory (continued if it exists).")],
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0 picks a free one).")] = 8001,
    adapter: Annotated[str | None, typer.Option(help=_ADAPTER_HELP)] = None,
) -> None:
    """Serve an OpenAI-compatible proxy on 127.0.0.1 that forwards to UPSTREAM and appends
    every request/response pair to OUT; point a live run's vlm: spec at it. Ctrl-C stops."""
    import uvicorn

    from policies.vlm.errors import RecordingError
    from policies.vlm.recording import RecordingInfo, RecordingWriter, recording_proxy

    _check_upstream(upstream)
    if adapter is not None:
        _check_adapter(adapter)
    sock = _listen(port)
    served_at = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    try:
        writer = RecordingWriter(
            out, RecordingInfo(upstream=upstream, served_at=served_at, adapter=adapter)
        )
    except RecordingError as exc:
        sock.close()
        raise fail(str(exc), 2) from None
    before = writer.count
    console.print(f"recording replies of {upstream} into {out}", highlight=False, soft_wrap=True)
    console.print(f"serving {served_at}", highlight=False, soft_wrap=True)
    console.print(
        f"point the policy here, e.g. vlm:{adapter or 'ADAPTER'}@{served_at}#MODEL; Ctrl-C stops.",
        highlight=False,
        soft_wrap=True,
    )
    config = uvicorn.Config(recording_proxy(upstream, writer), log_level="warning",
                            access_log=False, lifespan="on")  # fmt: skip
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # uvicorn raises the Ctrl-C again once it has shut down
        pass
    finally:
        sock.close()
    console.print(
        f"stopped; {writer.count - before} exchange(s) recorded, {writer.count} in {out}; "
        f"replay with vlm-replay:{out}",
        highlight=False,
        soft_wrap=True,
    )


def _check_upstream(upstream: str) -> None:
    parts = urlsplit(upstream)
    try:
        parts.port  # noqa: B018 - parsing the port is the check
    except ValueError:
        parts = parts._replace(scheme="")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise usage(
            f"--upstream {upstream!r}: give the model server's base URL, "
            "http(s)://HOST[:PORT]/v1 (e.g. http://127.0.0.1:8000/v1)",
        )


def _check_adapter(adapter: str) -> None:
    from policies.errors import PolicySpecError
    from policies.registry import parse_spec

    try:
        parse_spec(f"vlm:{adapter}@http://127.0.0.1/v1")
    except PolicySpecError as exc:
        problem = str(exc).splitlines()[0].partition(": ")[2]
        raise fail(f"--adapter {adapter!r}: {problem}", 2) from None


def _listen(port: int) -> socket.socket:
    """A socket listening on 127.0.0.1:``port``, or one line saying why not (exit 2)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind(("127.0.0.1", port))
        sock.listen(64)
    except (OSError, OverflowError) as exc:
        sock.close()
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise fail(
            f"--port {port}: cannot listen on 127.0.0.1:{port} ({reason}); give a free port "
            "(--port 0 picks one)",
            2,
        ) from None
    return sock
