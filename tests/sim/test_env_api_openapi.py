"""The env API's OpenAPI document tells the truth about what it accepts (issue 28).

A body the document refuses is a 422 naming the problem; a body it allows is never a 422
(what the simulator then cannot do is a 409); values have the JSON types the document
states (``0`` is no boolean); a method the document does not give a path is a 405 with
``Allow``; and a task object without its spec is refused, never bound again from the
registry under the client's instruction.

The document is read with ``jsonschema`` (installed with schemathesis, the dev extra), as a
client in another language would read it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
import pytest_asyncio
from jsonschema import Draft202012Validator

from sim.api_errors import ApiError
from sim.env_api_models import UNBOUND_TASK
from sim.simulator import Simulator

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.browser]

JSON = {"content-type": "application/json"}


@dataclass(frozen=True)
class Api:
    """A client of the served simulator, its OpenAPI document, and an env reset to a task."""

    http: httpx.AsyncClient
    document: dict[str, Any]
    env_id: str
    task: dict[str, Any]
    """A registry task as JSON, with its spec (``contacts/StarContact-v1``, seed 1)."""

    def accepts(self, path: str, body: object) -> bool:
        """Whether the document allows ``body`` as the JSON of ``POST path``."""
        operation = self.document["paths"][path]["post"]
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        root = {**schema, "components": self.document["components"]}
        return Draft202012Validator(root).is_valid(body)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def api(sim: Simulator) -> AsyncIterator[Api]:
    """The served simulator's API, with an env posed on ``settings/SetWifi-v1``."""
    task = sim.tasks.instantiate("contacts/StarContact-v1", 1, "en")
    async with httpx.AsyncClient(base_url=sim.base_url, timeout=60) as http:
        document = (await http.get("/openapi.json")).json()
        created = await http.post(
            "/api/envs", json={"task_id": "settings/SetWifi-v1", "seed": 1, "screenshot": False}
        )
        env_id = created.json()["env_id"]
        yield Api(http, document, env_id, task.model_dump(mode="json"))
        await http.delete(f"/api/envs/{env_id}")


def _refused(response: httpx.Response, status: int, *words: str) -> ApiError:
    """The error body, after checking the status and that its detail names ``words``."""
    assert response.status_code == status, (response.status_code, response.text)
    error = ApiError.model_validate_json(response.content)
    assert all(word in error.detail for word in words), error.detail
    return error


def _tap(target: object) -> dict[str, Any]:
    return {"action": {"type": "tap", "target": target}}


# Bodies the document refuses: (route, body, words the 422's detail names).
REFUSED: list[tuple[str, object, tuple[str, ...]]] = [
    ("step", _tap({"point": {"x": 0.5, "y": 0.5}, "element": 3}), ("both point and element",)),
    ("step", _tap({}), ("exactly one of point or element", "neither")),
    ("step", _tap({"element": "3"}), ("action.tap.target.element", "integer")),
    ("step", _tap({"point": {"x": "0.5", "y": 0.5}}), ("point.x", "number")),
    ("step", {"action": {"type": "type", "text": "x", "clear": 1}}, ("type.clear", "boolean")),
    ("step", {"action": {"type": "wait", "seconds": True}}, ("wait.seconds", "number")),
    ("step", {"action": {"key": "back"}}, ("action",)),
    ("create", {"screenshot": 0}, ("screenshot", "boolean")),
    ("create", {"screenshot": "true"}, ("screenshot", "boolean")),
    ("create", {"seed": "1"}, ("seed", "integer")),
    ("create", {"seed": True}, ("seed", "integer")),
    ("create", {"seed": 1.5}, ("seed", "integer")),
    ("fork", {"n": True}, ("n", "integer")),
    ("reset", {}, ("give task_id",)),
    ("reset", {"task_id": "settings/SetWifi-v1", "seed": "1"}, ("seed", "integer")),
]


@pytest.mark.parametrize(("route", "body", "words"), REFUSED)
async def test_a_body_the_document_refuses_is_a_422_naming_the_problem(
    api: Api, route: str, body: object, words: tuple[str, ...]
) -> None:
    path, url = _route(api, route)
    assert not api.accepts(path, body), "the document states the rule"
    answered = await api.http.post(url, json=body)
    assert _refused(answered, 422, *words).kind == "invalid"


@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("step", _tap({"point": {"x": 1, "y": 0}})),  # integers are numbers
        ("step", _tap({"point": {"x": 0.5, "y": 0.5}, "element": None})),  # null: not given
        ("step", {"action": {"type": "long_press", "target": {"element": 0}, "duration_ms": 2.0}}),
        ("fork", {"n": 1.0}),  # 1.0 is an integer to JSON Schema
        ("reset", {"task_id": "settings/SetWifi-v1", "seed": 2.0, "task": None}),
    ],
)
async def test_a_body_the_document_allows_is_accepted(api: Api, route: str, body: object) -> None:
    path, url = _route(api, route)
    assert api.accepts(path, body)
    answered = await api.http.post(url, json=body)
    assert answered.status_code == 200, answered.text


async def test_answer_field_choices_are_stated_by_the_document(api: Api) -> None:
    def with_fields(*fields: dict[str, Any]) -> dict[str, Any]:
        return {"screenshot": False, "task": {**api.task, "answer_fields": list(fields)}}

    choice = {"name": "colour", "kind": "choice", "choices": ["red", "blue"]}
    for wrong, words in (
        ({"name": "colour", "kind": "choice"}, "choices must be given"),
        ({"name": "colour", "kind": "choice", "choices": []}, "choices must be given"),
        ({"name": "count", "kind": "number", "choices": ["1"]}, "only for, kind 'choice'"),
    ):
        body = with_fields(choice, wrong)
        assert not api.accepts("/api/envs", body), wrong
        _refused(await api.http.post("/api/envs", json=body), 422, "answer_fields.1", words)
    allowed = with_fields(choice, {"name": "count", "kind": "number", "choices": []})
    assert api.accepts("/api/envs", allowed)
    created = await api.http.post("/api/envs", json=allowed)
    assert created.status_code == 200, created.text
    await api.http.delete(f"/api/envs/{created.json()['env_id']}")


async def test_what_the_document_allows_but_the_simulator_cannot_do_is_a_409(api: Api) -> None:
    spec = api.task["spec"]
    unread = {"check": "next_alarm", "name": "alarm", "value": {"truth": "never_read"}}
    task = {**api.task, "spec": {**spec, "checks": [*spec["checks"], unread]}}
    reset = f"/api/envs/{api.env_id}/reset"
    assert api.accepts("/api/envs/{env_id}/reset", {"task": task})  # the one unstated rule
    error = _refused(await api.http.post(reset, json={"task": task}), 409, "never_read")
    assert error.kind == "bad-task" and error.errors[0].type == "unknown_truth"
    no_checks = {**api.task, "spec": {**spec, "checks": [], "answers": []}}
    assert api.accepts("/api/envs/{env_id}/reset", {"task": no_checks})
    _refused(await api.http.post(reset, json={"task": no_checks}), 409, "cannot be posed")
    stranger = {"state": {}, "episode": {"a": 1}}
    assert api.accepts("/api/envs/{env_id}/restore", stranger)
    restored = await api.http.post(f"/api/envs/{api.env_id}/restore", json=stranger)
    assert _refused(restored, 409, "not a snapshot of this simulator").kind == "bad-snapshot"


async def test_an_undeclared_method_is_a_405_with_allow(api: Api) -> None:
    step = f"/api/envs/{api.env_id}/step"
    for method, url, allow in (
        ("PATCH", step, "POST"),
        ("PUT", "/api/envs", "GET, POST"),  # no body, no Content-Type: still 405, not 415
        ("PATCH", f"/api/envs/{api.env_id}", "DELETE"),
        ("OPTIONS", "/api/instances/i1/task", "GET, POST"),  # both routes of the path
        ("DELETE", "/health", "GET"),
    ):
        answered = await api.http.request(method, url)
        error = _refused(answered, 405, method, url)
        assert error.kind == "method-not-allowed" and answered.headers["allow"] == allow
    patched = await api.http.patch(step, json={"action": {"type": "key", "key": "back"}})
    assert patched.status_code == 405 and patched.headers["allow"] == "POST"
    unknown = await api.http.patch("/api/nothing-here", json={})  # a path the document lacks
    assert unknown.status_code == 404 and "allow" not in unknown.headers


async def test_a_task_object_without_its_spec_is_refused(api: Api, sim: Simulator) -> None:
    unbound = {key: value for key, value in api.task.items() if key != "spec"}
    before = set(sim.instances)
    for url, body in (
        ("/api/envs", {"task": unbound}),
        ("/api/envs", {"task": {**unbound, "spec": None}}),
        (f"/api/envs/{api.env_id}/reset", {"task": unbound}),
        ("/api/instances/i1/task", {"task": unbound}),
    ):
        assert not api.accepts(_template(url), body), url
        error = _refused(await api.http.post(url, json=body), 422, UNBOUND_TASK)
        assert error.kind == "invalid" and error.errors[0].loc == ["body", "task"]
    assert set(sim.instances) == before  # no env was made for it
    listed = {e["env_id"]: e["task_id"] for e in (await api.http.get("/api/envs")).json()}
    assert listed[api.env_id] == "settings/SetWifi-v1"  # still its own task: nothing re-bound
    by_id = {"task_id": "contacts/StarContact-v1", "seed": 1}  # the registry binds an id
    assert (await api.http.post(f"/api/envs/{api.env_id}/reset", json=by_id)).status_code == 200
    listed = {e["env_id"]: e["task_id"] for e in (await api.http.get("/api/envs")).json()}
    assert listed[api.env_id] == "contacts/StarContact-v1"
    both = {"task_id": "contacts/StarContact-v1", "task": api.task}
    _refused(await api.http.post("/api/envs", json=both), 422, "not both")


def _route(api: Api, route: str) -> tuple[str, str]:
    """The path template and the URL of ``route`` (on the test's env)."""
    if route == "create":
        return "/api/envs", "/api/envs"
    return f"/api/envs/{{env_id}}/{route}", f"/api/envs/{api.env_id}/{route}"


def _template(url: str) -> str:
    """The document's path template of a URL of the routes above."""
    parts = url.split("/")
    if url.startswith("/api/envs/"):
        parts[3] = "{env_id}"
    elif url.startswith("/api/instances/"):
        parts[3] = "{instance_id}"
    return "/".join(parts)
