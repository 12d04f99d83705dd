"""The app gallery: every simulated app's main screens, in every language, checked.

Each app names its screens (:meth:`sim.app.App.gallery_screens`, recipes of a route, its
params, overlay and drafts, and actions run through the app's own handlers); the system UI
adds the home screen, the all-apps drawer, the quick-settings shade and recents (and, in a
skin with one, the Control Center apart from the shade), reached by the page events a
finger would send. Every screen is put on a fresh instance with the
system language set (``system.system_locales``), rendered on the simulator's own page
pool (Chromium, the same path a step takes), photographed, its UI tree read, and checked
(:mod:`sim.gallery_checks`): string keys or English shown instead of translations, text
that overflows its box, CJK drawn as missing-glyph boxes. :func:`write_gallery_page` lays
the result out as one HTML page (``sim/templates/gallery_page.html``).

Example::

    async with Simulator() as sim:
        report = await render_gallery(sim, Path("out/gallery"))
    page = write_gallery_page(report)
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache, partial
from importlib import resources
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from sim.app import GalleryScreen
from sim.errors import SimError
from sim.gallery_checks import (
    CheckName,
    Problem,
    StringTables,
    probe_problems,
    probe_texts,
    tree_texts,
    untranslated_problems,
)
from sim.observe import page_nodes
from sim.pages import PooledPage
from sim.phone import ActionEvent, EdgeEvent, Phone
from sim.pickers.formats import picker_strings
from sim.render import page_template
from sim.screen import system_strings
from sim.simulator import SimConfig, Simulator
from sim.skins import DEFAULT_SKIN, SKINS, check_skin, has_control_center, system_ui_of
from sim.state import InstanceState

__all__ = [
    "LOCALES",
    "SYSTEM",
    "GalleryReport",
    "GallerySection",
    "GalleryShot",
    "ScreenResult",
    "SystemScreen",
    "check_screen",
    "measure",
    "render_gallery",
    "run_gallery",
    "screen_state",
    "string_tables",
    "system_screens",
    "write_gallery_page",
]

LOCALES = {"en": "en-US", "zh": "zh-CN"}
"""The gallery's languages and the ``system.system_locales`` value that selects each."""
SYSTEM = "system"
"""The section id of the system UI's screens (home, drawer, shade, recents, and a skin's
Control Center)."""
_TOLERANCE_PX = 1
"""How far (CSS px) text may pass its box: layout rounds to fractions of a pixel."""
_MAX_CJK_CHARS = 600


class GalleryShot(BaseModel):
    """One screen in one language: its screenshot (relative to the gallery's folder) and
    what the checks found on it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    lang: str
    screenshot: str
    nodes: int
    problems: list[Problem] = Field(default_factory=list)


class ScreenResult(BaseModel):
    """One named screen of an app, shot in every language."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    title: str
    route: str
    """How the screen was reached (route, params, actions), for a person to read."""
    shots: list[GalleryShot]


class GallerySection(BaseModel):
    """An app (or the system UI) and its screens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    app: str
    label: str
    package: str
    screens: list[ScreenResult]
    skin: str = DEFAULT_SKIN
    """How the phone looked (:mod:`sim.skins`); ``app`` is ``<app>@<skin>`` in a skin
    other than AOSP's."""

    @property
    def problem_count(self) -> int:
        """Problems on every shot of the section."""
        return sum(len(shot.problems) for screen in self.screens for shot in screen.shots)


class GalleryReport(BaseModel):
    """What :func:`render_gallery` made: every section, where the files are, the size of
    the screenshots."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    out: Path
    langs: list[str]
    width_px: int
    height_px: int
    sections: list[GallerySection]

    @property
    def screen_count(self) -> int:
        """Named screens (each shot once per language)."""
        return sum(len(section.screens) for section in self.sections)

    @property
    def shot_count(self) -> int:
        """Screenshots taken."""
        return sum(len(screen.shots) for section in self.sections for screen in section.screens)

    def problems(self) -> Iterator[tuple[str, str, str, Problem]]:
        """Every problem as (section id, screen name, language, problem)."""
        for section in self.sections:
            for screen in section.screens:
                for shot in screen.shots:
                    for problem in shot.problems:
                        yield section.app, screen.name, shot.lang, problem

    def counts(self) -> dict[CheckName, int]:
        """Problems per check."""
        counts: dict[CheckName, int] = {"untranslated": 0, "overflow": 0, "cjk": 0}
        for *_, problem in self.problems():
            counts[problem.check] += 1
        return counts

    @property
    def passed(self) -> bool:
        """Whether no check found anything."""
        return next(self.problems(), None) is None


@dataclass(frozen=True)
class SystemScreen:
    """A screen of the system UI, the page events that reach it from the home screen, and
    how a person would get there."""

    screen: GalleryScreen
    events: tuple[ActionEvent | EdgeEvent, ...]
    how: str


def system_screens(phone: Phone, skin: str = DEFAULT_SKIN) -> tuple[SystemScreen, ...]:
    """Home, the all-apps drawer, the shade, and recents with every app started once; on a
    skin with a Control Center (HyperOS), the shade is the notifications (a pull on the
    status bar's left half) and the Control Center (its right half) follows."""
    launches = tuple(ActionEvent(action="os:launch", args={"app": app}) for app in phone.apps)
    if has_control_center(skin):
        shade = SystemScreen(
            GalleryScreen(name="shade", title="Notification shade"),
            (EdgeEvent(edge="top", x=0.25),),
            "swipe down from the top edge, left half",
        )
        extra: tuple[SystemScreen, ...] = (
            SystemScreen(
                GalleryScreen(name="control-center", title="Control Center"),
                (EdgeEvent(edge="top", x=0.75),),
                "swipe down from the top edge, right half",
            ),
        )
    else:
        shade = SystemScreen(
            GalleryScreen(name="shade", title="Quick settings"),
            (EdgeEvent(edge="top"),),
            "swipe down from the top edge",
        )
        extra = ()
    return (
        SystemScreen(GalleryScreen(name="home", title="Home screen"), (), "HOME"),
        SystemScreen(
            GalleryScreen(name="all-apps", title="All apps"),
            (ActionEvent(action="os:all_apps"),),
            "HOME → swipe up",
        ),
        shade,
        SystemScreen(
            GalleryScreen(name="recents", title="Recents"),
            (*launches, ActionEvent(action="os:recents")),
            "open every app → RECENTS",
        ),
        *extra,
    )


def _fresh_state(lang: str, skin: str = DEFAULT_SKIN) -> InstanceState:
    if lang not in LOCALES:
        raise SimError(f"the gallery has no language {lang!r}; it has {', '.join(LOCALES)}")
    state = InstanceState(seed=0)
    state.os.settings["system"]["system_locales"] = LOCALES[lang]
    state.os.skin = check_skin(skin)
    return state


def screen_state(
    phone: Phone, app_id: str, recipe: GalleryScreen, lang: str, skin: str = DEFAULT_SKIN
) -> InstanceState:
    """A fresh phone in ``lang`` and ``skin`` showing ``recipe`` of ``app_id`` (see
    :class:`~sim.app.GalleryScreen` for the order things are applied in)."""
    state = _fresh_state(lang, skin)
    phone.launch(state, app_id)
    ctx = phone.context(state, app_id)
    if recipe.path != "/":
        ctx.navigate(recipe.path, **copy.deepcopy(recipe.params))
    elif recipe.params:
        ctx.replace("/", **copy.deepcopy(recipe.params))
    overlay = {**recipe.overlay, **recipe.localized.get(lang, {})}
    if overlay:
        ctx.data.update(copy.deepcopy(overlay))
    state.ui.fields.update(recipe.fields)
    for action in recipe.actions:
        phone.apply(state, ActionEvent(action=action.action, args=dict(action.args)))
    return state


def _system_state(
    phone: Phone, screen: SystemScreen, lang: str, skin: str = DEFAULT_SKIN
) -> InstanceState:
    state = _fresh_state(lang, skin)
    for event in screen.events:
        phone.apply(state, event)
    return state


def string_tables(phone: Phone) -> StringTables:
    """Every strings table the phone's screens show from: each app's (its name included),
    the system UI's and the pickers'."""
    tables = {
        f"{app_id}/strings.json": {lang: app.strings(lang) for lang in LOCALES}
        for app_id, app in phone.apps.items()
    }
    for skin in SKINS:  # a skin's own words (HyperOS's "Sleep", "WLAN") are strings too
        if skin != DEFAULT_SKIN:
            tables |= {
                f"{app_id}@{skin}/strings.json": {lang: app.strings(lang, skin) for lang in LOCALES}
                for app_id, app in phone.apps.items()
            }
    tables["system_strings.json"] = {lang: system_strings(lang) for lang in LOCALES}
    tables["pickers/strings.json"] = {lang: picker_strings(lang) for lang in LOCALES}
    return StringTables(tables)


def _route(recipe: GalleryScreen) -> str:
    """``/event {"id": 12} · typed … · overlay … → edit{"id": "12"}``: how the screen is
    reached, for a person to read."""
    dump = partial(json.dumps, ensure_ascii=False, sort_keys=True)
    parts = [recipe.path + (f" {dump(recipe.params)}" if recipe.params else "")]
    if recipe.fields:
        parts.append("typed " + ", ".join(f"{k}={v!r}" for k, v in recipe.fields.items()))
    overlay = sorted(
        {*recipe.overlay, *(k for values in recipe.localized.values() for k in values)}
    )
    if overlay:
        parts.append("overlay " + ", ".join(overlay))
    steps = [a.action + (dump(a.args) if a.args else "") for a in recipe.actions]
    return " → ".join([" · ".join(parts), *steps])


@cache
def _probe_script() -> str:
    return resources.files("sim").joinpath("static").joinpath("gallery_probe.js").read_text("utf-8")


async def measure(pooled: PooledPage, lang: str, tables: StringTables) -> tuple[int, list[Problem]]:
    """Check what ``pooled`` shows now (its UI tree and the probe's measurements); its node
    count and problems (see :mod:`sim.gallery_checks`)."""
    nodes = await page_nodes(pooled)
    opts = {"tolerance": _TOLERANCE_PX, "cjk": True, "maxChars": _MAX_CJK_CHARS}
    probe = json.loads(await pooled.page.evaluate(_probe_script(), opts))
    dpr = pooled.profile.dpr
    texts = [*tree_texts(nodes), *probe_texts(probe, dpr)]
    return len(nodes), untranslated_problems(texts, lang, tables) + probe_problems(probe, dpr)


async def check_screen(
    sim: Simulator, state: InstanceState, lang: str, tables: StringTables
) -> tuple[bytes, int, list[Problem]]:
    """Render ``state`` on a page of ``sim``'s pool as a step would; its screenshot, node
    count and problems (:func:`measure`)."""
    instance = sim.create_instance(state=state)
    config = sim.config
    try:
        async with sim.pool.page() as pooled:
            await pooled.show(instance)
            image = await pooled.screenshot(config.image_format, config.jpeg_quality)
            nodes, problems = await measure(pooled, lang, tables)
    finally:
        sim.drop_instance(instance.id)
    return image, nodes, problems


@dataclass(frozen=True)
class _Plan:
    """One screen to shoot: its recipe, how it is reached, and the state it shows."""

    recipe: GalleryScreen
    route: str
    state: Callable[[str], InstanceState]


@dataclass(frozen=True)
class _Section:
    app: str
    label: str
    package: str
    skin: str
    plans: list[_Plan]


def _section_id(name: str, skin: str) -> str:
    """``settings`` in AOSP's skin, ``settings@hyperos`` in another."""
    return name if skin == DEFAULT_SKIN else f"{name}@{skin}"


def _label(label: str, skin: str) -> str:
    return label if skin == DEFAULT_SKIN else f"{label} · {SKINS[skin].system}"


def _app_section(phone: Phone, app_id: str, skin: str = DEFAULT_SKIN) -> _Section:
    app = phone.app(app_id)
    recipes = (*app.gallery_screens(), *app.skin_gallery_screens(skin))
    names = [recipe.name for recipe in recipes]
    if len(set(names)) != len(names):
        raise SimError(f"{app_id}: gallery screens share a name: {names}")
    plans = [
        _Plan(recipe, _route(recipe), partial(screen_state, phone, app_id, recipe, skin=skin))
        for recipe in recipes
    ]
    section = _section_id(app.id, skin)
    return _Section(section, _label(app.label("en"), skin), app.package_on(skin), skin, plans)


def _system_section(phone: Phone, skin: str = DEFAULT_SKIN) -> _Section:
    plans = [
        _Plan(system.screen, system.how, partial(_system_state, phone, system, skin=skin))
        for system in system_screens(phone, skin)
    ]
    package = system_ui_of(skin)
    return _Section(_section_id(SYSTEM, skin), _label("System UI", skin), package, skin, plans)


async def render_gallery(
    sim: Simulator,
    out: Path,
    langs: Sequence[str] = tuple(LOCALES),
    apps: Sequence[str] | None = None,
    on_shot: Callable[[str], None] | None = None,
    skins: Sequence[str] = tuple(SKINS),
) -> GalleryReport:
    """Shoot and check every gallery screen of ``apps`` (default: every installed app and
    then the system UI, :data:`SYSTEM`) in every language of ``langs`` and every skin of
    ``skins`` (a section per app and skin), on ``sim``'s page pool; screenshots go to
    ``out/screens/``. ``on_shot`` hears ``app/screen/lang`` as each shot is done."""
    wanted = [*sim.phone.apps, SYSTEM] if apps is None else list(apps)
    for skin in skins:
        check_skin(skin)  # an unknown skin fails before any work
    plan = [
        _system_section(sim.phone, skin) if name == SYSTEM else _app_section(sim.phone, name, skin)
        for skin in skins
        for name in wanted
    ]
    for lang in langs:
        _fresh_state(lang)  # an unknown language fails before any work
    (out / "screens").mkdir(parents=True, exist_ok=True)
    tables = string_tables(sim.phone)
    extension = "jpg" if sim.config.image_format == "jpeg" else "png"

    async def shoot(section: _Section, screen: _Plan, lang: str) -> GalleryShot:
        image, nodes, problems = await check_screen(sim, screen.state(lang), lang, tables)
        name = f"screens/{section.app}-{screen.recipe.name}-{lang}.{extension}"
        (out / name).write_bytes(image)
        if on_shot is not None:
            on_shot(f"{section.app}/{screen.recipe.name}/{lang}")
        return GalleryShot(lang=lang, screenshot=name, nodes=nodes, problems=problems)

    async def shoot_all(section: _Section, screen: _Plan) -> ScreenResult:
        shots = await asyncio.gather(*(shoot(section, screen, lang) for lang in langs))
        recipe = screen.recipe
        return ScreenResult(name=recipe.name, title=recipe.title, route=screen.route, shots=shots)

    async def section_of(section: _Section) -> GallerySection:
        screens = await asyncio.gather(*(shoot_all(section, screen) for screen in section.plans))
        return GallerySection(
            app=section.app,
            label=section.label,
            package=section.package,
            skin=section.skin,
            screens=screens,
        )

    sections = await asyncio.gather(*(section_of(section) for section in plan))
    profile = sim.config.profile
    return GalleryReport(
        out=out,
        langs=list(langs),
        width_px=profile.width_px,
        height_px=profile.height_px,
        sections=sections,
    )


async def run_gallery(
    out: Path,
    langs: Sequence[str] = tuple(LOCALES),
    apps: Sequence[str] | None = None,
    pages: int = 4,
    on_shot: Callable[[str], None] | None = None,
    skins: Sequence[str] = tuple(SKINS),
) -> GalleryReport:
    """Start a simulator (``pages`` Chromium pages), :func:`render_gallery` with it and
    :func:`write_gallery_page`."""
    async with Simulator(SimConfig(pages=pages, serve_env_api=False)) as sim:
        report = await render_gallery(sim, out, langs, apps, on_shot, skins)
    write_gallery_page(report)
    return report


def write_gallery_page(report: GalleryReport) -> Path:
    """Write ``index.html`` into the gallery's folder (next to its ``screens/``)."""
    page = page_template("gallery_page.html").render(r=report, counts=report.counts())
    path = report.out / "index.html"
    path.write_text(page, encoding="utf-8")
    return path
