"""The report model and its Markdown/HTML renderings."""

from __future__ import annotations

from transfer_eval.report import Report, build_report
from transfer_eval.report_html import render_html
from transfer_eval.report_md import render_markdown
from transfer_eval.stats import Outcome


def _outcomes() -> list[Outcome]:
    rows = []
    # t1, t2 uplift in both worlds; t3 stable; t4 gains only in sim
    plan = {"t1": (0, 1, 0, 1), "t2": (0, 1, 0, 1), "t3": (1, 1, 1, 1), "t4": (0, 1, 0, 0)}
    for task, cells in plan.items():
        for (policy, world), success in zip(
            [("base", "sim"), ("trained", "sim"), ("base", "real"), ("trained", "real")], cells,
            strict=True,
        ):
            rows.append(Outcome(task_id=f"settings/{task}", policy=policy, world=world,
                                success=bool(success), level="L1", app="settings"))
    return rows


def _report(backend: str = "virtual") -> Report:
    return build_report(_outcomes(), device_backend=backend, device_model="m", base="b",
                        trained="t", suite="paired", repeats=1, infra_errors=2,
                        replays={"settings/t1": "replays/settings.t1.html"})


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
