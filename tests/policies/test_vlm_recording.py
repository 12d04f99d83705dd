"""``mgb vlm record`` and ``vlm-replay:``: record a live episode through the real proxy
(the CLI in a child process, stopped with Ctrl-C) in front of the local OpenAI-compatible
test server, then replay it from the recording with no model server at all."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn
from typer.testing import CliRunner

from bridge.errors import PolicyError
from bridge.records import EpisodeRecord
from bridge.runner import run_episode
from bridge.schema import PolicyContext
from policies.errors import PolicySpecError
from policies.registry import load, parse_spec, valid_forms
from policies.vlm.base import VLMPolicy
from policies.vlm.recording import (
    EXCHANGES_FILE,
    RUN_RECORDING_DIR,
    Recording,
    RecordingInfo,
    RecordingWriter,
    request_key,
    request_summary,
)
from policies.vlm.recording import recording_proxy as proxy_app
from policies.vlm_replay import RecordedVLMPolicy
from tests.bridge.toy_env import CounterEnv, counter_task
from tests.policies import test_vlm_http
from tests.policies.test_vlm_http import FAST, INSTRUCTION, MODEL, Reply, Served, _click
from tests.policies.test_vlm_parsing import observation, sample
from transfer_eval.commands import mgb_app

_REPO = Path(__file__).resolve().parents[2]
_TERMINATE = (
    '<tool_call>{"name": "mobile_use", "arguments": {"action": "terminate", '
    '"status": "success"}}</tool_call>'
)
_WAIT_S = 60.0

served = test_vlm_http.served
"""The local OpenAI-compatible test server (FakeVLM), reused as this module's fixture."""


@dataclass
class Proxy:
    """A running ``mgb vlm record`` and where it serves and records."""

    base_url: str
    out: Path
    process: asyncio.subprocess.Process


@asynccontextmanager
async def recording_proxy(upstream: str, out: Path, *extra: str) -> AsyncIterator[Proxy]:
    """``mgb vlm record --upstream UPSTREAM --out OUT --port 0`` in a child process; on exit
    Ctrl-C (SIGINT) stops it, and it must say so and exit 0."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "transfer_eval.commands", "vlm", "record", "--upstream",
        upstream, "--out", str(out), "--port", "0", *extra,
        cwd=_REPO, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert process.stdout is not None
    base_url = None
    while base_url is None:
        line = (await asyncio.wait_for(process.stdout.readline(), _WAIT_S)).decode()
        assert line, (await process.stderr.read()).decode()  # type: ignore[union-attr]
        if line.startswith("serving "):
            base_url = line.split()[1]
    try:
        yield Proxy(base_url, out, process)
    finally:
        process.send_signal(signal.SIGINT)
        rest, errors = await asyncio.wait_for(process.communicate(), _WAIT_S)
    assert process.returncode == 0, errors.decode()
    assert "stopped;" in rest.decode() and "exchange(s) recorded" in rest.decode()


@asynccontextmanager
async def proxy_in_process(upstream: str, out: Path, adapter: str | None) -> AsyncIterator[str]:
    """The same proxy app served in this process (no child to start: faster); its URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    base_url = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    info = RecordingInfo(upstream=upstream, served_at=base_url, adapter=adapter)
    app = proxy_app(upstream, RecordingWriter(out, info))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False))
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        yield base_url
    finally:
        server.should_exit = True
        await task
        sock.close()


def _same(live: EpisodeRecord, replayed: EpisodeRecord) -> None:
    """Everything but the policy's name and the wall-clock duration is byte-identical."""
    exclude = {"policy", "duration_s"}
    assert replayed.model_dump_json(exclude=exclude) == live.model_dump_json(exclude=exclude)


# --------------------------------------------------------------------------- the key


def test_the_request_key_ignores_field_order_and_sees_every_detail() -> None:
    shot = observation().screenshot
    other = observation(shade=9).screenshot
    assert shot is not None and other is not None
    image = {"type": "image_url", "image_url": {"url": shot.data_url}}
    content = [image, {"type": "text", "text": "go"}]
    body = {"model": MODEL, "temperature": 0.0, "max_tokens": 512,
            "messages": [{"role": "user", "content": content}]}  # fmt: skip
    key = request_key(body)
    assert key == request_key(dict(reversed(body.items())))
    assert key.startswith("sha256:") and len(key) == 7 + 64
    changed = json.loads(json.dumps(body))
    changed["messages"][0]["content"][0]["image_url"]["url"] = other.data_url
    assert request_key(changed) != key
    assert request_key({**body, "temperature": 0.2}) != key
    assert request_key({**body, "model": "other"}) != key
    summary = json.dumps(request_summary(body))
    assert "base64" not in summary and "sha256:" in summary and '"go"' in summary


# --------------------------------------------------------------------------- record, replay


@pytest.mark.asyncio
async def test_a_recorded_episode_replays_byte_identical(served: Served, tmp_path: Path) -> None:
    """Two taps, a garbage reply (an invalid step), terminate: recorded, then replayed."""
    served.fake.replies = [Reply(_click(500, 724)), Reply(_click(500, 724)), Reply("hmm"),
                           Reply(_TERMINATE)]  # fmt: skip
    out = tmp_path / "rec"
    async with recording_proxy(served.base_url, out, "--adapter", "qwen3vl") as proxy:
        live_policy = VLMPolicy.from_spec("qwen3vl", proxy.base_url, MODEL, **FAST)
        live = await run_episode(live_policy, CounterEnv(), counter_task(2), episode_id="e")
    assert live.outcome == "success" and live.steps == 4 and live.invalid_steps == 1
    assert len(served.fake.requests) == 4
    recording = Recording.open(out)
    assert [e.index for e in recording.exchanges] == [0, 1, 2, 3]
    assert recording.info.upstream == served.base_url
    assert recording.info.served_at == proxy.base_url
    assert "base64" not in (out / EXCHANGES_FILE).read_text()  # images kept as digests

    replay = load(f"vlm-replay:{out}")
    assert isinstance(replay, RecordedVLMPolicy) and replay.name == f"vlm-replay:{out}"
    replayed = await run_episode(replay, CounterEnv(), counter_task(2), episode_id="e")
    _same(live, replayed)
    assert replayed.policy == f"vlm-replay:{out}"
    assert len(served.fake.requests) == 4  # the replay never asked the model server
    replay.close()

    exchanges = out / EXCHANGES_FILE  # a recording cut short: the last reply is missing
    exchanges.write_text("".join(exchanges.read_text().splitlines(keepends=True)[:-1]))
    cut = await run_episode(load(f"vlm-replay:{out}"), CounterEnv(), counter_task(2),
                            episode_id="e")  # fmt: skip
    assert cut.outcome == "infra_error" and cut.steps == 3 and not served.fake.replies
    assert f"step {live.steps - 1}: the request is not in the recording" in (cut.error or "")


@pytest.mark.asyncio
async def test_replayed_outputs_are_the_live_outputs(served: Served, tmp_path: Path) -> None:
    raws = [sample(i)["raw"] for i in ("owl-002", "owl-004", "owl-005")]
    served.fake.replies = [Reply(raw) for raw in raws]
    out = tmp_path / "rec"
    async with proxy_in_process(served.base_url, out, "guiowl") as proxy_url:
        live_policy = VLMPolicy.from_spec("guiowl", proxy_url, MODEL, **FAST)
        await live_policy.reset(INSTRUCTION, PolicyContext())
        live = [await live_policy.act(observation(shade=40 * i)) for i in range(3)]
    replay = load(f"vlm-replay:{out}")
    await replay.reset(INSTRUCTION, PolicyContext())
    replayed = [await replay.act(observation(shade=40 * i)) for i in range(3)]
    assert [o.model_dump_json() for o in replayed] == [o.model_dump_json() for o in live]
    assert [o.raw_text for o in replayed] == raws and live[2].action is not None


@pytest.mark.asyncio
async def test_a_changed_request_is_reported_as_not_recorded(
    served: Served, tmp_path: Path
) -> None:
    served.fake.replies = [Reply(_click(500, 724)), Reply(_TERMINATE)]
    out = tmp_path / "rec"
    async with proxy_in_process(served.base_url, out, "qwen3vl") as proxy_url:
        live_policy = VLMPolicy.from_spec("qwen3vl", proxy_url, MODEL, **FAST)
        await live_policy.reset(INSTRUCTION, PolicyContext())
        await live_policy.act(observation())
    replay = load(f"vlm-replay:{out}")
    await replay.reset(INSTRUCTION, PolicyContext())
    with pytest.raises(PolicyError, match="not in the recording") as caught:
        await replay.act(observation(shade=77))  # another screenshot
    message = str(caught.value)
    assert "step 0" in message and "differs (its image 1)" in message and "sha256:" in message
    await replay.reset("another instruction", PolicyContext())
    with pytest.raises(PolicyError, match=r"message \d differs \(its text\)"):
        await replay.act(observation())
    record = await run_episode(
        load(f"vlm-replay:{out}"), CounterEnv(), counter_task(3), episode_id="other-task"
    )
    assert record.outcome == "infra_error" and record.error_source == "policy"
    assert "not in the recording" in (record.error or "") and "step 0" in (record.error or "")


@pytest.mark.asyncio
async def test_a_run_directory_gives_the_adapter_and_options(
    served: Served, tmp_path: Path
) -> None:
    served.fake.replies = [Reply(_click(500, 724))]
    run = tmp_path / "run"
    out = run / RUN_RECORDING_DIR
    async with proxy_in_process(served.base_url, out, None) as proxy_url:
        spec = f"vlm:qwen3vl,scale=1000,temperature=0.5@{proxy_url}#{MODEL}"
        live_policy = load(spec)
        await live_policy.reset(INSTRUCTION, PolicyContext())
        live = await live_policy.act(observation())
    with pytest.raises(PolicySpecError, match="does not say which adapter"):
        load(f"vlm-replay:{out}")
    (run / "manifest.json").write_text(json.dumps({"config": {"policy": spec, "seeds": [0]}}))
    replay = load(f"vlm-replay:{run}")
    assert isinstance(replay, RecordedVLMPolicy) and replay.inner.adapter.scale == 1000  # type: ignore[attr-defined]
    await replay.reset(INSTRUCTION, PolicyContext())
    assert (await replay.act(observation())).model_dump_json() == live.model_dump_json()
    assert served.fake.requests[0]["temperature"] == 0.5


@pytest.mark.asyncio
async def test_the_replay_server_stops_with_the_policy(served: Served, tmp_path: Path) -> None:
    served.fake.replies = [Reply(_click(500, 724))]
    out = tmp_path / "rec"
    async with proxy_in_process(served.base_url, out, "qwen3vl") as proxy_url:
        live_policy = VLMPolicy.from_spec("qwen3vl", proxy_url, MODEL, **FAST)
        await live_policy.reset(INSTRUCTION, PolicyContext())
        await live_policy.act(observation())
    replay = load(f"vlm-replay:{out}")
    assert isinstance(replay, RecordedVLMPolicy)
    await replay.preflight()  # GET /models lists the recorded model
    async with httpx.AsyncClient() as http:
        listed = (await http.get(f"{replay.base_url}/models")).json()
        assert [m["id"] for m in listed["data"]] == [MODEL]
        replay.close()
        replay.close()  # idempotent
        with pytest.raises(httpx.ConnectError):
            await http.get(f"{replay.base_url}/models")


# --------------------------------------------------------------------------- specs and CLI


def test_the_vlm_replay_spec(tmp_path: Path) -> None:
    assert str(parse_spec("vlm-replay:runs/a b/rec")) == "vlm-replay:runs/a b/rec"
    assert "vlm-replay:RUN" in valid_forms()
    with pytest.raises(PolicySpecError, match="vlm-replay needs RUN"):
        parse_spec("vlm-replay:")
    with pytest.raises(PolicySpecError, match="no VLM recording at"):
        load(f"vlm-replay:{tmp_path}")


def _record(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(mgb_app, ["vlm", "record", *args])
    return result.exit_code, result.output


def test_bad_record_options_are_one_line(tmp_path: Path) -> None:
    upstream = ["--upstream", "http://127.0.0.1:9/v1"]
    code, output = _record("--upstream", "ftp://x", "--out", str(tmp_path / "a"), "--port", "0")
    assert code == 2 and output.count("\n") == 1 and "--upstream 'ftp://x'" in output
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        code, output = _record(*upstream, "--out", str(tmp_path / "b"), "--port", port)
    assert code == 2 and output.count("\n") == 1 and f"--port {port}: cannot listen" in output
    (tmp_path / "file").write_text("not a directory")
    code, output = _record(*upstream, "--out", str(tmp_path / "file" / "rec"), "--port", "0")
    assert code == 2 and output.count("\n") == 1 and "cannot write the recording" in output
    code, output = _record(*upstream, "--out", str(tmp_path / "c"), "--adapter", "gpt")
    assert code == 2 and output.count("\n") == 1 and "unknown vlm adapter 'gpt'" in output
    assert not (tmp_path / "a").exists() and not (tmp_path / "c").exists()
