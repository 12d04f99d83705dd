"""The report model and its Markdown/HTML renderings, what an unbalanced grid drops, the
caveats, the intervals on both gains, the stable-fail bucket and the pages' links."""

from __future__ import annotations

from bridge.outcome import SUCCESS_MEANS, OutcomeClass
from transfer_eval.cells import MissingCell, Outcome
from transfer_eval.report import Report, build_report
from transfer_eval.report_html import render_html
from transfer_eval.report_md import render_markdown, terminal_headline
from transfer_eval.stats import retention

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
                    outcome_class="success" if success else "failure",
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


def _report(backend: str = "virtual", gap: str = "") -> Report:
    return build_report(
        _outcomes(),
        device_backend=backend,
        device_gap=gap,
        device_model="m",
        base="b",
        trained="t",
        suite="paired",
        repeats=1,
        replays={
            "settings/t1": {
                "base": "replays/settings.t1__base.html",
                "trained": "replays/settings.t1__trained.html",
            }
        },
    )


def test_report_numbers_and_json_round_trip() -> None:
    report = _report()
    assert report.sim_gain == 0.75 and report.real_gain == 0.5
    assert report.retention.value is not None and abs(report.retention.value - 2 / 3) < 1e-9
    assert {b.bucket: b.tasks for b in report.buckets} == {
        "uplift": 3,
        "stable-pass": 1,
        "stable-fail": 0,
        "mid": 0,
    }
    assert report.rates["trained/sim"].successes == 4
    assert Report.model_validate_json(report.model_dump_json()) == report


def test_markdown_leads_with_the_headline_and_labels_the_virtual_phone() -> None:
    text = render_markdown(_report())
    first = text.splitlines()[2]
    assert "66.7% of the simulator gain was retained" in first and "VIRTUAL" in first
    assert "| trained | sim | 100.0% (" in text and "| trained | phone | 75.0% (" in text
    assert (
        "[base](replays/settings.t1__base.html) · [trained](replays/settings.t1__trained.html)"
        in text
    )
    assert "VIRTUAL" not in render_markdown(_report("device"))


def test_html_is_self_contained_and_shows_the_numbers() -> None:
    page = render_html(_report())
    assert "<script" not in page and "http://" not in page and "https://" not in page
    assert "Phone side: the VIRTUAL phone" in page and "66.7%" in page
    assert page.count("<svg") == 2 and 'href="replays/settings.t1__trained.html"' in page
    assert 'href="replays/settings.t1__base.html"' in page


_CLASS: dict[int, OutcomeClass] = {0: "failure", 1: "success"}


def _entry(
    task: str,
    cells: tuple[int, int, int, int],
    *,
    skip: tuple[str, str] | None = None,
    seed: int = 0,
) -> list[Outcome]:
    return [
        Outcome(
            task_id=task,
            seed=seed,
            policy=p,
            world=w,
            outcome_class=_CLASS[ok],
            level="L2",
            app="clock",
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
    assert "settings/t3 (seed 0, en)" in dropped and "trained/phone" in dropped
    assert "infra_error" in dropped and "DeviceDisconnected: yyy" in dropped
    assert "settings/t4 (seed 0, en)" in dropped and "base/sim" in dropped and "missing" in dropped
    assert "2 entry-repeats dropped" in page
    assert "None: every entry-repeat finished" in render_html(alone)
    markdown = render_markdown(report)
    left_out = markdown[markdown.index("## Left out of the statistics") :]
    assert "| settings/t3 (seed 0, en) | 0 | trained/phone | infra_error | DeviceDisc" in left_out
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


def _uniform(
    count: int, cells: tuple[int, int, int, int] = (0, 1, 0, 1), name: str = "T"
) -> list[Outcome]:
    """``count`` entries with the same four outcomes."""
    return [o for i in range(count) for o in _entry(f"clock/{name}{i:02d}-v1", cells)]


def test_gain_intervals_are_in_the_json_the_cards_and_the_markdown() -> None:
    report = _report()
    sim, phone = report.sim_gain_interval, report.real_gain_interval
    assert sim is not None and phone is not None
    assert sim.low <= report.sim_gain <= sim.high  # type: ignore[operator]
    assert phone.low <= report.real_gain <= phone.high  # type: ignore[operator]
    again = Report.model_validate_json(report.model_dump_json())
    assert again.sim_gain_interval == sim and again.real_gain_interval == phone
    low, high = f"{100 * phone.low:+.1f}", f"{100 * phone.high:+.1f}"
    page = render_html(report)
    cards = page[page.index('class="cards"') : page.index("<h2>")]
    assert "phone gain" in cards and f"95% CI {low} to {high} pt" in cards
    assert f"95% CI {100 * sim.low:+.1f} to {100 * sim.high:+.1f} pt" in cards
    markdown = render_markdown(report)
    assert f"| phone gain | +50.0 pt | {low} to {high} pt |" in markdown


def test_caveats_name_few_tasks_no_significance_and_the_virtual_phone() -> None:
    report = _report()  # 4 entries; McNemar 0 vs 3 in sim, 0 vs 2 on the phone
    assert [c.kind for c in report.caveats] == ["few_tasks", "not_significant", "virtual_phone"]
    few, weak, virtual = (c.text for c in report.caveats)
    assert "Only 4 suite entries" in few and "25 pt" in few
    assert "in the simulator p = 0.250" in weak and "on the phone p = 0.500" in weak
    assert (
        "renders the simulator's own state" in virtual and "not evidence about hardware" in virtual
    )
    page = render_html(report)
    box = page[page.index('id="caveats"') : page.index('class="cards"')]
    assert "Read with care" in box and "Few tasks." in box and "Virtual phone." in box
    assert "not evidence about hardware" in box
    markdown = render_markdown(report)
    assert "> **Read with care.**" in markdown and "> - **Not significant.**" in markdown
    on_a_phone = [c.kind for c in _report("device").caveats]
    assert on_a_phone == ["few_tasks", "not_significant"]
    skinned = _report(gap="Xiaomi HyperOS (as on a Redmi Note 12 Turbo) screens").caveats[-1]
    assert "(with Xiaomi HyperOS" in skinned.text and "agreement is expected" not in skinned.text
    assert "a gap modelled from public evidence, not a phone's" in skinned.text


def test_a_zero_width_interval_is_called_out() -> None:
    # three alike uplift entries, as a smoke run gives: "100% (CI 100–100%)"
    report = _on_a_phone(_uniform(3))
    assert report.retention.degenerate and report.retention.value == 1.0
    kinds = [c.kind for c in report.caveats]
    assert kinds == ["few_tasks", "not_significant", "degenerate_interval"]
    text = report.caveats[2].text
    assert "The sim gain and the phone gain have zero-width 95% intervals because every " in text
    assert "entry has the same gain; retention's interval has zero width because" in text
    assert "a property of these 3 entries, not certainty about other tasks" in text
    page = render_html(report)
    assert page.count('<span class="flag">zero width</span>') == 3
    assert "Zero-width interval." in page
    assert "**Zero-width interval.**" in render_markdown(report)


def test_retention_of_exactly_one_when_the_phone_agrees_says_so() -> None:
    # unlike entries, but on each the phone does what the simulator did (the virtual phone):
    # the gains vary over resamples, retention is 100% in every one
    outcomes = [
        *_uniform(6),
        *_uniform(4, (1, 1, 1, 1), name="S"),
        *_uniform(2, (0, 0, 0, 0), name="N"),
    ]
    report = _on_a_phone(outcomes)
    assert report.agreement == 1.0 and report.retention.degenerate
    assert report.sim_gain_interval is not None and not report.sim_gain_interval.degenerate
    (zero,) = [c.text for c in report.caveats if c.kind == "degenerate_interval"]
    assert zero.startswith("Retention's interval has zero width because every entry's outcomes")
    assert "every resample retains exactly 100%" in zero and "sim gain" not in zero


def test_enough_significant_varied_entries_on_a_phone_need_no_caveat() -> None:
    outcomes = [
        *_uniform(10),
        *_entry("clock/Stable-v1", (1, 1, 1, 1)),
        *_entry("clock/SimOnly-v1", (0, 1, 0, 0)),
    ]
    report = _on_a_phone(outcomes)
    assert report.tasks == 12 and report.caveats == []
    assert all(m.p_value < 0.05 for m in report.mcnemar)
    assert 'id="caveats"' not in render_html(report)
    assert "Read with care" not in render_markdown(report)


def test_never_solved_entries_have_their_own_bucket() -> None:
    outcomes = [*_outcomes(), *_entry("clock/Never-v1", (0, 0, 0, 0))]
    report = _on_a_phone(outcomes)
    counts = {b.bucket: b.tasks for b in report.buckets}
    assert counts == {"uplift": 3, "stable-pass": 1, "stable-fail": 1, "mid": 0}
    assert [b.bucket for b in report.buckets] == ["uplift", "stable-pass", "stable-fail", "mid"]
    never = next(row for row in report.per_task if row.task_id == "clock/Never-v1")
    assert never.bucket == "stable-fail"
    assert "| stable-fail | 1 |" in render_markdown(report)


def test_the_scatter_shows_every_task_with_counts_on_shared_points() -> None:
    # 20 entries on 2 points: 15 uplift in both worlds, 5 that gain only in the simulator
    report = _on_a_phone([*_uniform(15), *_uniform(5, (0, 1, 0, 0), name="SimOnly")])
    assert report.tasks == 20
    page = render_html(report)
    assert page.count('<g class="spot">') == 2
    assert "15 tasks at sim +100 pt, phone +100 pt" in page
    assert "5 tasks at sim +100 pt, phone +0 pt" in page
    assert ">15</text>" in page and ">5</text>" in page  # the counts, written on the plot
    scatter = page[page.index('aria-label="sim gain against') :]
    assert all(row.task_id in scatter for row in report.per_task)
    assert '<g class="mean">' in page  # the overall gains with their intervals


def test_the_phone_side_is_called_phone_in_pages_and_tables() -> None:
    report = _on_a_phone(
        [*_outcomes(), *_entry("clock/Gone-v1", (0, 1, 0, 1), skip=("trained", "real"))],
        [MissingCell(task_id="clock/Gone-v1", policy="trained", world="real", reason="missing")],
    )
    page, markdown = render_html(report), render_markdown(report)
    for text in (page, markdown):
        assert "base/phone" in text and "trained/phone" in text
        assert "base/real" not in text and "trained/real" not in text
        assert "real gain" not in text and "sim–real" not in text
    assert "<td>phone</td>" in page and "<td>real</td>" not in page
    assert "| phone | 0 | 2 |" in markdown and "| real |" not in markdown
    assert "phone gain (pt)" in page
    assert "trained/real" in report.model_dump_json()  # the JSON keys stay as they were


def test_the_footer_shows_the_commit_command_and_checkpoint_hashes() -> None:
    versions = {
        "mobilegym-bridge": "0.1.0",
        "python": "3.11.7",
        "git_commit": "0123456789abcdef0123456789abcdef01234567",
        "git_dirty": "yes",
        "command": "transfer-eval --out 'runs/my run'",
        "checkpoint_base": "sha256:aaaaaaaaaaaa",
        "checkpoint_trained": "sha256:bbbbbbbbbbbb",
    }
    page = render_html(_report(), versions)
    footer = page[page.index('id="provenance"') :]
    assert "0123456789abcdef0123456789abcdef01234567 (with uncommitted changes)" in footer
    assert "transfer-eval --out &#39;runs/my run&#39;" in footer
    assert "base sha256:aaaaaaaaaaaa, trained sha256:bbbbbbbbbbbb" in footer
    assert "mobilegym-bridge 0.1.0, python 3.11.7" in footer
    markdown = render_markdown(_report(), versions)
    assert "- command: `transfer-eval --out 'runs/my run'`" in markdown
    assert "- checkpoints: `base sha256:aaaaaaaaaaaa, trained sha256:bbbbbbbbbbbb`" in markdown
    scripted = {"git_commit": "unknown", "command": "transfer-eval --trained scripted"}
    assert "none (no learned policy)" in render_markdown(_report(), scripted)
    assert "- commit: `not recorded`" in render_markdown(_report())  # an older manifest


def _strict_grid() -> list[Outcome]:
    """Two entries of a phone run whose goal holds more often than they succeed."""
    plan: list[tuple[str, tuple[OutcomeClass, ...], tuple[bool | None, ...]]] = [
        ("settings/A", ("goal_at_budget", "success", "goal_at_budget", "success"),
         (True, True, True, None)),
        ("settings/B", ("false_complete", "success", "failure", "side_effect"),
         (True, True, False, False)),
    ]  # fmt: skip
    return [
        Outcome(task_id=task, policy=p, world=w, outcome_class=ending, clean=clean)
        for task, endings, cleans in plan
        for (p, w), ending, clean in zip(CELLS, endings, cleans, strict=True)
    ]


def test_the_headline_says_what_success_is_and_shows_the_other_rates() -> None:
    report = _on_a_phone(_strict_grid())
    assert (report.sim_gain, report.real_gain) == (1.0, 0.5)  # "the goal holds": 0.5 and 0.5
    assert report.success_means == SUCCESS_MEANS
    ending = report.endings["base/sim"]
    assert (ending.classes["goal_at_budget"], ending.classes["false_complete"]) == (1, 1)
    assert (report.endings["base/real"].side_effects, report.endings["trained/real"].side_effects,
            report.endings["trained/real"].clean_unknown) == (1, 1, 1)  # fmt: skip
    assert (report.agreement, report.class_agreement) == (0.75, 0.5)
    markdown = render_markdown(report)
    top = markdown[: markdown.index("## Gains")]
    assert f"**{SUCCESS_MEANS}**" in top
    header = ("| policy | world | success (95% CI) | goal at budget | false complete | "
              "side effects | clean unknown | episodes |")  # fmt: skip
    assert header in top
    assert "| base | sim | 0.0% (0.0%–65.8%) | 50.0% | 50.0% | 0.0% | 0 | 2 |" in top
    assert "| base | phone | 0.0% (0.0%–65.8%) | 50.0% | 0.0% | 50.0% | 0 | 2 |" in top
    assert "| trained | phone | 50.0% (9.5%–90.5%) | 0.0% | 0.0% | 50.0% | 1 | 2 |" in top
    assert "50.0% end in the same outcome class" in markdown
    page = render_html(report)
    head = page[page.index('id="headline"') : page.index('class="cards"')]
    assert SUCCESS_MEANS in head and "<th>false complete</th>" in head
    assert "<td>50.0% (9.5%–90.5%)</td>" in head


def test_the_terminal_line_carries_the_definition_the_rates_and_the_caveats() -> None:
    report = _on_a_phone(_strict_grid())
    lines = terminal_headline(report).splitlines()
    assert lines[0].startswith("Trained vs base gained +100.0 pt of success in the simulator")
    assert lines[1] == SUCCESS_MEANS
    expected = ("base/sim success 0.0% (0.0%–65.8%) · goal at budget 50.0% · false complete "
                "50.0% · side effects 0.0% · clean unknown 0 · 2 episodes")  # fmt: skip
    assert " ".join(lines[2].split()) == expected
    assert len(lines) == 7 and lines[-1].startswith(f"Read with care ({len(report.caveats)}, ")
    assert lines[-1].endswith("few tasks; not significant; zero-width interval; clean unknown.")


def test_side_effects_a_world_could_not_see_are_a_caveat() -> None:
    report = _on_a_phone(_strict_grid())
    (unseen,) = [c.text for c in report.caveats if c.kind == "clean_unknown"]
    assert "in 1 of 4 episodes on the phone (clean unknown)" in unseen
    assert "in the simulator" not in unseen
    assert "**Clean unknown.**" in render_markdown(report)
    assert all(c.kind != "clean_unknown" for c in _report().caveats)
