"""The synthetic apps of :mod:`tests.sim.launcher_fixture` (see there)."""

from __future__ import annotations

from bridge.app_catalog import AppIdentity
from sim.app import App, AppContext
from sim.launcher import APP_COLORS, LauncherEntry

SYNTHETIC: tuple[tuple[str, str, str, tuple[str, ...]], ...] = (
    ("x_weather", "Weather", "天气", ("forecast", "天气预报")),
    ("x_music", "Music", "音乐", ("songs", "player")),
    ("x_maps", "Maps", "地图", ("navigation", "导航")),
    ("x_calculator", "Calculator", "计算器", ("calc",)),
    ("x_recorder", "Recorder", "录音机", ("voice memo", "录音")),
    ("x_browser", "Browser", "浏览器", ("web", "internet")),
    ("x_wallet", "Wallet", "钱包", ("pay", "支付")),
    ("x_books", "Books", "读书", ("reader", "ebook")),
    ("x_podcasts", "Podcasts", "播客", ()),
    ("x_fitness", "Fitness", "健身", ("workout", "运动")),
    ("x_translate", "Translate", "翻译", ()),
    ("x_compass", "Compass", "指南针", ()),
    ("x_scanner", "Scanner", "扫一扫", ("qr code", "二维码")),
    ("x_video", "Video", "视频", ("movies", "player")),
    ("x_radio", "Radio", "收音机", ("fm",)),
    ("x_mail", "Mail", "邮件", ("email", "电子邮件")),
    ("x_bank", "Bank", "银行", ("banking",)),
    ("x_shop", "Shop", "商城", ("store", "购物")),
    ("x_taxi", "Taxi", "打车", ("ride", "cab")),
    ("x_cafe", "Café Finder", "咖啡地图", ("coffee",)),
    ("x_health", "Health", "健康", ()),
    ("x_magnifier", "Magnifier", "放大镜", ("zoom",)),
    ("x_flashlight", "Flashlight", "手电筒", ("torch",)),
    ("x_themes", "Themes", "主题", ("wallpaper", "壁纸")),
    ("x_security", "Security", "安全中心", ("antivirus",)),
    ("x_downloads", "Downloads", "下载", ()),
    ("x_journal", "Journal", "日记", ("diary",)),
    ("x_stocks", "Stocks", "股票", ()),
    ("x_games", "Game Center", "游戏中心", ("games",)),
    ("x_2048", "2048", "2048", ()),
)
"""Thirty made-up apps: id, English name, Chinese name, aliases."""


def synthetic_entries(lang: str = "en", count: int = len(SYNTHETIC)) -> list[LauncherEntry]:
    """The first ``count`` synthetic apps as launcher entries labelled in ``lang`` (the
    other language's name among the aliases, as for a real app)."""
    entries = []
    for index, (app_id, en, zh, aliases) in enumerate(SYNTHETIC[:count]):
        label, other = (zh, en) if lang == "zh" else (en, zh)
        names = tuple(dict.fromkeys(n for n in (other, *aliases) if n != label))
        color = APP_COLORS[index % len(APP_COLORS)]
        entries.append(LauncherEntry(id=app_id, label=label, color=color, aliases=names))
    return entries


class SyntheticApp(App):
    """A one-screen app whose identity is given, not looked up in ``bridge/apps.json``."""

    id = "x_synthetic"
    made_up: AppIdentity

    @property
    def identity(self) -> AppIdentity:
        """The made-up identity of this app."""
        return self.made_up

    def render(self, ctx: AppContext) -> str:
        """A title bar with the app's name."""
        return ctx.render("screen.html", label=self.label(ctx.lang))


def synthetic_apps(count: int = len(SYNTHETIC)) -> list[App]:
    """The first ``count`` synthetic apps, installable (one subclass each: an app's id is
    its class's)."""
    apps: list[App] = []
    for app_id, en, zh, aliases in SYNTHETIC[:count]:
        identity = AppIdentity(
            id=app_id,
            names={"en": en, "zh": zh},
            aliases=list(aliases),
            packages={"aosp": f"com.example.{app_id.removeprefix('x_')}"},
            activity=".MainActivity",
        )
        attrs = {"__module__": __name__, "id": app_id, "made_up": identity}
        apps.append(type(f"Synthetic_{app_id}", (SyntheticApp,), attrs)())
    return apps
