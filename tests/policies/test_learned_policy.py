"""``LearnedPolicy`` behind the bridge Policy protocol, on hand-built observations."""

from __future__ import annotations

import numpy as np
import pytest

from bridge.policy import Policy
from bridge.schema import (
    AnswerField,
    BackendInfo,
    Foreground,
    Observation,
    PolicyContext,
    ScreenSpec,
    UINode,
    UIStatus,
)
from policies.learned import DIM, LearnedPolicy
from policies.learned.prior import INITS, PRIOR_WEIGHTS, initial_weights

SCREEN = ScreenSpec(width_px=1080, height_px=2400)


def _settings() -> Observation:
    nodes = [UINode(id=0, bounds_px=(0, 0, 1080, 2400))]
    for i, (rid, title) in enumerate([("display", "Display"), ("wifi", "Wi-Fi")]):
        top = 250 + 180 * i
        nodes += [
            UINode(id=len(nodes), parent=0, clickable=True, class_name="android.widget.Button",
                   resource_id=f"com.android.settings:id/{rid}_settings",
                   bounds_px=(0, top, 1080, top + 180)),
            UINode(id=len(nodes) + 1, parent=len(nodes), text=title,
                   class_name="android.widget.TextView", bounds_px=(40, top + 40, 800, top + 140)),
        ]  # fmt: skip
    return Observation(step=0, screen=SCREEN, ui=nodes, foreground=Foreground(app="settings"),
                       backend=BackendInfo(kind="sim"))  # fmt: skip


def test_it_is_a_bridge_policy_named_by_its_checkpoint() -> None:
    assert isinstance(LearnedPolicy(), Policy)
    assert LearnedPolicy().name == "learned:<memory>"
    assert LearnedPolicy(path="checkpoints/trained").name == "learned:checkpoints/trained"


@pytest.mark.asyncio
async def test_the_reading_prior_taps_what_the_instruction_names() -> None:
    policy = LearnedPolicy(initial_weights("prior"))
    await policy.reset("Turn off Wi-Fi.", PolicyContext(max_steps=15))
    out = await policy.act(_settings())
    assert out.action is not None and out.action.type == "tap"
    assert out.action.target.element == 3  # the Wi-Fi row, not Display
    assert out.thought is not None and out.thought.startswith("tap")


@pytest.mark.asyncio
async def test_greedy_is_deterministic_and_sampling_is_seeded() -> None:
    obs = _settings()

    async def actions(policy: LearnedPolicy, n: int = 6) -> list[object]:
        await policy.reset("Turn off Wi-Fi.", PolicyContext())
        return [(await policy.act(obs)).action for _ in range(n)]

    zeros = LearnedPolicy()
    assert await actions(zeros) == await actions(zeros)
    first = await actions(LearnedPolicy(sample=True, seed=4))
    assert first == await actions(LearnedPolicy(sample=True, seed=4))
    assert first != await actions(LearnedPolicy(sample=True, seed=5))


@pytest.mark.asyncio
async def test_recording_keeps_one_trace_per_decision_and_reset_clears_it() -> None:
    policy = LearnedPolicy(initial_weights("prior"), sample=True, record=True)
    await policy.reset("Turn off Wi-Fi.", PolicyContext())
    decision = policy.decide(_settings())
    await policy.act(_settings())
    assert len(policy.trace) == 2
    trace = policy.trace[0]
    assert trace.log_prob_grad.shape == trace.entropy_grad.shape == (DIM,)
    assert trace.log_prob == pytest.approx(np.log(decision.probs[decision.index]))
    assert 0.0 < trace.entropy <= np.log(len(decision.candidates)) + 1e-9
    await policy.reset("again", PolicyContext())
    assert policy.trace == []


@pytest.mark.asyncio
async def test_query_tasks_get_answer_candidates_and_unavailable_trees_still_act() -> None:
    policy = LearnedPolicy(initial_weights("prior"))
    fields = [AnswerField(name="name", kind="text")]
    await policy.reset("Which setting is listed first?", PolicyContext(answer_fields=fields))
    decision = policy.decide(_settings())
    assert {c.kind for c in decision.candidates} >= {"answer", "finish", "tap"}
    blind = Observation(step=0, screen=SCREEN, ui=[], ui_status=UIStatus.UNAVAILABLE,
                        backend=BackendInfo(kind="device"))  # fmt: skip
    out = await policy.act(blind)
    assert out.action is not None and out.action.type in {"key", "open_app", "finish"}


def test_initializations() -> None:
    assert set(INITS) == {"prior", "zeros"}
    assert not initial_weights("zeros").any()
    assert np.count_nonzero(initial_weights("prior")) == len(PRIOR_WEIGHTS)
    with pytest.raises(ValueError, match="unknown initialization 'best'"):
        initial_weights("best")
