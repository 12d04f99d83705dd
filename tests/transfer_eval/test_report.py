"""The report model and its Markdown/HTML renderings, and what an unbalanced grid drops."""

from __future__ import annotations

from transfer_eval.report import Report, build_report
from transfer_eval.report_html import render_html
from transfer_eval.report_md import render_markdown
from transfer_eval.stats import MissingCell, Outcome, retention

CELLS = [("base", "sim"), ("trained", "sim"), ("base", "real"), ("trained", "real")]


def _outcomes() -> list[Outcome]:
    rows = []
    # t1, t2 uplift in both worlds; t3 stable; t4 gains only in sim
    plan = {"t1": (0, 1, 0, 1), "t2": (0, 1, 0, 1), "t3": (1, 1, 1, 1), "t4": (0, 1, 0, 0)}
    for task, cells in plan.items():
        for (policy, world), success in zip(
            [("base", "sim"), ("trained", "sim"), ("base", "real"), ("trained", "real")],
            cells,
            strict=True,
        ):
            rows.append(
                Outcome(
                    task_id=f"settings/{task}",
                    policy=policy,
                    world=world,
                    success=bool(success),
                    level="L1",
                    app="settings",
                )
            )
    return rows


def _on_a_phone(
    outcomes: list[Outcome], gaps: tuple[MissingCell, ...] | list[MissingCell] = ()
) -> Report:
    """A one-repeat report of ``outcomes`` whose real world is a phone."""
    return build_report(
        outcomes,
        device_backend="device",
        device_model="m",
        base="b",
        trained="t",
        suite="paired",
        repeats=1,
        gaps=gaps,
    )


def _report(backend: str = "virtual") -> Report:
    return build_report(
        _outcomes(),
        device_backend=backend,
        device_model="m",
        base="b",
        trained="t",
        suite="paired",
        repeats=1,
        replays={"settings/t1": "replays/settings.t1.html"},
    )


def test_report_numbers_and_json_round_trip() -> None:
    report = _report()
    assert report.sim_gain == 0.75 and report.real_gain == 0.5
    assert report.retention.value is not None and abs(report.retention.value - 2 / 3) < 1e-9
    assert {b.bucket: b.tasks for b in report.buckets} == {"uplift": 3, "stable-pass": 1, "mid": 0}
    assert report.rates["trained/sim"].successes == 4
    assert Report.model_validate_json(report.model_dump_json()) == report


def test_markdown_leads_with_the_headline_and_labels_the_virtual_phone() -> None:
    text = render_markdown(_report())
    first = text.splitlines()[2]
    assert "66.7% of the simulator gain was retained" in first and "VIRTUAL" in first
    assert "| trained | sim | 100.0% |" in text and "[replay](replays/settings.t1.html)" in text
    assert "VIRTUAL" not in render_markdown(_report("device"))


def test_html_is_self_contained_and_shows_the_numbers() -> None:
    page = render_html(_report())
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert "Phone side: the VIRTUAL phone" in page and "66.7%" in page
    assert page.count("<svg") == 2 and 'href="replays/settings.t1.html"' in page


def _entry(
    task: str,
    cells: tuple[int, int, int, int],
    *,
    skip: tuple[str, str] | None = None,
    seed: int = 0,
) -> list[Outcome]:
    return [
        Outcome(
            task_id=task, seed=seed, policy=p, world=w, success=bool(ok), level="L2", app="clock"
        )
        for (p, w), ok in zip(CELLS, cells, strict=True)
        if (p, w) != skip
    ]


def test_an_unbalanced_grid_drops_incomplete_entries_from_every_figure() -> None:
    # complete: t1 and t2 as in _outcomes (retention 1.0 on their own). t3's trained/real
    # cell is an infra error and t4's base/sim cell never ran: counted cell by cell, the
    # four rates would be over different entries and retention would be 0.75.
    complete = _outcomes()[:8]
    infra = _entry("settings/t3", (0, 1, 0, 1), skip=("trained", "real"))
    missing = _entry("settings/t4", (1, 1, 1, 1), skip=("base", "sim"))
    gaps = [
        MissingCell(
            task_id="settings/t3",
            policy="trained",
            world="real",
            reason="infra_error",
            error="DeviceDisconnected: " + "y" * 500,
        ),
        MissingCell(task_id="settings/t4", policy="base", world="sim", reason="missing"),
    ]
    report = _on_a_phone([*complete, *infra, *missing], gaps)
    alone = _on_a_phone(complete)
    assert retention([*complete, *infra, *missing]) == 0.75  # what cell-by-cell would say
    for key in ("base/sim", "trained/sim", "base/real", "trained/real"):
        assert report.rates[key] == alone.rates[key] and report.rates[key].episodes == 2
    assert report.retention == alone.retention and report.retention.value == 1.0
    assert (report.sim_gain, report.real_gain) == (1.0, 1.0)
    assert [m.trained_only for m in report.mcnemar] == [2, 2]
    assert report.agreement == 1.0 and {b.bucket: b.tasks for b in report.buckets}["uplift"] == 2
    assert [row.task_id for row in report.per_task] == ["settings/t1", "settings/t2"]
    assert [(g.group, g.tasks) for g in report.levels] == [("L1", 2)]
    assert (report.tasks, report.episodes, report.infra_errors) == (2, 8, 1)
    assert report.dropped_episodes == 6
    listed = [
        (d.task_id, d.repeat, [(c.policy, c.world, c.reason) for c in d.cells])
        for d in report.dropped
    ]
    assert listed == [
        ("settings/t3", 0, [("trained", "real", "infra_error")]),
        ("settings/t4", 0, [("base", "sim", "missing")]),
    ]
    error = report.dropped[0].cells[0].error
    assert error is not None and error.startswith("DeviceDisconnected: yyy") and len(error) == 300
    again = Report.model_validate_json(report.model_dump_json())
    assert again == report and again.dropped[1].cells[0].error is None
    page = render_html(report)
    dropped = page[page.index('id="dropped"') :]
    assert "settings/t3 (seed 0, en)" in dropped and "trained/real" in dropped
    assert "infra_error" in dropped and "DeviceDisconnected: yyy" in dropped
    assert "settings/t4 (seed 0, en)" in dropped and "base/sim" in dropped and "missing" in dropped
    assert "2 entry-repeats dropped" in page
    assert "None: every entry-repeat finished" in render_html(alone)
    markdown = render_markdown(report)
    left_out = markdown[markdown.index("## Left out of the statistics") :]
    assert "| settings/t3 (seed 0, en) | 0 | trained/real | infra_error | DeviceDisc" in left_out
    assert "Left out" not in render_markdown(alone)


def test_entries_of_one_task_with_two_seeds_are_two_rows() -> None:
    outcomes = [
        *_entry("clock/Alarm-v1", (0, 1, 0, 1), seed=1),
        *_entry("clock/Alarm-v1", (1, 1, 1, 1), seed=2),
    ]
    report = _on_a_phone(outcomes)
    assert [(row.seed, row.bucket) for row in report.per_task] == [
        (1, "uplift"),
        (2, "stable-pass"),
    ]
    assert report.tasks == 2 and report.levels[0].tasks == 2
