"""The console's HTTP side: the page, its state (long-polled), frames, and the controls.

``GET /api/state?after=V`` answers when the session's version passes ``V`` (or after 20 s),
so the page follows every change without polling blindly; ``GET /api/live?after=N`` does
the same for live frames. Controls are ``POST``s that answer with the new state, or 409
with one line when the console is busy or the operation does not apply. Bound to 127.0.0.1
by default; from any other address a token is required (as for the env API).
"""

from __future__ import annotations

from importlib import resources
from typing import Any, Literal

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict

from bridge.app_catalog import app_catalog
from bridge.errors import BridgeError, UITreeError
from bridge.records import StepRecord
from bridge.schema import Action, Observation, UINode, Verdict
from bridge.uitree import UITree
from sim.server import require_token
from transfer_eval.console.live import LiveFeed
from transfer_eval.console.session import Breakpoints, ConsoleSession, Proposal
from transfer_eval.errors import ConsoleError
from transfer_eval.pages import page_template

__all__ = ["build_console_app", "session_state"]

_FLAGS = ("clickable", "long_clickable", "editable", "scrollable", "checkable", "checked",
          "focused", "selected", "password")  # fmt: skip
_MEDIA = {"jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp"}


class OverrideRequest(BaseModel):
    """The person's action (in the contract's action JSON) and an optional note."""

    model_config = ConfigDict(extra="forbid")

    action: Action
    note: str | None = None


class InstructionRequest(BaseModel):
    """A new instruction for the policy."""

    model_config = ConfigDict(extra="forbid")

    text: str


class ModeRequest(BaseModel):
    """Step mode or auto-approve."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["step", "run"]


def _node(node: UINode) -> dict[str, Any]:
    return {
        "id": node.id,
        "parent": node.parent,
        "class": node.class_name,
        "text": node.text,
        "desc": node.content_desc,
        "rid": node.resource_id,
        "package": node.package,
        "bounds": list(node.bounds_px),
        "flags": [name for name in _FLAGS if getattr(node, name)]
        + ([] if node.enabled else ["disabled"]),
    }


def _observation(obs: Observation, taken_at: float) -> dict[str, Any]:
    return {
        "step": obs.step,
        "taken_at": taken_at,
        "screen": [obs.screen.width_px, obs.screen.height_px],
        "foreground": obs.foreground.model_dump(),
        "keyboard_visible": obs.keyboard_visible,
        "ui_status": obs.ui_status.value,
        "stable": obs.stable,
        "error": obs.last_action_error,
        "nodes": [_node(node) for node in obs.ui],
    }


def _proposal(proposal: Proposal) -> dict[str, Any]:
    output = proposal.output
    return {
        "step": proposal.step,
        "action": output.action.model_dump(mode="json", exclude_none=True)
        if output.action
        else None,
        "thought": output.thought,
        "raw_text": output.raw_text,
        "error": output.error,
        "policy_ms": round(proposal.policy_ms, 1),
        "point_px": proposal.point_px,
        "end_px": proposal.end_px,
        "element": proposal.element,
        "problem": proposal.problem,
        "guard": proposal.guard.reason if proposal.guard else None,
    }


def _step(record: StepRecord) -> dict[str, Any]:
    action = record.output.action
    result = record.result
    executed = result.executed if result else None
    return {
        "step": record.step,
        "decided_by": record.decided_by,
        "action": action.model_dump(mode="json", exclude_none=True) if action else None,
        "error": result.error if result else None,
        "point_px": executed.point_px if executed else None,
        "end_px": executed.end_point_px if executed else None,
        "command": executed.backend_command if executed else None,
        "total_ms": round(result.timings.total_ms, 1) if result else None,
        "proposal": record.proposal.action.model_dump(mode="json", exclude_none=True)
        if record.proposal and record.proposal.action
        else None,
    }


def _verdict(verdict: Verdict | None) -> dict[str, Any] | None:
    return None if verdict is None else verdict.model_dump(mode="json")


def session_state(session: ConsoleSession, feed: LiveFeed | None) -> dict[str, Any]:
    """Everything the page shows, as JSON (frames are fetched separately)."""
    frozen = session.frozen
    task = session.task
    backend = frozen.backend if frozen else None
    last = session.last.result if session.last is not None else None
    return {
        "version": session.version,
        "world": backend.model_dump(mode="json") if backend else None,
        "policy": session.policy_name,
        "proposes": session.proposes,
        "mode": session.mode,
        "busy": session.busy,
        "attended": session.attended,
        "notice": session.notice,
        "guard": None
        if session.guard is None
        else {
            "apps": sorted(session.guard.allowed_apps),
            "packages": sorted(session.guard.allowed or ()),
            "sensitive": bool(session.guard.words),
        },
        "breakpoints": session.breakpoints.model_dump(),
        "task": {
            "id": task.task_id,
            "seed": task.seed,
            "lang": task.lang,
            "instruction": session.instruction,
            "original_instruction": task.instruction,
            "max_steps": task.max_steps,
            "judged": session.judged,
        },
        "episode": {
            "id": session.episode_id,
            "over": session.ended is not None,
            "outcome": session.ended.outcome if session.ended else None,
            "termination": session.ended.termination if session.ended else None,
            "steps": len(session.history),
        },
        "run_dir": str(session.store.root),
        "frozen": _observation(frozen, session.frozen_at) if frozen else None,
        "proposal": _proposal(session.proposal) if session.proposal else None,
        "history": [_step(record) for record in session.history],
        "verdict": _verdict(session.verdict) if session.judged else None,
        "timing": {
            "approve_to_frozen_ms": round(last.timings.total_ms, 1) if last else None,
            "live_capture_ms": round(feed.latest.capture_ms, 1) if feed and feed.latest else None,
        },
        "live_error": feed.error if feed else None,
        "apps": [app for app in app_catalog().ids() if app != "launcher"],
    }


def build_console_app(
    session: ConsoleSession, feed: LiveFeed | None, token: str | None = None
) -> FastAPI:
    """The console's FastAPI application over one session (and its live feed)."""
    app = FastAPI(title="mobilegym-bridge console", docs_url=None, redoc_url=None)
    require_token(app, token)
    static_dir = resources.files("transfer_eval.console").joinpath("static")
    app.mount("/static", StaticFiles(directory=str(static_dir)), name="static")

    @app.exception_handler(ConsoleError)
    async def console_error(_request: Request, exc: ConsoleError) -> JSONResponse:
        return JSONResponse({"detail": str(exc)}, status_code=409)

    @app.exception_handler(BridgeError)
    async def bridge_error(_request: Request, exc: BridgeError) -> JSONResponse:
        session.notice = f"error: {exc}"
        return JSONResponse({"detail": str(exc)}, status_code=503)

    @app.get("/", response_class=HTMLResponse)
    async def page() -> str:
        return page_template("console.html").render(title="mgb console")

    @app.get("/api/state")
    async def state(after: int = -1) -> dict[str, Any]:
        if after >= 0:
            await session.wait_changed(after, 20.0)
        return session_state(session, feed)

    @app.get("/api/frozen")
    async def frozen_frame() -> Response:
        frozen = session.frozen
        shot = frozen.screenshot if frozen else None
        if frozen is None or shot is None:
            raise HTTPException(404, "no frozen frame (this world gives no screenshot)")
        headers = {"Cache-Control": "no-store", "X-Step": str(frozen.step)}
        return Response(shot.data, media_type=_MEDIA[shot.format], headers=headers)

    @app.get("/api/live")
    async def live_frame(after: int = 0) -> Response:
        if feed is None:
            raise HTTPException(404, "this env has no live screen")
        frame = await feed.next(after)
        if frame is None:
            raise HTTPException(503, feed.error or "no live frame yet")
        headers = {
            "Cache-Control": "no-store",
            "X-Frame-Seq": str(frame.seq),
            "X-Frame-Age-Ms": f"{frame.age_ms:.0f}",
            "X-Capture-Ms": f"{frame.capture_ms:.0f}",
        }
        return Response(frame.shot.data, media_type=_MEDIA[frame.shot.format], headers=headers)

    @app.get("/api/xpath/{node_id}")
    async def xpath(node_id: int) -> dict[str, str]:
        if session.frozen is None:
            raise HTTPException(404, "nothing observed yet")
        try:
            return {"xpath": UITree(session.frozen.ui).xpath_for(node_id)}
        except (UITreeError, KeyError, IndexError) as exc:
            raise HTTPException(404, f"no node {node_id} in the frozen tree") from exc

    @app.post("/api/propose")
    async def propose() -> dict[str, Any]:
        await session.propose()
        return session_state(session, feed)

    @app.post("/api/approve")
    async def approve() -> dict[str, Any]:
        await session.approve()
        return session_state(session, feed)

    @app.post("/api/override")
    async def override(request: OverrideRequest) -> dict[str, Any]:
        await session.override(request.action, request.note)
        return session_state(session, feed)

    @app.post("/api/instruction")
    async def instruction(request: InstructionRequest) -> dict[str, Any]:
        await session.set_instruction(request.text)
        return session_state(session, feed)

    @app.post("/api/mode")
    async def mode(request: ModeRequest) -> dict[str, Any]:
        await session.set_mode(request.mode)
        return session_state(session, feed)

    @app.post("/api/breakpoints")
    async def breakpoints(request: Breakpoints) -> dict[str, Any]:
        await session.set_breakpoints(request)
        return session_state(session, feed)

    @app.post("/api/reset")
    async def reset() -> dict[str, Any]:
        await session.reset()
        return session_state(session, feed)

    @app.post("/api/finish")
    async def finish() -> dict[str, Any]:
        await session.finish()
        return session_state(session, feed)

    return app
