"""The Settings app: pure rules with literal inputs, handlers on a real instance state (the
radios through :mod:`sim.radios`, shared with the shade), and every page rendered in English
and Chinese."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from sim import radios
from sim.apps.settings import SettingsApp, model
from sim.apps.settings.pages import DEVICE_NAME_FIELD, PAGES
from sim.errors import SimError
from sim.state import Route
from tests.sim.apps.settings_phone import Phone

APP_DIR = Path(resources.files("sim.apps.settings"))  # type: ignore[arg-type]


@pytest.fixture
def phone() -> Phone:
    return Phone()


def switch_checked(html: str, rid: str) -> str:
    """data-checked of the switch inside the row with resource id ``rid``."""
    match = re.search(
        rf'data-rid="{rid}".*?data-class="android.widget.Switch"[^>]*'
        r'data-checked="(true|false)"',
        html,
        re.S,
    )
    assert match, f"no switch row {rid!r}"
    return match.group(1)


def radio_checked(html: str, title: str) -> str:
    match = re.search(r'data-checked="(true|false)" data-text="' + re.escape(title) + '"', html)
    assert match, f"no radio {title!r}"
    return match.group(1)


# ---- resources


def test_string_tables_have_identical_keys() -> None:
    table = json.loads((APP_DIR / "strings.json").read_text("utf-8"))
    assert set(table) == {"en", "zh"}
    assert set(table["en"]) == set(table["zh"])
    assert table["zh"]["wifi"] == "WLAN" and "app_name" not in table["en"]  # bridge/apps.json


def test_every_literal_string_key_used_exists() -> None:
    keys = set(SettingsApp().strings("en"))  # the table, with app_name from bridge/apps.json
    sources = [p.read_text("utf-8") for p in (APP_DIR / "templates").glob("*.html")]
    sources += [p.read_text("utf-8") for p in APP_DIR.glob("*.py")]
    used = {k for text in sources for k in re.findall(r'\bt\("([a-z_0-9]+)"', text)}
    assert used, "the scan found no keys: the regex is broken"
    assert used <= keys, sorted(used - keys)


def test_icon_is_a_stroked_24px_svg() -> None:
    svg = SettingsApp().icon_svg()
    assert 'viewBox="0 0 24 24"' in svg
    assert 'stroke="currentColor"' in svg and 'fill="none"' in svg


def test_world_facts() -> None:
    world = SettingsApp().world
    assert world["about"]["model"] == "Redmi Note 12 Turbo"
    assert world["about"]["device"] == "marble"
    ssids = [n["ssid"] for n in world["wifi"]["networks"]]
    assert world["wifi"]["connected"] in ssids and len(set(ssids)) == len(ssids)
    assert world["bluetooth"]["paired"]


def test_label_and_identity() -> None:
    app = SettingsApp()
    assert (app.id, app.package_on("aosp")) == ("settings", "com.android.settings")
    assert app.label("en") == "Settings" and app.label("zh") == "设置"


# ---- pure rules


@pytest.mark.parametrize(
    ("frac", "level"), [(0.0, 0), (1.0, 255), (0.5, 128), (0.25, 64), (-0.3, 0), (1.7, 255)]
)
def test_brightness_from_frac(frac: float, level: int) -> None:
    assert model.brightness_from_frac(frac) == level


def test_ring_volume_from_frac_and_nan() -> None:
    assert [model.ring_volume_from_frac(f) for f in (0, 0.2, 1)] == [0, 3, 15]
    with pytest.raises(ValueError):
        model.value_from_frac(float("nan"), 15)


@pytest.mark.parametrize(
    ("ms", "label"),
    [
        (15_000, ("n_seconds", 15)),
        (60_000, ("one_minute", 1)),
        (1_800_000, ("n_minutes", 30)),
        (90_000, ("n_seconds", 90)),
    ],
)
def test_timeout_label(ms: int, label: tuple[str, int]) -> None:
    assert model.timeout_label(ms) == label


def test_choice_tables() -> None:
    assert model.TIMEOUT_CHOICES_MS == (
        15_000,
        30_000,
        60_000,
        120_000,
        300_000,
        600_000,
        1_800_000,
    )
    assert model.FONT_SCALES == {"small": 0.85, "default": 1.0, "large": 1.15, "largest": 1.3}
    assert model.RINGER_MODES == {"sound": 2, "vibrate": 1, "silent": 0}
    assert (model.night_mode_value(True), model.night_mode_value(False)) == (2, 1)
    assert (model.zen_mode_value(True), model.zen_mode_value(False)) == (1, 0)


def test_font_scale_name_and_locale_choice() -> None:
    assert model.font_scale_name("1.15") == "large"
    assert model.font_scale_name(1.1500000357627869) == "large"
    assert model.font_scale_name(1.05) is None and model.font_scale_name(None) is None
    assert model.locale_choice("zh-CN") == "zh-CN"
    assert model.locale_choice("zh-Hans-CN,en-US") == "zh-CN"
    assert model.locale_choice("en-GB") == "en-US"
    assert model.locale_choice("fr-FR") is None
    assert model.is_on("1") and not model.is_on("0") and not model.is_on(None)


# ---- rendering


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("path", sorted(PAGES))
def test_every_page_renders_and_only_uses_known_actions(phone: Phone, path: str, lang: str) -> None:
    html = phone.show(path, lang)
    actions = set(re.findall(r'data-action="([^"]+)"', html))
    assert actions, "a page without any action"
    unknown = {a for a in actions if not a.startswith("os:") and a not in phone.app.handlers}
    assert not unknown
    assert re.findall(r'data-scroll-key="([^"]+)"', html) == [
        "settings." + (path.strip("/").split("/")[-1] or "main")
    ]
    assert "None" not in html


def test_rendering_does_not_change_state(phone: Phone) -> None:
    phone.state.os.settings.pop("secure")
    for path in PAGES:
        phone.state.os.tasks[0].stack[-1] = Route(path=path)
        before = phone.state.model_dump()
        phone.app.render(phone.ctx)
        assert phone.state.model_dump() == before, path
    assert "settings" not in phone.state.apps


@pytest.mark.parametrize(
    ("path", "en", "zh"),
    [
        ("/", "Settings", "设置"),
        ("/wifi", "Wi-Fi", "WLAN"),
        ("/bluetooth", "Bluetooth", "蓝牙"),
        ("/mobile", "SIM cards &amp; mobile networks", "双卡与移动网络"),
        ("/display", "Display", "显示与亮度"),
        ("/display/timeout", "Screen timeout", "自动锁屏"),
        ("/display/font", "Font size", "字体大小"),
        ("/sound", "Sound", "声音与振动"),
        ("/language", "Languages", "语言"),
        ("/about", "About phone", "我的设备"),
    ],
)
def test_page_titles_in_both_languages(phone: Phone, path: str, en: str, zh: str) -> None:
    title = r'data-rid="title">([^<]*)<'
    assert re.search(title, phone.show(path, "en")).group(1) == en  # type: ignore[union-attr]
    assert re.search(title, phone.show(path, "zh")).group(1) == zh  # type: ignore[union-attr]


def test_sub_pages_have_a_localised_back_arrow_and_main_has_none(phone: Phone) -> None:
    assert 'data-action="os:back"' not in phone.show("/", "en")
    assert 'data-desc="Navigate up" data-action="os:back"' in phone.show("/wifi", "en")
    assert 'data-desc="转到上一层级" data-action="os:back"' in phone.show("/wifi", "zh")


def test_main_page_items(phone: Phone) -> None:
    html = phone.show("/", "en")
    for text in (
        "Wi-Fi",
        "HomeNet-5G",
        "Bluetooth",
        "Off",
        "Airplane mode",
        "Display",
        "Sound",
        "Languages",
        "English (United States)",
        "About phone",
        "Redmi Note 12 Turbo",
    ):
        assert f">{text}<" in html, text
    assert 'data-rid="wifi_settings" data-action="open" data-arg-page="/wifi"' in html
    assert 'data-rid="my_device" data-action="open" data-arg-page="/about"' in html
    assert switch_checked(html, "toggle_airplane") == "false"
    zh = phone.show("/", "zh")
    for text in (
        "WLAN",
        "蓝牙",
        "已关闭",
        "飞行模式",
        "双卡与移动网络",
        "简体中文（中国）",
        "我的设备",
    ):
        assert f">{text}<" in zh, text


# ---- navigation


def test_open_pushes_a_page_and_rejects_unknown_ones(phone: Phone) -> None:
    phone.tap("open", page="/display")
    phone.tap("open", page="/display/timeout")
    assert [r.path for r in phone.state.os.tasks[0].stack] == ["/", "/display", "/display/timeout"]
    with pytest.raises(SimError, match="not one of"):
        phone.tap("open", page="/nowhere")


def test_activity_for_each_route() -> None:
    app = SettingsApp()
    assert app.activity_for(Route(path="/")) == ".Settings"
    assert app.activity_for(Route(path="/wifi")) == ".wifi.WifiSettings"
    assert len({app.activity_for(Route(path=p)) for p in PAGES}) == len(PAGES)


def test_unknown_action_is_a_template_bug(phone: Phone) -> None:
    with pytest.raises(SimError, match="no handler"):
        phone.tap("explode")


# ---- airplane mode and radios


def test_airplane_on_remembers_and_switches_radios_off(phone: Phone) -> None:
    assert (phone.g["wifi_on"], phone.g["bluetooth_on"]) == (1, 0)
    phone.tap("toggle_airplane")
    assert phone.g["airplane_mode_on"] == 1
    assert (phone.g["wifi_on"], phone.g["bluetooth_on"], phone.g["mobile_data"]) == (0, 0, 1)
    assert (phone.g["wifi_saved_state"], phone.g["bluetooth_saved_state"]) == (1, 0)
    assert "settings" not in phone.state.apps  # remembered in Android settings, not the app
    html = phone.show("/", "en")
    assert switch_checked(html, "toggle_airplane") == "true"
    assert ">Unavailable in airplane mode<" in html
    assert ">飞行模式下不可用<" in phone.show("/", "zh")


def test_airplane_off_restores_only_what_was_on(phone: Phone) -> None:
    phone.tap("toggle_airplane")
    phone.tap("toggle_airplane")
    assert (phone.g["airplane_mode_on"], phone.g["wifi_on"], phone.g["bluetooth_on"]) == (0, 1, 0)
    assert "wifi_saved_state" not in phone.g and "bluetooth_saved_state" not in phone.g
    assert phone.app.view(phone.ctx.data) == {}
    phone.g.update(wifi_on=0, bluetooth_on=1)
    phone.tap("toggle_airplane")
    phone.tap("toggle_airplane")
    assert (phone.g["wifi_on"], phone.g["bluetooth_on"]) == (0, 1)


def test_radios_switched_in_airplane_mode_keep_the_users_choice(phone: Phone) -> None:
    phone.tap("toggle_airplane")
    phone.tap("toggle_bluetooth")  # on by hand during airplane mode
    assert phone.g["bluetooth_on"] == 1 and phone.g["airplane_mode_on"] == 1
    assert "bluetooth_saved_state" not in phone.g
    phone.tap("toggle_wifi")
    phone.tap("toggle_wifi")  # on then off again: the user wants it off
    assert "wifi_saved_state" not in phone.g
    phone.tap("toggle_airplane")
    assert (phone.g["airplane_mode_on"], phone.g["wifi_on"], phone.g["bluetooth_on"]) == (0, 0, 1)
    assert "settings" not in phone.state.apps


def test_setting_airplane_to_its_state_twice_keeps_the_remembered_radios(phone: Phone) -> None:
    phone.tap("toggle_airplane")
    radios.set_airplane(phone.state.os.settings, True)  # already on: nothing to redo
    assert (phone.g["wifi_saved_state"], phone.g["bluetooth_saved_state"]) == (1, 0)
    phone.tap("toggle_airplane")
    radios.set_airplane(phone.state.os.settings, False)  # already off: nothing to restore
    assert (phone.g["airplane_mode_on"], phone.g["wifi_on"]) == (0, 1)


def test_airplane_is_shared_with_the_shade(phone: Phone) -> None:
    radios.toggle_tile(phone.state.os.settings, "airplane")  # on from the shade
    html = phone.show("/")
    assert switch_checked(html, "toggle_airplane") == "true"
    phone.tap("toggle_airplane")  # off from Settings: what the shade remembered comes back
    assert (phone.g["airplane_mode_on"], phone.g["wifi_on"]) == (0, 1)
    assert "wifi_saved_state" not in phone.g


def test_plain_toggles_leave_no_app_overlay(phone: Phone) -> None:
    phone.tap("toggle_wifi")
    phone.tap("toggle_bluetooth")
    phone.tap("set_brightness", frac="0")
    assert (phone.g["wifi_on"], phone.g["bluetooth_on"]) == (0, 1)
    assert phone.app.on_back(phone.ctx) is False
    assert "settings" not in phone.state.apps


def test_airplane_set_by_setup_turns_off_without_restoring(phone: Phone) -> None:
    phone.g.update(airplane_mode_on=1, wifi_on=0, bluetooth_on=0)  # no *_saved_state keys
    phone.tap("toggle_airplane")
    assert (phone.g["airplane_mode_on"], phone.g["wifi_on"], phone.g["bluetooth_on"]) == (0, 0, 0)


def test_mobile_data_switch_is_disabled_in_airplane_mode(phone: Phone) -> None:
    phone.tap("toggle_mobile_data")
    assert phone.g["mobile_data"] == 0
    phone.tap("toggle_mobile_data")
    phone.tap("toggle_airplane")
    html = phone.show("/mobile")
    assert (
        'data-rid="mobile_data_enable" data-action="toggle_mobile_data" data-enabled="false"'
        in html
    )
    assert switch_checked(html, "mobile_data_enable") == "false"
    phone.tap("toggle_mobile_data")
    assert phone.g["mobile_data"] == 1


def test_wifi_page_lists_networks_only_when_on(phone: Phone) -> None:
    html = phone.show("/wifi")
    assert switch_checked(html, "wifi_enable") == "true"
    assert html.index(">HomeNet-5G<") < html.index(">HomeNet<")
    assert re.search(r">HomeNet-5G<.*?>Connected<", html, re.S)
    assert 'data-action="wifi_network" data-arg-ssid="CMCC-Free"' in html
    assert re.search(r">HomeNet-5G<.*?>已连接<", phone.show("/wifi", "zh"), re.S)
    phone.tap("toggle_wifi")
    off = phone.show("/wifi")
    assert switch_checked(off, "wifi_enable") == "false"
    assert "HomeNet" not in off and "Turn on Wi-Fi to see available networks." in off
    assert ">Off<" in phone.show("/")


def test_tapping_networks(phone: Phone) -> None:
    phone.tap("wifi_network", ssid="Neighbor_2F")
    assert phone.state.ui.toast == "Password required"
    assert "wifi_ssid" not in phone.ctx.data
    phone.state.ui.toast = None
    phone.tap("wifi_network", ssid="HomeNet-5G")  # already connected: nothing happens
    assert phone.state.ui.toast is None and "wifi_ssid" not in phone.ctx.data
    phone.tap("wifi_network", ssid="ChinaNet-Guest")
    assert phone.app.view(phone.ctx.data) == {"wifi_ssid": "ChinaNet-Guest"}
    assert phone.state.ui.toast == "Connected to ChinaNet-Guest"
    assert ">ChinaNet-Guest<" in phone.show("/")
    with pytest.raises(SimError, match="no network"):
        phone.tap("wifi_network", ssid="Nope")


def test_bluetooth_page(phone: Phone) -> None:
    html = phone.show("/bluetooth")
    assert switch_checked(html, "bluetooth_enable") == "false"
    assert "Redmi Buds 4 Pro" not in html
    phone.tap("toggle_bluetooth")
    assert phone.g["bluetooth_on"] == 1
    html = phone.show("/bluetooth", "zh")
    assert switch_checked(html, "bluetooth_enable") == "true"
    assert ">已配对的设备<" in html and ">Redmi Buds 4 Pro<" in html
    assert ">已开启<" in phone.show("/", "zh")


# ---- display


def test_brightness_slider(phone: Phone) -> None:
    phone.tap("set_brightness", frac="0.25")
    assert phone.s["screen_brightness"] == 64
    html = phone.show("/display")
    assert 'data-rid="brightness" data-slider="true" data-text="64.0"' in html
    assert ">25%<" in html
    phone.tap("set_brightness", frac="1")
    assert phone.s["screen_brightness"] == 255
    with pytest.raises(SimError, match="bad frac"):
        phone.tap("set_brightness", frac="left")
    with pytest.raises(SimError, match="no argument 'frac'"):
        phone.tap("set_brightness")


def test_dark_theme_switch(phone: Phone) -> None:
    assert switch_checked(phone.show("/display"), "dark_mode_display_enable") == "false"
    phone.tap("toggle_dark_theme")
    assert phone.state.os.settings["secure"]["ui_night_mode"] == 2
    assert switch_checked(phone.show("/display", "zh"), "dark_mode_display_enable") == "true"
    phone.tap("toggle_dark_theme")
    assert phone.state.os.settings["secure"]["ui_night_mode"] == 1


def test_screen_timeout(phone: Phone) -> None:
    html = phone.show("/display/timeout")
    assert radio_checked(html, "1 minute") == "true"
    assert 'data-action="set_timeout" data-arg-ms="30000"' in html
    phone.tap("set_timeout", ms="30000")
    assert phone.s["screen_off_timeout"] == 30_000
    assert radio_checked(phone.show("/display/timeout", "zh"), "30 秒") == "true"
    assert ">30 seconds<" in phone.show("/display")
    with pytest.raises(SimError, match="not one of"):
        phone.tap("set_timeout", ms="45000")


def test_font_size(phone: Phone) -> None:
    assert radio_checked(phone.show("/display/font"), "Default") == "true"
    phone.tap("set_font_scale", size="largest")
    assert phone.s["font_scale"] == 1.3
    assert radio_checked(phone.show("/display/font", "zh"), "最大") == "true"
    assert ">Largest<" in phone.show("/display")
    phone.s["font_scale"] = 1.05  # set by a task outside the list: shown as the number
    assert ">1.05<" in phone.show("/display")


# ---- sound and language


def test_sound_page(phone: Phone) -> None:
    phone.tap("set_ring_volume", frac="1.0")
    assert phone.s["volume_ring"] == 15
    html = phone.show("/sound")
    assert 'data-rid="ring_volume" data-slider="true" data-text="15.0"' in html
    assert switch_checked(html, "zen_mode") == "false"
    assert radio_checked(html, "Sound") == "true"
    phone.tap("toggle_dnd")
    assert phone.g["zen_mode"] == 1
    phone.g["zen_mode"] = 3  # alarms only reads as on; the switch turns it off
    assert switch_checked(phone.show("/sound"), "zen_mode") == "true"
    phone.tap("toggle_dnd")
    assert phone.g["zen_mode"] == 0
    phone.tap("set_ringer", mode="vibrate")
    assert phone.g["mode_ringer"] == 1
    assert radio_checked(phone.show("/sound", "zh"), "振动") == "true"
    phone.tap("set_ringer", mode="silent")
    assert phone.g["mode_ringer"] == 0


def test_language_switches_the_whole_ui(phone: Phone) -> None:
    phone.state.os.tasks[0].stack[-1] = Route(path="/language")
    html = phone.app.render(phone.ctx)
    assert radio_checked(html, "English (United States)") == "true"
    phone.tap("set_locale", locale="zh-CN")
    assert phone.s["system_locales"] == "zh-CN" and phone.ctx.lang == "zh"
    html = phone.app.render(phone.ctx)
    assert ">语言<" in html and radio_checked(html, "简体中文（中国）") == "true"
    with pytest.raises(SimError):
        phone.tap("set_locale", locale="fr-FR")


# ---- device name


def test_about_page_facts(phone: Phone) -> None:
    html = phone.show("/about")
    for text in (
        "Model",
        "Redmi Note 12 Turbo",
        "Android version",
        "14",
        "Build number",
        "Xiaomi HyperOS 1.0.6.0.UMRCNXM",
        "IMEI (SIM slot 2)",
        "Serial number",
    ):
        assert f">{text}<" in html, text
    assert 'data-rid="device_name" data-action="rename"' in html
    zh = phone.show("/about", "zh")
    assert ">设备名称<" in zh and ">型号<" in zh and ">Android 版本<" in zh


def test_rename_dialog_prefills_validates_and_saves(phone: Phone) -> None:
    phone.state.os.tasks[0].stack[-1] = Route(path="/about")
    phone.tap("rename")
    assert phone.ctx.field(DEVICE_NAME_FIELD) == "Redmi Note 12 Turbo"
    ui = phone.state.ui
    assert (ui.focus, ui.focus_submit, ui.keyboard_visible) == (
        DEVICE_NAME_FIELD,
        "rename_ok",
        True,
    )
    html = phone.app.render(phone.ctx)
    assert 'data-field="settings.device_name"' in html and 'data-submit="rename_ok"' in html
    assert ">Redmi Note 12 Turbo</div>" in html
    # Android's ids: positive button1, negative button2, whatever the on-screen order.
    assert re.search(r'data-rid="button2" data-action="rename_cancel">Cancel<', html)
    assert re.search(r'data-rid="button1" data-action="rename_ok">OK<', html)
    phone.ctx.set_field(DEVICE_NAME_FIELD, "   ")
    phone.tap("rename_ok")
    assert phone.ctx.data["dialog"] == "rename"
    assert phone.g["device_name"] == "Redmi Note 12 Turbo"
    assert ui.focus == DEVICE_NAME_FIELD and ui.keyboard_visible
    assert re.search(
        r'class="text error"[^>]*data-rid="error">Name can&#39;t be empty<',
        phone.app.render(phone.ctx),
    )
    phone.ctx.set_field(DEVICE_NAME_FIELD, "  Lab phone 7 ")
    phone.tap("rename_ok", kind="submit")
    assert phone.g["device_name"] == "Lab phone 7"
    assert "dialog" not in phone.ctx.data and "dialog_error" not in phone.ctx.data
    assert DEVICE_NAME_FIELD not in ui.fields
    assert (ui.focus, ui.focus_submit, ui.keyboard_visible) == (None, None, False)
    assert 'data-rid="parentPanel"' not in phone.app.render(phone.ctx)
    assert phone.app.view(phone.ctx.data) == {}


def test_rename_cancel_discards_the_draft(phone: Phone) -> None:
    phone.tap("rename")
    phone.ctx.set_field(DEVICE_NAME_FIELD, "Other")
    phone.tap("rename_cancel")
    assert phone.g["device_name"] == "Redmi Note 12 Turbo"
    assert "dialog" not in phone.ctx.data and DEVICE_NAME_FIELD not in phone.state.ui.fields
    assert phone.state.ui.focus is None and not phone.state.ui.keyboard_visible


def test_rename_from_bluetooth_page_in_chinese(phone: Phone) -> None:
    phone.show("/bluetooth", "zh")
    phone.tap("rename")
    html = phone.app.render(phone.ctx)
    assert ">确定<" in html and ">取消<" in html and 'data-action="rename_cancel"' in html
    phone.ctx.set_field(DEVICE_NAME_FIELD, "")
    phone.tap("rename_ok")
    assert ">名称不能为空<" in phone.app.render(phone.ctx)


def test_back_closes_the_dialog_first(phone: Phone) -> None:
    phone.state.os.tasks[0].stack[-1] = Route(path="/about")
    assert phone.app.on_back(phone.ctx) is False
    phone.tap("rename")
    assert phone.app.on_back(phone.ctx) is True
    assert "dialog" not in phone.ctx.data and phone.path == "/about"
    assert phone.state.ui.focus is None and not phone.state.ui.keyboard_visible
    assert phone.app.on_back(phone.ctx) is False


def test_view_leaves_ui_state_out() -> None:
    app = SettingsApp()
    assert app.view({"dialog": "rename", "dialog_error": "name_empty"}) == {}
    assert app.view({"dialog": "rename", "wifi_ssid": "CMCC-Free"}) == {"wifi_ssid": "CMCC-Free"}
