"""The simulator's HTTP server: the phone page, its runtime's event endpoint, the env API.

Bound to 127.0.0.1 unless configured otherwise. Pages served here post the gestures they
resolved to ``/api/instances/{id}/page-events`` and get the new screen back; a person can
open ``/play/{id}`` in a browser and use an instance with the mouse.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Awaitable, Callable
from importlib import resources
from string import Template
from typing import TYPE_CHECKING

from fastapi import FastAPI, HTTPException, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict

from sim.instance import ScreenPayload
from sim.phone import PageEvent

if TYPE_CHECKING:
    from sim.simulator import Simulator

__all__ = ["PageEventRequest", "build_app", "is_loopback", "require_token"]


class PageEventRequest(BaseModel):
    """A page's report: the version it showed and what the gesture resolved to."""

    model_config = ConfigDict(extra="forbid")

    version: int
    event: PageEvent


def _static(name: str) -> str:
    return resources.files("sim").joinpath("static", name).read_text("utf-8")


def build_app(sim: Simulator) -> FastAPI:
    """The FastAPI application of ``sim``."""
    app = FastAPI(title="mobilegym-bridge simulator", docs_url="/docs", redoc_url=None)
    require_token(app, sim.config.token)
    static_dir = resources.files("sim").joinpath("static")
    app.mount("/static", StaticFiles(directory=str(static_dir)), name="static")

    @app.get("/", response_class=HTMLResponse)
    async def index() -> str:
        return _static("index.html")

    @app.get("/play/{instance_id}", response_class=HTMLResponse)
    async def play(instance_id: str) -> str:
        _instance(sim, instance_id)
        return Template(_static("play.html")).substitute(instance=instance_id)

    @app.get("/api/instances/{instance_id}/screen")
    async def screen(instance_id: str) -> ScreenPayload:
        return _instance(sim, instance_id).screen()

    @app.post("/api/instances/{instance_id}/page-events")
    async def page_event(instance_id: str, request: PageEventRequest) -> ScreenPayload:
        instance = _instance(sim, instance_id)
        if request.version != instance.version:
            raise HTTPException(
                409,
                f"the page showed version {request.version} of {instance_id} but the "
                f"instance is at {instance.version}; reload the screen",
            )
        try:
            sim.phone.apply(instance.state, request.event)
        except Exception as exc:  # a bug in an app must not take the server down
            raise HTTPException(
                500, f"the simulator could not apply {request.event}: {exc}"
            ) from exc
        instance.changed()
        return instance.screen()

    if sim.config.serve_env_api:
        from sim.env_api import env_router

        app.include_router(env_router(sim))
    return app


_LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine's loopback; a server
    bound anywhere else needs a token."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def require_token(app: FastAPI, token: str | None) -> None:
    """Refuse non-loopback clients without ``token`` (the pages of the pool are loopback)."""

    @app.middleware("http")
    async def check(request: Request, call_next: Callable[[Request], Awaitable[Response]]):
        client = request.client.host if request.client else ""
        if client in _LOOPBACK:
            return await call_next(request)
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        given = given or request.query_params.get("token", "")
        if token is None or not secrets.compare_digest(given, token):
            return JSONResponse({"detail": "a token is required from this address"}, 401)
        return await call_next(request)


def _instance(sim: Simulator, instance_id: str):
    try:
        return sim.instance(instance_id)
    except KeyError as exc:
        raise HTTPException(404, str(exc)) from exc
