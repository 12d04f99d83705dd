"""A VLM policy's harness fingerprint: built from the policy itself, so what it records is
what the client sends (checked against the local OpenAI-compatible test server), and every
prompt, history, image or sampling change shows in it."""

from __future__ import annotations

import pytest

from bridge.schema import PolicyContext
from policies.registry import load
from policies.vlm.base import ADAPTERS, VLMPolicy
from policies.vlm.client import ClientConfig
from policies.vlm.fingerprint import VLMFingerprint, parser_version, vlm_fingerprint
from policies.vlm.uitars import UITARS15Adapter
from tests.policies.test_vlm_http import MODEL, Reply, Served
from tests.policies.test_vlm_http import served as served  # the fixture
from tests.policies.test_vlm_parsing import observation, sample

PARSER_VERSION = "7"
"""Read by :func:`parser_version` for adapters defined in this module."""

URL = "http://127.0.0.1:9/v1"


class TweakedPrompt(UITARS15Adapter):
    """UI-TARS with one extra space in its prompt: a change a reader would miss."""

    def prompt(self, instruction: str, context: PolicyContext) -> str:
        """The UI-TARS prompt with a trailing space."""
        return super().prompt(instruction, context) + " "


def _print(adapter: str, **options: object) -> VLMFingerprint:
    return vlm_fingerprint(VLMPolicy.from_spec(adapter, URL, "m", **options))


@pytest.mark.asyncio
async def test_the_sampling_recorded_is_what_the_client_sends(served: Served) -> None:
    spec = f"vlm:uitars15,temperature=0.3,max_tokens=256@{served.base_url}#{MODEL}"
    policy = load(spec)
    assert isinstance(policy, VLMPolicy)
    extra = VLMPolicy.from_spec("qwen3vl", served.base_url, MODEL,
                                extra_body={"top_p": 0.9, "seed": 7})  # fmt: skip
    served.fake.replies = [Reply(sample("qwen-004")["raw"]), Reply(sample("qwen-004")["raw"])]
    for each in (policy, extra):
        await each.reset("Turn on Wi-Fi", PolicyContext())
        await each.act(observation())
    sent = [{k: v for k, v in body.items() if k not in ("model", "messages")}
            for body in served.fake.requests]  # fmt: skip
    assert sent[0] == vlm_fingerprint(policy).sampling == {"temperature": 0.3, "max_tokens": 256}
    assert sent[1] == vlm_fingerprint(extra).sampling
    assert sent[1]["top_p"] == 0.9 and sent[1]["seed"] == 7
    found = vlm_fingerprint(policy)
    assert found.adapter == "uitars15" and found.model == MODEL
    assert found.base_url == served.base_url and found.adapter_options["max_images"] == 5
    assert served.fake.requests[0]["model"] == found.model


def test_any_prompt_change_changes_the_hash_and_nothing_else_does() -> None:
    default = _print("uitars15")
    assert _print("uitars15").prompt_sha256 == default.prompt_sha256  # deterministic
    assert _print("uitars15", temperature=0.7).prompt_sha256 == default.prompt_sha256
    assert _print("uitars15", syntax="point").prompt_sha256 != default.prompt_sha256
    assert _print("uitars15", language="Chinese").prompt_sha256 != default.prompt_sha256
    client = ClientConfig(base_url=URL, model="m").build()
    tweaked = vlm_fingerprint(VLMPolicy(client, TweakedPrompt()))
    assert tweaked.prompt_sha256 != default.prompt_sha256
    hashes = {_print(name).prompt_sha256 for name in ("qwen3vl", "qwen25vl", "uitars15",
                                                      "autoglm", "guiowl", "generic")}  # fmt: skip
    assert len(hashes) == 6 and all(h.startswith("sha256:") and len(h) == 71 for h in hashes)


def test_history_shows_each_adapters_replay_window() -> None:
    assert _print("uitars15").history["images"] == 5
    assert _print("uitars15", max_images=2).history["images"] == 2
    assert _print("uitars15", max_images=2).prompt_sha256 != _print("uitars15").prompt_sha256
    owl, shorter = _print("guiowl"), _print("guiowl", replay_turns=1)
    assert owl.history["replay_turns"] == 4 and shorter.history["replay_turns"] == 1
    assert shorter.history["images"] < owl.history["images"]
    assert _print("autoglm").history["images"] == 1  # the current screenshot only


def test_image_handling_and_coordinate_frame() -> None:
    assert _print("qwen3vl").image["coordinate_frame"] == "0-999 grid"
    assert _print("qwen3vl", scale=1000).image["coordinate_frame"] == "0-1000 grid"
    resized = _print("qwen25vl").image["coordinate_frame"]
    smaller = _print("qwen25vl", max_pixels=1000 * 28 * 28).image["coordinate_frame"]
    assert str(resized).startswith("1092x2408 resized") and smaller != resized
    assert "no re-encoding" in str(_print("generic").image["sent"])
    assert _print("generic", include_image=False).image["sent"] == "no image"


def test_parser_version_is_the_modules_constant_else_its_source_hash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert parser_version(TweakedPrompt) == f"{__name__}@7"
    assert parser_version(UITARS15Adapter) == "policies.vlm.uitars@2026-12-02"
    monkeypatch.delitem(globals(), "PARSER_VERSION")
    unversioned = parser_version(TweakedPrompt)
    assert unversioned.startswith("source:") and len(unversioned) == len("source:") + 16
    assert _print("qwen3vl").parser_version == _print("qwen25vl").parser_version  # one parser
    assert _print("qwen3vl").parser_version != _print("autoglm").parser_version


def test_the_fingerprint_round_trips_as_json() -> None:
    found = _print("guiowl", version="v3")
    again = VLMFingerprint.model_validate_json(found.model_dump_json())
    assert again == found and again.adapter_options["version"] == "v3"
    assert "resized" in str(again.image["coordinate_frame"])


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_every_adapter_has_a_fingerprint(adapter: str) -> None:
    found = _print(adapter)
    assert found.adapter == adapter and found.prompt_sha256.startswith("sha256:")
    assert VLMFingerprint.model_validate_json(found.model_dump_json()) == found
    assert found.history["probe_steps"] == 8 and int(str(found.history["messages"])) >= 1
