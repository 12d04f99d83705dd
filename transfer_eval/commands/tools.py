"""``mgb schema``, ``mgb inspect``, ``mgb gallery`` and ``mgb demo``: the contract's schemas,
one UI dump read as a policy would, real dumps drawn, and the whole loop with its defaults."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from transfer_eval.commands.common import console, fail, usage

if TYPE_CHECKING:
    from rich.table import Table

    from transfer_eval.demo import DemoReport

__all__ = ["demo_command", "gallery_command", "inspect_command", "schema_command"]


def schema_command(
    out: Annotated[Path, typer.Option(help="Directory for the .schema.json files.")] = Path(
        "docs/schema"
    ),
) -> None:
    """Write the JSON Schema of the contract (actions, observations, records) to OUT."""
    from bridge.jsonschema import write_json_schemas

    for path in write_json_schemas(out):
        console.print(f"wrote {path}")


def inspect_command(
    dump: Annotated[Path, typer.Argument(help="A uiautomator hierarchy XML file.")],
    xpath: Annotated[list[str], typer.Option(help="XPath query to run (repeatable).")] = [],  # noqa: B006
    at: Annotated[str | None, typer.Option(help="Hit-test a device pixel, e.g. 540,1200.")] = None,
    png: Annotated[Path | None, typer.Option(help="Write a set-of-marks wireframe PNG.")] = None,
) -> None:
    """Parse a UI dump and show the compact tree a text-only policy would be given."""
    import asyncio

    from bridge.errors import BridgeError
    from bridge.uitree import parse_hierarchy
    from transfer_eval.dump_view import render_wireframes, wireframe_html

    try:
        tree = parse_hierarchy(dump.read_bytes())
    except (OSError, BridgeError) as exc:
        raise fail(str(exc)) from exc
    console.print(tree.render_text(), markup=False, highlight=False)
    console.print(
        f"[dim]{len(tree.nodes)} nodes, {len(tree.roots())} window(s), rotation {tree.rotation}[/]"
    )
    for query in xpath:
        try:
            hits = tree.xpath(query)
        except BridgeError as exc:
            raise usage(f"--xpath: {exc}") from exc
        console.print(f"xpath {query!r}: {[node.id for node in hits]}", markup=False)
    if at is not None:
        x, comma, y = at.partition(",")
        try:
            point = (float(x), float(y)) if comma else None
        except ValueError:
            point = None
        if point is None:
            raise usage(f"--at {at!r}: give a device pixel as X,Y, e.g. 540,1200")
        hit = tree.hit_test(*point)
        console.print(f"hit {at}: {hit.id if hit else None} {hit.class_name if hit else ''}")
    if png is not None:
        asyncio.run(render_wireframes([(wireframe_html(tree.nodes, dump.name), png)]))
        console.print(f"wrote {png}")


def _demo_table(report: DemoReport) -> Table:
    from rich.table import Table

    table = Table(title="real UI dumps parsed")
    table.add_column("dump", no_wrap=True, overflow="ellipsis", max_width=28)
    for column in ("nodes", "win", "act.", "rot", "ms", "round trip"):
        table.add_column(column, justify="right", no_wrap=True, min_width=len(column))
    for d in report.dumps:
        table.add_row(
            d.name,
            str(d.nodes),
            str(d.windows),
            str(d.actionable),
            str(d.rotation),
            f"{d.parse_ms:.1f}",
            "ok" if d.round_trip_ok else "[red]LOST[/]",
        )
    return table


def _gallery(dumps: Path, out: Path) -> DemoReport:
    import asyncio

    from rich.progress import Progress

    from bridge.errors import BridgeError
    from transfer_eval.demo import run_dump_demo

    with Progress(console=console, transient=True) as progress:
        task = progress.add_task("parsing dumps", total=len(list(dumps.glob("*.xml"))))
        try:
            report = asyncio.run(
                run_dump_demo(dumps, out, on_parsed=lambda _: progress.advance(task))
            )
        except (FileNotFoundError, BridgeError) as exc:
            raise fail(str(exc)) from exc
    console.print(_demo_table(report))
    if not report.cjk_renders:
        console.print(
            "[yellow]warning:[/] Chinese text renders as empty boxes: install a CJK "
            "font (Debian: apt-get install fonts-noto-cjk)"
        )
    if not all(d.round_trip_ok for d in report.dumps):
        raise fail("a dump did not survive XML -> nodes -> XML -> nodes")
    console.print(f"gallery: [bold]{report.gallery.resolve()}[/] (open it in a browser)")
    return report


_DUMPS = Path("tests/fixtures/real_dumps")


def gallery_command(
    dumps: Annotated[Path, typer.Option(help="Directory of uiautomator dumps.")] = _DUMPS,
    out: Annotated[Path, typer.Option(help="Where the gallery is written.")] = Path(
        "demo-out/dumps"
    ),
) -> None:
    """Parse real phones' UI dumps, draw them in Chromium, and write a gallery page."""
    _gallery(dumps, out)


def demo_command(
    out: Annotated[Path, typer.Option(help="Where the demo writes.")] = Path("demo-out"),
) -> None:
    """transfer-eval --device virtual with its defaults: the whole sim-to-phone loop.

    The shipped base and GRPO-trained checkpoints play the default paired suite in the
    simulator and on the virtual phone behind the real adb server; the report (rates,
    gains, retention with its bootstrap interval, buckets, side-by-side replays) lands in
    OUT/transfer-eval. The run is resumable: running the demo again finishes it.
    """
    from bridge.errors import BridgeError
    from transfer_eval.evaluate import evaluate
    from transfer_eval.paired import PairedConfig

    config = PairedConfig(device="virtual", out=out / "transfer-eval")
    said = (
        f"transfer-eval --device virtual --base {config.base} --trained {config.trained} "
        f"--suite {config.suite}"
    )
    if console.is_terminal:
        console.rule(said)
    else:  # a rule off a terminal would be the console's whole (wide) width
        console.print(said, highlight=False, soft_wrap=True)
    try:
        evaluate(config, console)
    except (BridgeError, ValueError) as exc:
        raise fail(str(exc)) from exc
