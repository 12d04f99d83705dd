"""``mgb gallery``: parse real phones' UI dumps and draw what a policy would be given.

Every dump is parsed with :mod:`bridge.uitree`, checked to survive an XML round trip, drawn
as a set-of-marks wireframe by headless Chromium, and collected in a gallery page. It
exercises the parts that exist end to end — the contract, the tree parser, the browser and
its CJK fonts — on data nobody here wrote.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from bridge.uitree import parse_hierarchy, to_xml
from transfer_eval.dump_view import render_wireframes, wireframe_html
from transfer_eval.pages import page_template

__all__ = ["DemoReport", "DumpSummary", "run_dump_demo"]


class DumpSummary(BaseModel):
    """What the parser found in one dump."""

    model_config = ConfigDict(frozen=True)

    name: str
    nodes: int
    windows: int
    actionable: int
    packages: list[str]
    rotation: int
    parse_ms: float
    round_trip_ok: bool
    image: str


class DemoReport(BaseModel):
    """The demo's outcome: one summary per dump, where the gallery is, and the font check."""

    model_config = ConfigDict(frozen=True)

    dumps: list[DumpSummary]
    gallery: Path
    cjk_renders: bool


def _summarize(path: Path, image: str) -> tuple[DumpSummary, str]:
    data = path.read_bytes()
    started = time.perf_counter()
    tree = parse_hierarchy(data)
    parse_ms = (time.perf_counter() - started) * 1000.0
    round_trip_ok = parse_hierarchy(to_xml(tree.nodes, tree.rotation)).nodes == tree.nodes
    actionable = [n for n in tree.nodes if n.clickable or n.editable or n.scrollable]
    summary = DumpSummary(
        name=path.name,
        nodes=len(tree.nodes),
        windows=len(tree.roots()),
        actionable=len(actionable),
        packages=sorted({n.package for n in tree.nodes if n.package}),
        rotation=tree.rotation,
        parse_ms=round(parse_ms, 2),
        round_trip_ok=round_trip_ok,
        image=image,
    )
    return summary, wireframe_html(tree.nodes, title=path.name)


def _write_gallery(out: Path, dumps: list[DumpSummary]) -> Path:
    page = page_template("gallery.html").render(dumps=dumps, nodes=sum(d.nodes for d in dumps))
    gallery = out / "index.html"
    gallery.write_text(page, encoding="utf-8")
    return gallery


async def run_dump_demo(
    dumps_dir: Path, out: Path, on_parsed: Callable[[DumpSummary], None] | None = None
) -> DemoReport:
    """Parse every ``*.xml`` in ``dumps_dir``, draw each, and write ``out/index.html``."""
    paths = sorted(dumps_dir.glob("*.xml"))
    if not paths:
        raise FileNotFoundError(f"no *.xml dumps in {dumps_dir}; pass --dumps DIR")
    summaries, pages = [], []
    for path in paths:
        image = f"wireframes/{path.stem}.png"
        summary, document = _summarize(path, image)
        summaries.append(summary)
        pages.append((document, out / image))
        if on_parsed is not None:
            on_parsed(summary)
    cjk = await render_wireframes(pages)
    return DemoReport(dumps=summaries, gallery=_write_gallery(out, summaries), cjk_renders=cjk)
