"""The stranger sweep's other half on the virtual Redmi: the same specs posed and judged on
a phone that shows HyperOS's screens, names its apps as a Redmi does (``com.android.mms``,
``com.android.fileexplorer``, ``com.miui.home``) and whose Security app keeps an alarm clock
sooner than the user's, never reset between tasks (tests/device/test_stranger_phone.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bridge.plans import Plan
from bridge.runner import run_episode
from bridge.schema import Observation, PolicyOutput
from device.env import AndroidEnv
from device.profiles import load_profile
from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from device.virtual.perturb import Perturbations
from policies.scripted import PlanPolicy
from sim.tasks.registry import default_registry
from tests.device.stranger import sweep
from tests.device.virtual_rig import env_config
from transfer_eval.guards import task_guard

REDMI_SAMPLE = (
    "settings/SetWifi-v1",  # a switch with a service command, "WLAN" where HyperOS puts it
    "settings/CountPairedDevices-v1",  # dumpsys bluetooth_manager with Bluetooth off
    "settings/SetLongestTimeout-v1",  # XPath over the saved trees; HyperOS's longest is 10 min
    "crossapp/AlarmBeforeFirstEvent-v1",  # a join, and the Security app's sooner alarm clock
    "files/RenameFile-v1",  # a seeded task folder, stat inodes, com.android.fileexplorer
    "messages/ReplyToSender-v1",  # SMS delivered with su, the pose clock, com.android.mms
)
"""The half of the sweep the virtual Redmi runs: its oracles walk HyperOS's screens."""

REDMI = Perturbations(profile="redmi_note_12_turbo")


@pytest.fixture(scope="module")
def redmi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AttachedVirtualPhone]:
    home = tmp_path_factory.mktemp("home")
    with attach_virtual_phone(seed=0, android_user_home=home, perturbations=REDMI) as phone:
        yield phone


@pytest.mark.device_virtual
@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("task_id", REDMI_SAMPLE)
async def test_the_oracle_solves_a_sample_on_a_stranger_redmi_through_adb(
    redmi: AttachedVirtualPhone, task_id: str
) -> None:
    await sweep(redmi, task_id, REDMI_SAMPLE.index(task_id), "hyperos")


class _Watching(PlanPolicy):
    """The oracle, noting the package in front at every step."""

    def __init__(self, plan: Plan) -> None:
        super().__init__(plan, name="scripted")
        self.seen: list[Observation] = []

    async def act(self, observation: Observation) -> PolicyOutput:
        self.seen.append(observation)
        return await super().act(observation)


@pytest.mark.device_virtual
@pytest.mark.asyncio(loop_scope="module")
async def test_a_guarded_settings_task_passes_through_the_phone_app(
    redmi: AttachedVirtualPhone,
) -> None:
    registry = default_registry()
    task = registry.instantiate("settings/SetMobileData-v1", 0, "en")
    policy = _Watching(registry.get(task.task_id).oracle_for(task, "hyperos"))
    handoff = load_profile("redmi_note_12_turbo").handoff_packages
    guard = task_guard("apps", task, handoff=handoff)
    async with AndroidEnv(env_config(redmi)) as env:
        record = await run_episode(policy, env, task, episode_id="mobile", guard=guard)
    on_sim_page = [o for o in policy.seen if o.foreground.package == "com.android.phone"]
    assert on_sim_page  # HyperOS's SIM page is the phone app's
    assert record.outcome == "success", (record.termination, record.error)
    unguarded = task_guard("apps", task)
    assert unguarded is not None and unguarded.after(on_sim_page[0]) is not None  # it would stop
