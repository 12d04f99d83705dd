"""The stranger sweep's other half on the virtual Redmi: the same specs posed and judged on
a phone that shows HyperOS's screens, names its apps as a Redmi does (``com.android.mms``,
``com.android.fileexplorer``, ``com.miui.home``) and whose Security app keeps an alarm clock
sooner than the user's, never reset between tasks (tests/device/test_stranger_phone.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from device.virtual.attach import AttachedVirtualPhone, attach_virtual_phone
from device.virtual.perturb import Perturbations
from tests.device.stranger import sweep

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
