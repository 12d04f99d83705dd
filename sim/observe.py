"""Turning what a page shows into a bridge Observation: screenshot, UI tree, foreground.

The tree comes from the page runtime (the widgets' data-* attributes, bounds from real
layout) and is the same tree ``uiautomator`` would dump: invisible nodes are left out,
bounds are device pixels clipped to the screen and to scroll containers.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from bridge.app_catalog import app_catalog
from bridge.schema import (
    BackendInfo,
    Foreground,
    Observation,
    Screenshot,
    ScreenSpec,
    UINode,
    UIStatus,
)
from sim.instance import Instance
from sim.pages import PooledPage, SimProfile
from sim.phone import Phone
from sim.skins import home_of
from sim.state import InstanceState

__all__ = [
    "ImageFormat",
    "foreground",
    "foreground_of",
    "observe",
    "tree_nodes",
]

ImageFormat = Literal["jpeg", "png"]


def tree_nodes(raw: list[dict[str, Any]]) -> list[UINode]:
    """UINodes from the runtime's node dicts (document order, parents first)."""
    return [
        UINode(
            id=node["id"],
            parent=node["parent"],
            index=node["index"],
            class_name=node["class_name"],
            text=node["text"],
            content_desc=node["content_desc"],
            resource_id=node["resource_id"],
            hint=node["hint"],
            package=node["package"],
            bounds_px=tuple(node["bounds_px"]),
            checkable=node["checkable"],
            checked=node["checked"],
            clickable=node["clickable"],
            long_clickable=node["long_clickable"],
            editable=node["editable"],
            focusable=node["focusable"],
            focused=node["focused"],
            scrollable=node["scrollable"],
            enabled=node["enabled"],
            selected=node["selected"],
            password=node["password"],
        )
        for node in raw
    ]


async def page_nodes(pooled: PooledPage) -> list[UINode]:
    """The UI tree the page shows now, as uiautomator would dump it."""
    return tree_nodes(json.loads(await pooled.tree_json()))


def foreground(instance: Instance) -> Foreground:
    """Our app id, its package, activity and route (the launcher when no app is in front)."""
    return foreground_of(instance.phone, instance.state)


def foreground_of(phone: Phone, state: InstanceState) -> Foreground:
    """:func:`foreground` of a state, for readers that hold no :class:`Instance`."""
    if state.os.foreground is None:
        home = home_of(state.os.skin)
        return Foreground(app=None, package=home.package, activity=home.activity)
    app, skin, route = phone.app(state.os.foreground), state.os.skin, state.os.route
    activity = app.activity_for(route, skin) if route is not None else app.launcher_activity(skin)
    package = app.package_for(route, skin)
    if package != app.package_on(skin):  # a page another package shows: a phone names that
        return Foreground(app=app_catalog().by_package(package), package=package, activity=activity)
    return Foreground(app=app.id, package=package, activity=activity)


async def observe(
    pooled: PooledPage,
    instance: Instance,
    profile: SimProfile,
    *,
    screenshot: bool = True,
    image_format: ImageFormat = "jpeg",
    quality: int = 80,
    last_action_error: str | None = None,
) -> Observation:
    """Observe ``instance`` on ``pooled``: the page shows its current version first when a
    screenshot is wanted or its tree is not known (:meth:`PooledPage.tree_of`)."""
    nodes = tree_nodes(json.loads(await pooled.tree_of(instance)))
    shot = None
    if screenshot:
        await pooled.show(instance)
        data = await pooled.screenshot(image_format, quality)
        shot = Screenshot(
            format=image_format, width=profile.width_px, height=profile.height_px, data=data
        )
    return Observation(
        step=instance.state.step,
        screenshot=shot,
        screen=ScreenSpec(
            width_px=profile.width_px, height_px=profile.height_px, density_dpi=profile.density_dpi
        ),
        ui=nodes,
        ui_status=UIStatus.OK if nodes else UIStatus.UNAVAILABLE,
        foreground=foreground(instance),
        keyboard_visible=instance.state.ui.keyboard_visible,
        stable=True,
        last_action_error=last_action_error,
        backend=BackendInfo(
            kind="sim", model=profile.model, android_version=profile.android_version
        ),
    )
