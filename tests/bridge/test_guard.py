"""The real-phone guard on real dumps: what needs a person's approval, what leaves the run's
apps, and what is never marked (a keyboard's Delete key)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.guard import ActionGuard
from bridge.schema import (
    BackendInfo,
    Foreground,
    KeyAction,
    Observation,
    ScreenSpec,
    TapAction,
    Target,
    UINode,
)
from bridge.uitree import parse_hierarchy
from device.profiles import load_profile
from sim.tasks.registry import default_registry

DUMPS = Path(__file__).resolve().parents[1] / "fixtures" / "real_dumps"


def _seen(name: str, width: int, height: int) -> Observation:
    tree = parse_hierarchy((DUMPS / name).read_bytes())
    return Observation(
        step=0,
        screen=ScreenSpec(width_px=width, height_px=height),
        ui=tree.nodes,
        backend=BackendInfo(kind="device"),
    )


def _node(obs: Observation, **wanted: str) -> UINode:
    return next(n for n in obs.ui if all(getattr(n, k) == v for k, v in wanted.items()))


def test_a_send_button_needs_approval() -> None:
    obs = _seen("31_google_messages_720x1536.xml", 720, 1536)
    send = _node(obs, resource_id="Compose:Draft:Send")
    stop = ActionGuard().before(TapAction(target=Target.node(send.id)), obs)
    assert stop is not None and stop.kind == "sensitive" and "sending" in stop.reason
    left, top, right, bottom = send.bounds_px
    at = Target.at((left + right) / 2 / 720, (top + bottom) / 2 / 1536)
    by_point = ActionGuard().before(TapAction(target=at), obs)
    assert by_point is not None and "sending" in by_point.reason


def test_removing_needs_approval_but_a_keyboard_delete_key_does_not() -> None:
    facebook = _seen("17_facebook_u2_multiwindow_pretty.xml", 720, 1560)
    remove = _node(facebook, content_desc="Remove friend suggestion")
    stop = ActionGuard().before(TapAction(target=Target.node(remove.id)), facebook)
    assert stop is not None and "deleting" in stop.reason
    typing = _seen("23_avito_search_gboard_keyboard_u2.xml", 1080, 1920)
    key = _node(typing, resource_id="com.google.android.inputmethod.latin:id/key_pos_del")
    assert ActionGuard().before(TapAction(target=Target.node(key.id)), typing) is None


def test_ordinary_taps_keys_and_misses_pass() -> None:
    obs = _seen("32_settings_app_permissions_pixel.xml", 1080, 2400)
    guard = ActionGuard()
    photos = _node(obs, text="Photos")
    assert guard.before(TapAction(target=Target.node(photos.id)), obs) is None
    assert guard.before(KeyAction(key="back"), obs) is None
    assert guard.before(TapAction(target=Target.node(len(obs.ui) + 5)), obs) is None


@pytest.mark.parametrize(
    ("package", "stops"),
    [
        ("com.android.settings", False),
        ("com.android.launcher3", False),  # home is never leaving
        ("com.android.systemui", False),
        ("com.tencent.mm", True),
        (None, False),
    ],
)
def test_leaving_the_allowed_apps_stops_the_run(package: str | None, stops: bool) -> None:
    obs = Observation(
        step=1,
        screen=ScreenSpec(width_px=1080, height_px=2400),
        ui=[UINode(id=0, bounds_px=(0, 0, 1080, 2400))],
        foreground=Foreground(package=package),
        backend=BackendInfo(kind="device"),
    )
    stop = ActionGuard({"com.android.settings"}).after(obs)
    assert (stop is not None) == stops
    if stop is not None:
        assert stop.kind == "left_apps" and "com.tencent.mm" in stop.reason
    assert ActionGuard().after(obs) is None  # no list: any app


def test_a_settings_task_may_pass_through_the_phones_handoff_packages() -> None:
    task = default_registry().instantiate("settings/SetMobileData-v1", 0, "en")
    handoff = load_profile("redmi_note_12_turbo").handoff_packages
    guard = ActionGuard.for_task(task, handoff=handoff)
    plain = ActionGuard.for_task(task)

    def shown(package: str) -> Observation:
        return Observation(
            step=1,
            screen=ScreenSpec(width_px=1080, height_px=2400),
            ui=[UINode(id=0, bounds_px=(0, 0, 1080, 2400))],
            foreground=Foreground(package=package),
            backend=BackendInfo(kind="device"),
        )

    sim_page, sheet = shown("com.android.phone"), shown("com.lbe.security.miui")
    assert guard.after(sim_page) is None and guard.after(sheet) is None
    stopped = plain.after(sim_page)
    assert stopped is not None and "com.android.phone" in stopped.reason
    assert guard.after(shown("com.tencent.mm")) is not None  # still guarded elsewhere
    assert ActionGuard.for_task(None, handoff=handoff).after(shown("com.tencent.mm")) is None


def test_chinese_labels_are_marked() -> None:
    nodes = [
        UINode(id=0, bounds_px=(0, 0, 1080, 2400)),
        UINode(id=1, parent=0, clickable=True, text="确认付款", bounds_px=(100, 2000, 980, 2150)),
    ]
    obs = Observation(step=0, screen=ScreenSpec(width_px=1080, height_px=2400), ui=nodes,
                      backend=BackendInfo(kind="device"))  # fmt: skip
    stop = ActionGuard().before(TapAction(target=Target.node(1)), obs)
    assert stop is not None and "paying" in stop.reason and "付款" in stop.reason
