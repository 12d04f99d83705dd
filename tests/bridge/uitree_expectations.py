"""Facts about the 24 real dumps in tests/fixtures/real_dumps, looked up independently.

Counts come from ``xml.etree.ElementTree`` (``root.iter('node')``, children of
``<hierarchy>``) and agree with SOURCES.md; each field was read off the file by hand. Node
ids are document order, as in :mod:`bridge.uitree`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class DumpFacts:
    """What a parser must find in one dump."""

    nodes: int
    windows: int
    rotation: int
    packages: frozenset[str]
    # (node id, UINode field, value); "bounds_px" values are (l, t, r, b).
    fields: tuple[tuple[int, str, object], ...] = field(default=())


def _p(*names: str) -> frozenset[str]:
    return frozenset(names)


SYSTEMUI = "com.android.systemui"
TIKTOK_DESC = "מנסה לחזור קצת לשגרה בתוך כל הטירוף הזה #foryou…" + "\ufeff" * 34

DUMPS: dict[str, DumpFacts] = {
    "02_douyin_feed_1080x2032.xml": DumpFacts(
        90,
        1,
        0,
        _p("com.ss.android.ugc.aweme"),
        (
            (21, "text", "关注"),
            (21, "class_name", "android.widget.Button"),
            (15, "content_desc", "修改主页背景图"),
            (20, "extra", {"NAF": "true"}),
            (20, "resource_id", "com.ss.android.ugc.aweme:id/aw9"),
            (89, "bounds_px", (0, 0, 0, 0)),
        ),
    ),
    "03_oppo_watch_round_466x466.xml": DumpFacts(
        12,
        1,
        0,
        _p("com.lightningstudio.watchrss"),
        (
            (7, "text", "科技爱好者周刊（第 3\n79 期）：《硅谷钢铁侠》摘录"),
            (7, "extra", {"drawing-order": "1"}),
            (8, "resource_id", "com.lightningstudio.watchrss:id/button_open"),
            (8, "bounds_px", (195, 184, 271, 212)),
            (8, "clickable", True),
        ),
    ),
    "04_android_tv_gimy_1920x1080.xml": DumpFacts(
        81,
        1,
        0,
        _p("com.gimytv.horror"),
        ((11, "text", " 鬼魅劇場"), (17, "text", "熱門推薦"), (17, "clickable", True)),
    ),
    "06_kakaotalk_1080x2340.xml": DumpFacts(
        153,
        1,
        0,
        _p("com.kakao.talk"),
        (
            (17, "content_desc", "뒤로"),
            (17, "class_name", "android.widget.ImageButton"),
            (22, "resource_id", "com.kakao.talk:id/toolbar_default_title_text"),
            (40, "text", "환영합니다. '의운모' 오픈채팅방입니다."),
        ),
    ),
    "08_tablet_rotation3_1600x2560.xml": DumpFacts(
        50,
        1,
        3,
        _p("com.audiometry.threshold"),
        (
            (20, "text", "Learn more"),
            (20, "resource_id", "com.audiometry.threshold:id/btnLearnMore"),
            (20, "bounds_px", (1392, 204, 1568, 268)),
        ),
    ),
    "09_vivo_launcher_home_720x1608.xml": DumpFacts(
        98,
        1,
        0,
        _p("com.bbk.launcher2", "com.vivo.appsuggestion"),
        ((18, "content_desc", "微信"), (18, "package", "com.vivo.appsuggestion")),
    ),
    "10_transsion_xos_launcher_drawer.xml": DumpFacts(
        45,
        1,
        0,
        _p("com.transsion.XOSLauncher"),
        ((12, "text", "Search Apps"), (23, "text", "Phone"), (23, "content_desc", "Phone")),
    ),
    "11_bluestacks_rotation1_portrait_bounds.xml": DumpFacts(
        126,
        1,
        1,
        _p("net.spotlightlabs.spotlight"),
        (
            (36, "text", "Following"),
            (36, "resource_id", "net.spotlightlabs.spotlight:id/followBtn"),
            (36, "bounds_px", (24, 319, 840, 391)),
        ),
    ),
    "13_nova_launcher_tablet_landscape_widgets.xml": DumpFacts(
        89,
        1,
        1,
        _p(
            "com.teslacoilsw.launcher",
            "com.arlosoft.macrodroid",
            "com.yahoo.mobile.client.android.weather",
            "com.android.chrome",
        ),
        ((24, "text", "정읍시"), (24, "package", "com.yahoo.mobile.client.android.weather")),
    ),
    "15_aosp_launcher3_1080x1776.xml": DumpFacts(
        29,
        1,
        0,
        _p("com.android.launcher3", "com.android.quicksearchbox"),
        (
            (12, "text", "Clock"),
            (12, "bounds_px", (540, 581, 786, 874)),
            (12, "long_clickable", True),
            (5, "scrollable", True),
            (5, "focused", True),
        ),
    ),
    "16_huawei_calendar_freeform_xpos.xml": DumpFacts(
        115,
        1,
        0,
        _p("com.huawei.calendar"),
        (
            (0, "bounds_px", (800, 624, 1520, 2064)),
            (35, "class_name", "android.widget.AutoCompleteTextView"),
            (35, "text", "标题"),
            (35, "editable", True),
            (35, "extra", {"xpos": "[0,0][0,0]"}),
        ),
    ),
    "17_facebook_u2_multiwindow_pretty.xml": DumpFacts(
        104,
        3,
        0,
        _p("com.facebook.katana", SYSTEMUI),
        (
            (0, "extra", {"drawing-order": "0"}),
            (26, "content_desc", "Add friend"),
            (60, "bounds_px", (159, 1547, 159, 1547)),
            (76, "text", "2:06"),
            (76, "content_desc", "2:06 PM"),
            (76, "resource_id", "com.android.systemui:id/clock"),
        ),
    ),
    "19_ths_stock_u2_display_id_720x1280.xml": DumpFacts(
        239,
        2,
        0,
        _p("com.hexin.plat.android", SYSTEMUI),
        (
            (0, "package", SYSTEMUI),
            (7, "content_desc", "下午3:24"),
            (7, "extra", {"drawing-order": "2", "display-id": "0"}),
        ),
    ),
    "20_miui_home_app_drawer_1200x2670.xml": DumpFacts(
        75,
        1,
        0,
        _p("com.miui.home"),
        (
            (70, "hint", "Uygulama ara"),
            (70, "editable", True),
            (70, "resource_id", "com.miui.home:id/search_bar_input"),
            (70, "extra", {"drawing-order": "2"}),
        ),
    ),
    "22_tiktok_480x568.xml": DumpFacts(
        141,
        1,
        0,
        _p("com.zhiliaoapp.musically"),
        (
            (93, "text", TIKTOK_DESC),
            (117, "text", "Add comment..."),
            (117, "editable", True),
            (46, "content_desc", "Follow Alma\u2002Rene"),
        ),
    ),
    "23_avito_search_gboard_keyboard_u2.xml": DumpFacts(
        323,
        3,
        0,
        _p("com.avito.android", "com.google.android.inputmethod.latin", SYSTEMUI),
        (
            (41, "text", "Недвижи-\nмость"),
            (82, "text", "littlest pet shop"),
            (82, "focused", True),
            (82, "editable", True),
            (231, "content_desc", "q"),
        ),
    ),
    "24_samsung_gallery_landscape.xml": DumpFacts(
        66,
        1,
        1,
        _p("com.sec.android.gallery3d"),
        ((33, "text", "Bratislava & Bratislavský kraj"), (65, "bounds_px", (0, 0, 0, 0))),
    ),
    "26_pixel_launcher_widgets_1344x2992.xml": DumpFacts(
        101,
        1,
        0,
        _p(
            "com.google.android.apps.nexuslauncher",
            "org.breezyweather",
            "com.pixel.intelligentsearch",
            "com.appslab.materialyou.widgetspro",
            "rk.android.app.lockscreen",
        ),
        ((17, "text", "Tomorrow 82°F / 67°F"), (17, "hint", "")),
    ),
    "27_samsung_oneui_launcher_1080x2178.xml": DumpFacts(
        67,
        1,
        0,
        _p("com.sec.android.app.launcher"),
        ((18, "text", "AT&T Smart Wi-Fi"), (22, "text", "Audio\xadmack")),
    ),
    "29_kbank_thai_1440x3120.xml": DumpFacts(
        166,
        1,
        0,
        _p("com.kasikorn.retail.mbanking.wap"),
        ((21, "text", "หน้าแรก"), (14, "content_desc", "Banking")),
    ),
    "31_google_messages_720x1536.xml": DumpFacts(
        110,
        1,
        0,
        _p("com.google.android.apps.messaging"),
        ((32, "text", "Hiii"), (32, "resource_id", "message_text")),
    ),
    "32_settings_app_permissions_pixel.xml": DumpFacts(
        43,
        1,
        0,
        _p("com.android.settings"),
        (
            (20, "text", "Phone"),
            (19, "clickable", True),
            (19, "bounds_px", (0, 1520, 1080, 1724)),
            (42, "text", "Display over other apps"),
        ),
    ),
    "34_coloros_launcher_clock_widget.xml": DumpFacts(
        46,
        1,
        0,
        _p("com.android.launcher", "com.coloros.alarmclock"),
        ((12, "text", "16"), (18, "text", "20\u200e°\u200e")),
    ),
    "36_systemui_quick_settings_320x439.xml": DumpFacts(
        104,
        1,
        0,
        _p(SYSTEMUI),
        (
            (12, "class_name", "android.widget.SeekBar"),
            (12, "text", "屏幕亮度"),
            (15, "checkable", True),
            (15, "checked", True),
            (15, "content_desc", "互联网,zxgj_5G"),
        ),
    ),
}
