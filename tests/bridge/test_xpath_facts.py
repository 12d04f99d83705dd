"""XPath facts over saved UI trees: duration choosers on AOSP and MIUI dumps, the longest
option over an episode's screens (what SetLongestTimeout is judged by in both worlds)."""

from __future__ import annotations

import pytest

from bridge.schema import UINode
from bridge.spec.ui import duration_ms, longest_offered, offered_durations
from bridge.uitree import to_xml


@pytest.mark.parametrize(
    ("label", "ms"),
    [
        ("15 seconds", 15_000), ("1 minute", 60_000), ("30 minutes", 1_800_000),
        ("After 10 minutes of inactivity", 600_000), ("1 hour", 3_600_000),
        ("30 秒", 30_000), ("10 分钟", 600_000), ("1 小时", 3_600_000), ("2 Min", 120_000),
        ("Never", None), ("永不", None), ("Adaptive brightness", None), ("5 GHz", None),
    ],
)  # fmt: skip
def test_duration_labels(label: str, ms: int | None) -> None:
    assert duration_ms(label) == ms


def _aosp_row(index: int, label: str, checked: bool) -> str:
    top = 300 + 180 * index
    return f"""
      <node index="{index}" text="" resource-id="" class="android.widget.LinearLayout" \
package="com.android.settings" content-desc="" checkable="false" checked="false" \
clickable="true" enabled="true" focusable="true" focused="false" scrollable="false" \
long-clickable="false" password="false" selected="false" bounds="[0,{top}][1080,{top + 180}]">
        <node index="0" text="" resource-id="android:id/widget_frame" \
class="android.widget.LinearLayout" package="com.android.settings" content-desc="" \
checkable="false" checked="false" clickable="false" enabled="true" focusable="false" \
focused="false" scrollable="false" long-clickable="false" password="false" selected="false" \
bounds="[42,{top}][150,{top + 180}]">
          <node index="0" text="" resource-id="android:id/checkbox" \
class="android.widget.RadioButton" package="com.android.settings" content-desc="" \
checkable="true" checked="{str(checked).lower()}" clickable="false" enabled="true" \
focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" \
selected="false" bounds="[63,{top + 57}][129,{top + 123}]" />
        </node>
        <node index="1" text="{label}" resource-id="android:id/title" \
class="android.widget.TextView" package="com.android.settings" content-desc="" \
checkable="false" checked="false" clickable="false" enabled="true" focusable="false" \
focused="false" scrollable="false" long-clickable="false" password="false" selected="false" \
bounds="[192,{top + 60}][1038,{top + 120}]" />
      </node>"""


def aosp_chooser(labels: tuple[str, ...], checked: int = 0) -> str:
    """A Pixel's Screen timeout page as ``uiautomator dump`` writes it (title beside a
    text-less RadioButton), with the dump's trailer."""
    rows = "".join(_aosp_row(i, label, i == checked) for i, label in enumerate(labels))
    return f"""<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="0">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" \
package="com.android.settings" content-desc="" checkable="false" checked="false" \
clickable="false" enabled="true" focusable="false" focused="false" scrollable="false" \
long-clickable="false" password="false" selected="false" bounds="[0,0][1080,2400]">
    <node index="0" text="" resource-id="com.android.settings:id/recycler_view" \
class="androidx.recyclerview.widget.RecyclerView" package="com.android.settings" \
content-desc="" checkable="false" checked="false" clickable="false" enabled="true" \
focusable="true" focused="false" scrollable="true" long-clickable="false" password="false" \
selected="false" bounds="[0,300][1080,2400]">{rows}
    </node>
  </node>
</hierarchy>
UI hierchary dumped to: /dev/tty"""


AOSP = ("15 seconds", "30 seconds", "1 minute", "2 minutes", "5 minutes", "10 minutes",
        "30 minutes")  # fmt: skip
MIUI_ZH = ("15 秒", "30 秒", "1 分钟", "2 分钟", "5 分钟", "10 分钟", "永不")


def miui_chooser(labels: tuple[str, ...] = MIUI_ZH) -> str:
    """A MIUI-like chooser: a list of CheckedTextViews carrying their labels, beside a
    switch (not an option)."""
    nodes = [
        UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400)),
        UINode(id=1, parent=0, class_name="android.widget.Switch", checkable=True,
               text="自适应", bounds_px=(900, 200, 1032, 280)),
    ]  # fmt: skip
    nodes += [
        UINode(id=i + 2, parent=0, index=i + 1, class_name="android.widget.CheckedTextView",
               text=label, checkable=True, checked=i == 0,
               bounds_px=(0, 300 + 150 * i, 1080, 450 + 150 * i))
        for i, label in enumerate(labels)
    ]  # fmt: skip
    return to_xml(nodes)


def not_a_chooser() -> str:
    """The Display page: a switch, and the timeout as a row's summary (no options)."""
    nodes = [
        UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400)),
        UINode(id=1, parent=0, class_name="android.widget.Switch", checkable=True,
               text="Dark theme", bounds_px=(900, 200, 1032, 280)),
        UINode(id=2, parent=0, index=1, class_name="android.widget.TextView",
               text="Screen timeout", bounds_px=(40, 300, 1040, 360)),
        UINode(id=3, parent=0, index=2, class_name="android.widget.TextView",
               text="After 30 minutes of inactivity", bounds_px=(40, 360, 1040, 420)),
    ]  # fmt: skip
    return to_xml(nodes)


def test_the_xpath_rules_read_the_options_a_chooser_offers() -> None:
    assert offered_durations(aosp_chooser(AOSP)) == {duration_ms(label): label for label in AOSP}
    miui = offered_durations(miui_chooser())
    assert sorted(miui.values(), key=lambda label: duration_ms(label) or 0) == list(MIUI_ZH[:-1])
    assert offered_durations(not_a_chooser()) == {}
    assert offered_durations(aosp_chooser(AOSP[:2])) == {}  # two options: not a chooser
    assert offered_durations("<hierarchy rotation='0'></hierarchy>") == {}  # idle-timeout dump


def test_the_longest_option_is_taken_over_every_chooser_seen() -> None:
    trees = [not_a_chooser(), aosp_chooser(AOSP[:5]), not_a_chooser(), aosp_chooser(AOSP[2:])]
    offered = longest_offered(trees)
    assert offered is not None and offered.ms == duration_ms(AOSP[-1]) and offered.steps == (1, 3)
    assert longest_offered([not_a_chooser()]) is None and longest_offered([]) is None
