"""The one error shape of the simulator's HTTP server, and the handlers that produce it.

Every refusal, ours or FastAPI's own (a body that does not validate, a route or a method
that does not exist), is answered with an :class:`ApiError` body:

    {"detail": "action.target.point.x: Input should be less than or equal to 1",
     "kind": "invalid",
     "errors": [{"loc": ["body", "action", "target", "point", "x"], "msg": "...",
                 "type": "less_than_equal"}]}

``detail`` is one line for people (what is wrong, and where it helps, what to do); ``kind``
is for programs; ``errors`` lists every field problem of a validation error. Nothing of the
input is echoed back, so a body holding NaN (which JSON cannot encode) gets a 422 too.

A 422 means the body breaks the OpenAPI document. The one rule of a body the document
cannot state (a task spec naming a truth it does not read first) is a 409 ``bad-task``
instead: the document allows that body, the simulator cannot pose it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException

from bridge.taskspec import UNKNOWN_TRUTH
from sim.env_api_models import ERROR_HEADER
from sim.errors import EnvRefused

__all__ = [
    "ERROR_HEADER",
    "ApiError",
    "FieldProblem",
    "error_response",
    "error_responses",
    "install_error_handlers",
    "problems_of",
    "refusal",
    "validation_detail",
]


_KIND_BY_STATUS = {
    400: "bad-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    409: "conflict",
    410: "expired-env",
    415: "unsupported-media-type",
    421: "bad-host",
    422: "invalid",
    429: "too-many-envs",
    503: "not-ready",
    504: "timeout",
}
"""The kind of a refusal that names none (FastAPI's and Starlette's own)."""


class FieldProblem(BaseModel):
    """One problem of a request that did not validate: where, what, and its pydantic type."""

    model_config = ConfigDict(extra="forbid")

    loc: list[str | int]
    msg: str
    type: str


class ApiError(BaseModel):
    """The body of every 4xx and 5xx answer of the server."""

    model_config = ConfigDict(extra="forbid")

    detail: str
    """One line for people: the field or thing at fault and the problem."""
    kind: str
    """For programs: ``unknown-env``, ``expired-env``, ``invalid``, ``too-many-envs``, …"""
    errors: list[FieldProblem] = []
    """Every field problem of a request that did not validate (empty otherwise)."""


def error_response(
    status: int,
    detail: str,
    kind: str | None = None,
    *,
    errors: Iterable[FieldProblem] = (),
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """An :class:`ApiError` answer (its kind also in :data:`ERROR_HEADER`)."""
    kind = kind or _KIND_BY_STATUS.get(status, "error")
    body = ApiError(detail=detail, kind=kind, errors=list(errors))
    return JSONResponse(
        body.model_dump(mode="json"),
        status_code=status,
        headers={**(headers or {}), ERROR_HEADER: kind},
    )


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI ``responses`` documenting ``statuses`` with the :class:`ApiError` body."""
    return {
        status: {"model": ApiError, "description": _KIND_BY_STATUS.get(status, "error")}
        for status in statuses
    }


def _location(loc: Iterable[object]) -> str:
    parts = [str(part) for part in loc]
    if parts and parts[0] in ("body", "query", "path", "header"):
        parts = parts[1:] or parts
    return ".".join(parts) or "body"


def validation_detail(problems: list[FieldProblem]) -> str:
    """One line naming the first problem's field and message (and how many more)."""
    if not problems:
        return "the request is not valid"
    first = problems[0]
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    if first.type == "json_invalid":
        return f"body: not valid JSON ({first.msg}); send one JSON object"
    return f"{_location(first.loc)}: {first.msg}{more}"


def problems_of(errors: Iterable[Mapping[str, Any]]) -> list[FieldProblem]:
    """Pydantic's error dicts as :class:`FieldProblem` (without their input)."""
    return [
        FieldProblem(
            loc=[p if isinstance(p, int) else str(p) for p in error.get("loc", ())],
            msg=str(error.get("msg", "")),
            type=str(error.get("type", "")),
        )
        for error in errors
    ]


_BEYOND_THE_SCHEMA = frozenset({UNKNOWN_TRUTH})
"""Pydantic error types of rules a body's JSON Schema cannot state (answered 409)."""


async def _on_validation(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    problems = problems_of(exc.errors())
    if problems and all(problem.type in _BEYOND_THE_SCHEMA for problem in problems):
        detail = f"{validation_detail(problems)}; the task cannot be posed as it is"
        return error_response(409, detail, "bad-task", errors=problems)
    return error_response(422, validation_detail(problems), "invalid", errors=problems)


async def _on_http(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    headers = dict(exc.headers or {})
    kind = headers.pop(ERROR_HEADER, None)
    if exc.status_code in (204, 304) or exc.status_code < 200:
        return Response(status_code=exc.status_code, headers=headers)
    return error_response(exc.status_code, str(exc.detail), kind, headers=headers)


STATUS_OF_REFUSAL = {"unknown-env": 404, "expired-env": 410, "too-many-envs": 429}
"""The HTTP status of each kind of :class:`~sim.errors.EnvRefused`."""
_HTTP_HINT = {
    "unknown-env": "POST /api/envs creates one",
    "expired-env": "POST /api/envs creates a new one",
    "too-many-envs": "DELETE /api/envs/{id} closes one",
}
"""What an HTTP client does next, after the transport-neutral message."""


async def _on_refused(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, EnvRefused)
    detail = f"{exc}; {_HTTP_HINT[exc.kind]}"
    return error_response(STATUS_OF_REFUSAL[exc.kind], detail, exc.kind)


def install_error_handlers(app: FastAPI) -> None:
    """Answer validation errors, HTTP exceptions and env refusals of ``app`` with
    :class:`ApiError`."""
    app.add_exception_handler(RequestValidationError, _on_validation)
    app.add_exception_handler(StarletteHTTPException, _on_http)
    app.add_exception_handler(EnvRefused, _on_refused)


def refusal(status: int, detail: str, kind: str) -> HTTPException:
    """An HTTP error of the env API: ``detail`` for people, ``kind`` for programs."""
    return HTTPException(status, detail, headers={ERROR_HEADER: kind})
