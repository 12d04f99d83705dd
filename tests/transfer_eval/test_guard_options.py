"""``--guard`` and ``--allow`` of ``mgb device run`` and ``transfer-eval``: bad values fail
before any phone is touched, and the paired grid guards both worlds alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from bridge.runner import EpisodeJob
from device.adb import AdbTarget
from device.virtual.perturb import Perturbations
from sim.tasks.registry import default_registry
from transfer_eval import device_run, paired
from transfer_eval.commands import mgb_app, transfer_eval_app
from transfer_eval.device_run import DeviceRunConfig
from transfer_eval.paired import Cell, PairedConfig

TASK = "settings/SetWifi-v1"
WIDE = {"COLUMNS": "200"}


def _device_run(tmp_path: Path, *extra: str) -> tuple[int, str]:
    # port 1 has no adb server: reaching it would be a different error
    args = ["device", "run", "--device", "nowhere", "--adb-port", "1", "--task", TASK]
    result = CliRunner().invoke(mgb_app, [*args, "--out", str(tmp_path / "r"), *extra], env=WIDE)
    assert not (tmp_path / "r").exists()
    return result.exit_code, result.output


def test_device_run_rejects_an_unknown_guard_in_one_line(tmp_path: Path) -> None:
    code, output = _device_run(tmp_path, "--guard", "bogus")
    assert code == 2
    (line,) = [line for line in output.splitlines() if "bogus" in line]
    assert "Invalid value for '--guard'" in line and "'off', 'apps', 'all'" in line
    assert "adb" not in output


def test_device_run_rejects_allow_without_a_guard(tmp_path: Path) -> None:
    code, output = _device_run(tmp_path, "--allow", "contacts")
    assert code == 2  # options that exclude each other: a usage error
    assert output.strip() == "error: --allow contacts needs --guard apps or --guard all"


def test_transfer_eval_rejects_an_unknown_guard(tmp_path: Path) -> None:
    out = tmp_path / "r"
    args = ["--guard", "everything", "--out", str(out)]
    result = CliRunner().invoke(transfer_eval_app, args, env=WIDE)
    assert result.exit_code == 2 and "'everything' is not one of" in result.output
    assert not out.exists()


def _cells(task_id: str = TASK) -> list[Cell]:
    registry = default_registry()
    task = registry.instantiate(task_id, 0)
    template = registry.get(task_id)
    return [
        Cell(task_id, task, template, role, side, 0)
        for role in paired.ROLES
        for side in paired.WORLDS
    ]


def _paired_jobs(config: PairedConfig, handoff: tuple[str, ...] = ()) -> list[EpisodeJob]:
    async def no_env() -> object:  # never called: building jobs touches no world
        raise AssertionError

    return paired._jobs(_cells(), config, lambda _cell: no_env, handoff)


def test_a_paired_guard_guards_the_simulator_and_the_phone_alike(tmp_path: Path) -> None:
    config = PairedConfig(out=tmp_path / "r", guard="apps", allow=["contacts"])
    jobs = _paired_jobs(config)
    worlds = {job.episode_id.split("__")[2] for job in jobs}
    assert worlds == {"sim", "real"} and len(jobs) == 4
    for job in jobs:
        assert job.guard is not None and job.guard.words == {}  # apps only: nothing marked
        assert job.guard.allowed_apps == {"launcher", "settings", "contacts"}
    everything = _paired_jobs(config.model_copy(update={"guard": "all"}))
    assert all(job.guard is not None and job.guard.words for job in everything)
    assert all(job.guard is None for job in _paired_jobs(PairedConfig(out=tmp_path / "r")))


@pytest.mark.asyncio
async def test_a_paired_guard_allows_what_the_virtual_redmis_apps_hand_off_to(
    tmp_path: Path,
) -> None:
    redmi = Perturbations(profile="redmi_note_12_turbo")
    config = PairedConfig(out=tmp_path / "r", guard="apps", gap=redmi)
    checked = await paired.check_phone(config)
    assert "com.android.phone" in checked.handoff and checked.lang is None
    assert (await paired.check_phone(PairedConfig(out=tmp_path / "r"))).handoff == ()
    for job in _paired_jobs(config, checked.handoff):
        assert job.guard is not None and "com.android.phone" in (job.guard.allowed or ())


def test_allow_without_a_guard_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="needs --guard apps or --guard all"):
        PairedConfig(out=tmp_path / "r", allow=["contacts"])


def test_a_device_run_gives_every_episode_its_tasks_guard(tmp_path: Path) -> None:
    target = AdbTarget(port=1, serial="nowhere")
    config = DeviceRunConfig(
        target=target, tasks=[TASK], seeds=[0, 1], out=tmp_path, guard="all", allow=["clock"]
    )
    jobs = device_run._jobs(config, ["com.android.phone"])
    assert len(jobs) == 2
    for job in jobs:
        assert job.guard is not None and job.guard.words  # all: consequential taps stop too
        assert job.guard.allowed_apps == {"launcher", "settings", "clock"}
        assert job.guard.allowed == {"com.android.phone"}  # the phone's handoff packages
    off = DeviceRunConfig(target=target, tasks=[TASK], out=tmp_path)
    assert [job.guard for job in device_run._jobs(off, [])] == [None]
    assert config.model_dump(mode="json")["guard"] == "all"  # the manifest records it
