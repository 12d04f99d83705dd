"""Set-of-marks wireframes of UI trees, rendered by headless Chromium.

A wireframe shows every visible node of a uiautomator dump at its real position, with the
id a policy would target (``element 12``) on every actionable node. It is how a person
checks what a text-only or set-of-marks policy is given, and how ``make demo`` proves that
Chromium and CJK fonts work on this machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from playwright.async_api import Page

from bridge.browser import launch_chromium
from bridge.schema import UINode
from transfer_eval.pages import page_template

__all__ = ["cjk_renders", "render_wireframes", "wireframe_html"]

_VIEW_WIDTH = 360
"""CSS width every wireframe is scaled to, whatever the device's pixel width."""


def _template(name: str) -> str:
    return resources.files(__package__).joinpath("templates").joinpath(name).read_text("utf-8")


def _classes(node: UINode) -> str:
    classes = ["n"]
    if node.clickable or node.long_clickable or node.checkable:
        classes.append("act")
    if node.editable:
        classes.append("edit")
    if node.scrollable:
        classes.append("scroll")
    if not node.enabled:
        classes.append("off")
    return " ".join(classes)


def _node_view(node: UINode, scale: float, origin: tuple[int, int]) -> dict[str, object]:
    left, top, right, bottom = node.bounds_px
    style = (
        f"left:{(left - origin[0]) * scale:.1f}px;top:{(top - origin[1]) * scale:.1f}px;"
        f"width:{(right - left) * scale:.1f}px;height:{(bottom - top) * scale:.1f}px"
    )
    marked = node.clickable or node.long_clickable or node.checkable or node.editable
    return {
        "classes": _classes(node),
        "style": style,
        "mark": node.id if marked or node.scrollable else None,
        "label": node.text or node.content_desc or node.hint,
    }


def wireframe_html(nodes: Sequence[UINode], title: str = "UI tree") -> str:
    """A self-contained HTML page drawing ``nodes`` at their bounds, 360 CSS px wide."""
    shown = [node for node in nodes if node.visible and node.area_px > 0]
    if not shown:
        raise ValueError("no visible node with a non-empty area to draw")
    left = min(node.bounds_px[0] for node in shown)
    top = min(node.bounds_px[1] for node in shown)
    width = max(node.bounds_px[2] for node in shown) - left
    height = max(node.bounds_px[3] for node in shown) - top
    scale = _VIEW_WIDTH / width
    return page_template("wireframe.html").render(
        title=title,
        width=_VIEW_WIDTH,
        height=round(height * scale),
        font=max(7, round(36 * scale)),
        mark=max(8, round(30 * scale)),
        nodes=[_node_view(node, scale, (left, top)) for node in shown],
    )


async def cjk_renders(page: Page) -> bool:
    """Whether Chinese glyphs render as real glyphs, not as the font's empty 'tofu' box.

    Draws a CJK character and a code point no font covers; identical pixels mean the CJK
    character fell back to the missing-glyph box.
    """
    return bool(await page.evaluate(_template("cjk_check.js")))


async def render_wireframes(pages: Sequence[tuple[str, Path]], scale: float = 2.0) -> bool:
    """Render each (html, png_path) pair with one Chromium; return whether CJK renders."""
    async with launch_chromium() as browser:
        context = await browser.new_context(device_scale_factor=scale)
        page = await context.new_page()
        for document, png_path in pages:
            await page.set_content(document, wait_until="load")
            png_path.parent.mkdir(parents=True, exist_ok=True)
            await page.locator("#screen").screenshot(path=str(png_path))
        cjk = await cjk_renders(page)
        await context.close()
    return cjk
