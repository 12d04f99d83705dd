"""The simulator's HTTP server: a landing page, the phone page, its runtime's event
endpoint, the player, the env API and its docs.

Bound to 127.0.0.1 unless configured otherwise. Pages served here post the gestures they
resolved to ``/api/instances/{id}/page-events`` and get the new screen back; a person can
open ``/`` (what is served, the instances to play) or ``/play/{id}`` in a browser and use
an instance with the mouse, with a panel that poses a task on it and shows the task's checks
and live verdict (``/phone`` is the bare page the page pool's Chromium tabs load):

    GET  /api/tasks                      the task registry, for the picker  -> [TaskSummary]
    POST /api/instances/{id}/task        pose a task (as an env reset does) -> PlayStatus
    GET  /api/instances/{id}/task        the task and its verdict now       -> PlayStatus

``/docs`` (Swagger UI) and ``/redoc`` load their scripts from this server (the assets the
``fastapi-offline`` package ships), so they work on a machine without internet.
"""

from __future__ import annotations

import ipaddress
import secrets
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Literal

from fastapi import APIRouter, FastAPI, HTTPException, Request, Response
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict
from starlette.datastructures import MutableHeaders

from bridge.records import TaskInstance
from bridge.schema import Foreground, Verdict
from sim.api_errors import error_response, error_responses, install_error_handlers
from sim.api_guard import guard_requests, install_guards
from sim.env_api import ResetRequest, guarded, health_router, judged, posed, requested_task
from sim.env_api_models import RequestBody
from sim.env_table import EnvTable
from sim.instance import Instance, ScreenPayload
from sim.observe import foreground
from sim.pages import PHONE_PAGE
from sim.phone import PageEvent
from sim.render import page_template

if TYPE_CHECKING:
    from sim.env import SimEnv
    from sim.simulator import Simulator

__all__ = [
    "DOCS_ASSETS",
    "TOKEN_COOKIE",
    "PageEventRequest",
    "PlayStatus",
    "TaskSummary",
    "build_app",
    "is_loopback",
    "play_router",
    "require_token",
]

DOCS_ASSETS = "/static-docs"
"""Where Swagger UI's and ReDoc's scripts and styles are served from."""

TOKEN_COOKIE = "mgb_token"
"""Cookie set when a page was opened with a valid ``?token=``, so its own requests (scripts,
styles, the runtime's posts) pass the token check too."""


class PageEventRequest(RequestBody):
    """A page's report: the version it showed and what the gesture resolved to."""

    version: int
    event: PageEvent


class TaskSummary(BaseModel):
    """A task template as the player's picker lists it (instruction: seed 0)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    apps: list[str]
    level: str
    kind: str
    max_steps: int
    instruction: str


class PlayStatus(BaseModel):
    """What the player's panel shows: the task posed on an instance, the judge's verdict on
    its state now (None without a task), and what is in front."""

    model_config = ConfigDict(extra="forbid")

    instance: str
    version: int
    task: TaskInstance | None
    verdict: Verdict | None
    foreground: Foreground
    route: str | None


def _static(name: str) -> str:
    return resources.files("sim").joinpath("static").joinpath(name).read_text("utf-8")


def build_app(sim: Simulator) -> FastAPI:
    """The FastAPI application of ``sim``."""
    app = FastAPI(title="mobilegym-bridge simulator", docs_url=None, redoc_url=None)
    install_error_handlers(app)
    table = EnvTable(sim)
    routers = [play_router(sim), health_router(sim, table)]
    if sim.config.serve_env_api:
        from sim.env_api import env_router

        routers.append(env_router(sim, table))
    install_guards(app, sim, {sim.config.host, *sim.config.allowed_hosts}, routers)
    require_token(app, sim.config.token)
    static_dir = resources.files("sim").joinpath("static")
    app.mount("/static", StaticFiles(directory=str(static_dir)), name="static")
    _docs_routes(app)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def home() -> str:
        instances = [(i.id, foreground(i).package or "") for i in sim.instances.values()]
        apps = [app.label("en") for app in sim.phone.apps.values()]
        return page_template("home_page.html").render(
            instances=instances, tasks=len(sim.tasks), apps=apps
        )

    @app.get(PHONE_PAGE, response_class=HTMLResponse, include_in_schema=False)
    async def phone_page() -> str:
        return _static("index.html")

    @app.get("/play/{instance_id}", response_class=HTMLResponse, include_in_schema=False)
    async def play(instance_id: str) -> str:
        _instance(sim, instance_id)
        return page_template("play_page.html").render(instance=instance_id)

    @app.get(
        "/api/instances/{instance_id}/screen",
        tags=["page runtime"],
        responses=error_responses(401, 403, 404, 421),
    )
    async def screen(instance_id: str) -> ScreenPayload:
        return _instance(sim, instance_id).screen()

    @app.post(
        "/api/instances/{instance_id}/page-events",
        tags=["page runtime"],
        responses=error_responses(400, 401, 403, 404, 409, 415, 421, 422),
    )
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
        except Exception as exc:  # an event the screen shown cannot take: never a 5xx
            raise HTTPException(  # the event is well formed: it conflicts with the screen
                409, f"event: the simulator could not apply {request.event}: {exc}"
            ) from exc
        instance.changed()
        return instance.screen()

    for router in routers:
        app.include_router(router)
    return app


def play_router(sim: Simulator) -> APIRouter:
    """The player's endpoints: list tasks, pose one on an instance, judge it.

    Posing is :meth:`SimEnv.reset <sim.env.SimEnv.reset>` and judging
    :meth:`SimEnv.verdict <sim.env.SimEnv.verdict>` on an env over the instance, with the
    env API's request model and error mapping, so a task played by hand is posed and
    judged exactly as one played by a policy. Query tasks are answered in the AnswerSheet
    app (``answer_mode="sheet"``): a person has no ``answer`` action.
    """
    router = APIRouter(
        prefix="/api", tags=["player"], responses=error_responses(401, 403, 404, 421, 422)
    )
    players = _Players(sim)

    @router.get("/tasks")
    async def tasks(lang: Literal["en", "zh"] = "en") -> list[TaskSummary]:
        return [
            TaskSummary(
                id=template.id,
                apps=list(template.apps),
                level=template.level,
                kind=template.kind,
                max_steps=template.budget(),
                instruction=sim.tasks.instantiate(template.id, 0, lang).instruction,
            )
            for template in sorted(sim.tasks, key=lambda t: (t.apps, t.level, t.id))
        ]

    posting = error_responses(400, 409, 415, 503, 504)

    @router.post("/instances/{instance_id}/task", responses=posting)
    async def pose(instance_id: str, request: ResetRequest) -> PlayStatus:
        env = players.env(_instance(sim, instance_id))
        await posed(env, requested_task(sim, request))
        players.seen[instance_id] = env.instance.version
        return await players.status(env)

    @router.get("/instances/{instance_id}/task", responses=error_responses(409, 503, 504))
    async def status(instance_id: str) -> PlayStatus:
        return await players.status(players.env(_instance(sim, instance_id)))

    return router


class _Players:
    """The env over each played instance, and the instance version it last observed."""

    def __init__(self, sim: Simulator) -> None:
        self.sim = sim
        self.envs: dict[str, SimEnv] = {}
        self.seen: dict[str, int] = {}

    def env(self, instance: Instance) -> SimEnv:
        """The env over ``instance`` (a new one when the instance is new)."""
        from sim.env import SimEnv

        env = self.envs.get(instance.id)
        if env is None or env.instance is not instance:
            env = SimEnv(self.sim, instance, screenshot=False, answer_mode="sheet")
            self.envs[instance.id] = env
        return env

    async def status(self, env: SimEnv) -> PlayStatus:
        """The panel's view of ``env``'s instance, judged now."""
        instance = env.instance
        episode = instance.episode
        verdict = None
        if episode is not None:
            if episode.spec.needs_trees and self.seen.get(instance.id) != instance.version:
                await guarded(env.observe())  # the judge reads the screens seen, as in an env
                self.seen[instance.id] = instance.version
            verdict = await judged(env)
        route = instance.state.os.route
        return PlayStatus(
            instance=instance.id,
            version=instance.version,
            task=episode.task if episode is not None else None,
            verdict=verdict,
            foreground=foreground(instance),
            route=route.path if route is not None else None,
        )


def _docs_routes(app: FastAPI) -> None:
    """Swagger UI at ``/docs`` and ReDoc at ``/redoc``, from assets served here; nothing
    they load comes from elsewhere (ReDoc's own logo is blanked, see :func:`_offline_redoc`)."""
    assets = resources.files("fastapi_offline").joinpath("static")

    @app.get(f"{DOCS_ASSETS}/redoc.standalone.js", include_in_schema=False)
    async def redoc_script() -> Response:  # before the mount, which would serve it as is
        return Response(_offline_redoc(), media_type="text/javascript")

    app.mount(DOCS_ASSETS, StaticFiles(directory=str(assets)), name="docs-assets")
    title = app.title
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    async def swagger() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{title}: Swagger UI",
            swagger_js_url=f"{DOCS_ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    async def redoc() -> HTMLResponse:
        return get_redoc_html(
            openapi_url=openapi_url,
            title=f"{title}: ReDoc",
            redoc_js_url=f"{DOCS_ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{DOCS_ASSETS}/favicon.png",
            with_google_fonts=False,
        )


_REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
_BLANK_IMAGE = "data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw=="


@cache
def _offline_redoc() -> str:
    """ReDoc's script with its footer logo, which it fetches from a CDN, made a blank
    inline image: a docs page opened on a machine without internet (or behind a proxy that
    logs) asks nothing of the outside."""
    script = resources.files("fastapi_offline").joinpath("static").joinpath("redoc.standalone.js")
    return script.read_text("utf-8").replace(_REDOC_LOGO, _BLANK_IMAGE)


_LOOPBACK = {"127.0.0.1", "::1", "localhost"}


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address or ``localhost``) is this machine's loopback; a server
    bound anywhere else needs a token."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def require_token(app: FastAPI, token: str | None) -> None:
    """Refuse non-loopback clients without ``token`` (the pages of the pool are loopback).

    The token comes as a Bearer header, a ``?token=`` or the cookie a page opened with a
    valid ``?token=`` is given, so the page's own scripts and requests pass too."""

    async def check(request: Request) -> Response | None:
        client = request.client.host if request.client else ""
        if client in _LOOPBACK:
            return None
        queried = request.query_params.get("token", "")
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        given = given or queried or request.cookies.get(TOKEN_COOKIE, "")
        if token is None or not secrets.compare_digest(given, token):
            return error_response(
                401, "a token is required from this address: send it as Bearer or ?token="
            )
        return None

    def cookie(request: Request, headers: MutableHeaders) -> None:
        if token is not None and request.query_params.get("token"):
            given = Response()
            given.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
            headers.append("set-cookie", given.headers["set-cookie"])

    guard_requests(app, check, cookie)


def _instance(sim: Simulator, instance_id: str) -> Instance:
    try:
        return sim.instance(instance_id)
    except KeyError as exc:
        raise HTTPException(404, str(exc)) from exc
