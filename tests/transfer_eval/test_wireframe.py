"""Wireframes quote a screen's labels whole: one line each, shrunk to its node's width."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.browser import launch_chromium
from bridge.uitree import parse_hierarchy
from transfer_eval.dump_view import wireframe_html

DUMPS = Path(__file__).resolve().parents[1] / "fixtures" / "real_dumps"


@pytest.mark.asyncio
async def test_labels_in_narrow_boxes_are_shrunk_not_clipped() -> None:
    xml = (DUMPS / "32_settings_app_permissions_pixel.xml").read_text(encoding="utf-8")
    document = wireframe_html(parse_hierarchy(xml).nodes, "permissions")
    assert "Not allowed" in document and "<script>" in document
    async with launch_chromium() as browser:
        page = await browser.new_page()
        await page.set_content(document, wait_until="load")
        labels = await page.evaluate(
            """() => [...document.querySelectorAll('.t')].map(t => ({
                text: t.textContent, fits: t.scrollWidth <= t.parentElement.clientWidth}))"""
        )
    status = [label for label in labels if label["text"] in ("Allowed", "Not allowed")]
    assert len(status) == 8
    assert all(label["fits"] for label in status), status  # was "Allowec", "Not"
