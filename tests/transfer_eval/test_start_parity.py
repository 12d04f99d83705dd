"""Start-state parity on hand-made states and trees: what differs is named, volatile keys
are not, and a pair without a recorded start is unknown, never "the same"."""

from __future__ import annotations

from pathlib import Path

from bridge.actions import FinishAction
from bridge.records import StepRecord
from bridge.schema import Foreground, ObservedState, PolicyOutput, UINode
from tests.bridge.toy_env import screen_observation
from transfer_eval.start_parity import (
    PairStart,
    StartParity,
    StartParitySummary,
    app_differences,
    state_differences,
    tree_differences,
)


def _state(**settings: str) -> ObservedState:
    return ObservedState(
        settings={"global": dict(settings), "secure": {"android_id": "abc"}},
        rows={"content://sms": {"1": "d1", "2": "d2"}},
        files={"Trip/a.jpg": "f1"},
    )


def _node(node_id: int, text: str, checked: bool = False) -> UINode:
    return UINode(
        id=node_id,
        parent=None if node_id == 0 else 0,
        index=node_id,
        class_name="android.widget.TextView",
        text=text,
        package="com.android.settings",
        bounds_px=[0, node_id * 10, 100, node_id * 10 + 10],
        checked=checked,
    )


def test_equal_states_have_no_differences() -> None:
    assert state_differences(_state(wifi_on="1"), _state(wifi_on="1")) == []


def test_a_setting_a_row_and_a_file_that_differ_are_each_named() -> None:
    sim = _state(wifi_on="1", zen_mode="0")
    phone = ObservedState(
        settings={"global": {"wifi_on": "0", "zen_mode": "0"}, "secure": {"android_id": "abc"}},
        rows={"content://sms": {"1": "d1", "2": "other", "3": "d3"}},
        files={},
    )
    found = state_differences(sim, phone)
    assert "global.wifi_on: sim '1', phone '0'" in found
    assert "content://sms/2: row differs" in found and "content://sms/3: row differs" in found
    assert "/sdcard/Download/Trip/a.jpg: sim 'f1', phone None" in found
    assert len(found) == 4


def test_volatile_settings_are_not_differences() -> None:
    sim = ObservedState(settings={"global": {"boot_count": "3"}})
    phone = ObservedState(settings={"global": {"boot_count": "9"}})
    assert state_differences(sim, phone) == []
    assert state_differences(sim, ObservedState(settings={"global": {"other": "1"}}), ()) != []


def test_trees_that_differ_say_what_each_world_shows() -> None:
    sim = [_node(0, "Settings"), _node(1, "Wi-Fi", checked=True)]
    assert tree_differences(sim, list(sim)) == []
    phone = [_node(0, "Settings"), _node(1, "Wi-Fi", checked=False)]
    (only,) = tree_differences(sim, phone)
    assert "sim shows 'Wi-Fi'" in only and "phone shows 'Wi-Fi'" in only
    (renamed,) = tree_differences(sim, [_node(0, "Settings"), _node(1, "WLAN", checked=True)])
    assert "'WLAN'" in renamed


def test_the_same_screen_of_another_makes_home_app_is_the_same_start() -> None:
    def home(package: str, name: str = "workspace") -> list[UINode]:
        node = _node(0, "")
        return [node.model_copy(update={"package": package, "resource_id": f"{package}:id/{name}"})]

    assert tree_differences(home("com.android.launcher3"), home("com.miui.home")) == []
    assert tree_differences(home("com.miui.home"), home("com.miui.home", "drawer")) != []


def test_unknown_pairs_are_neither_same_nor_counted() -> None:
    parity = StartParity(
        pairs=[
            PairStart(label="a", role="base", repeat=0, verdict="same"),
            PairStart(label="b", role="base", repeat=0, verdict="different", state=["x"]),
            PairStart(label="c", role="base", repeat=0, verdict="unknown", why="not run"),
        ]
    )
    assert (parity.same, parity.compared, parity.rate) == (1, 2, 0.5)
    assert [p.label for p in parity.different] == ["b"]
    assert StartParity().rate is None


def _first(app: str | None) -> StepRecord:
    seen = screen_observation(0).model_copy(update={"foreground": Foreground(app=app)})
    return StepRecord(step=0, observation=seen, output=PolicyOutput(action=FinishAction()))


def test_screens_of_another_look_are_compared_by_their_app() -> None:
    assert app_differences(_first(None), _first(None)) == []
    assert app_differences(_first("settings"), _first(None)) == [
        "sim shows settings; phone shows the home screen"
    ]
    looks = "the virtual phone draws HyperOS screens at 440 dpi"
    summary = StartParitySummary.of(
        StartParity(
            pairs=[PairStart(label="a", role="base", repeat=0, verdict="same")], looks=looks
        )
    )
    assert f"the same app in front ({looks}: first screens compared by their app)" in (
        summary.sentence()
    )
    same = StartParity(pairs=[PairStart(label="a", role="base", repeat=0, verdict="same")])
    assert "and the same first screen in both worlds" in StartParitySummary.of(same).sentence()


def test_the_looks_apart_are_named_from_the_run() -> None:
    from device.virtual.perturb import Perturbations
    from transfer_eval.finalize import looks_apart
    from transfer_eval.paired import PairedConfig

    plain = PairedConfig(out=Path("x"))
    assert looks_apart(plain, "virtual") is None  # the simulator's own screens, twice
    redmi = plain.model_copy(update={"gap": Perturbations(profile="redmi_note_12_turbo")})
    assert looks_apart(redmi, "virtual") == (
        "the virtual phone draws Xiaomi HyperOS (as on a Redmi Note 12 Turbo) screens at 440 dpi"
    )
    zoomed = plain.model_copy(update={"gap": Perturbations(font_scale=1.15)})
    assert looks_apart(zoomed, "virtual") == "the virtual phone draws text x1.15"
    assert looks_apart(plain, "device") == "a phone draws its own screens"
