"""The pages of a transfer-eval run written from a run directory (RunStore and
EpisodeWriter, no simulator): replay pages that link back to the report and to the other
policy's page, frames that open full size, the UI XML of each step, one checks table for
both worlds; and the provenance the manifest records for the report's footer."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest

from bridge.browser import launch_chromium
from bridge.records import EpisodeRecord, StepRecord
from bridge.schema import BackendInfo, CheckResult, FinishAction, PolicyOutput, StepResult, Verdict
from bridge.trajectory import RunManifest, RunStore
from tests.bridge.toy_env import counter_task, counter_tree_xml, screen_observation
from transfer_eval.finalize import pairing, write_replay
from transfer_eval.paired import (
    PairedConfig,
    _manifest,
    checkpoint_hash,
    git_commit,
    run_provenance,
)

LABEL = "toy.Counter-v1"
SPECS = {"base": "random:1", "trained": "scripted"}
WORLD_BACKENDS = {
    "sim": BackendInfo(kind="sim", model="mobilegym-sim"),
    "real": BackendInfo(kind="virtual", model="virtual-phone"),
}


def _episode(store: RunStore, role: str, world: str, steps: int = 2) -> None:
    episode_id = f"{LABEL}__{role}__{world}__r0"
    writer = store.begin_episode(episode_id)
    for index in range(steps):
        seen = screen_observation(index, step=index, image_format="jpeg")
        output = PolicyOutput(action=FinishAction(), thought=f"{role} {world} {index}")
        record = StepRecord(
            step=index, observation=seen, output=output, result=StepResult(observation=seen)
        )
        writer.write_step(record, tree_xml=counter_tree_xml(seen))
    success = role == "trained"
    check = CheckResult(name="counter", expected=1, actual=int(success), passed=success)
    writer.finish(
        EpisodeRecord(
            episode_id=episode_id,
            task=counter_task(1),
            policy=SPECS[role],
            backend=WORLD_BACKENDS[world],
            outcome="success" if success else "failure",
            verdict=Verdict.from_checks([check]),
            steps=steps,
            termination="finish",
        )
    )


def _run(root: Path, roles: tuple[str, ...] = ("base", "trained")) -> RunStore:
    store = RunStore.create(root, RunManifest(config={"base": "b", "trained": "t", "suite": "s"}))
    for role in roles:
        for world in ("sim", "real"):
            _episode(store, role, world)
    return store


def _page(store: RunStore, role: str) -> tuple[Path, str]:
    sim, real = pairing(store, store.completed(), LABEL, role)
    page = write_replay(store, sim, real, LABEL, role, "Virtual phone")
    return page, page.read_text()


def _hrefs(page: str) -> list[str]:
    return re.findall(r'href="([^"]+)"', page)


def test_a_replay_links_the_report_the_other_policy_frames_and_trees(tmp_path: Path) -> None:
    store = _run(tmp_path / "run")
    base_page, _ = _page(store, "base")
    page_path, page = _page(store, "trained")
    assert '<a href="../report.html">← report</a>' in page
    assert '<a href="toy.Counter-v1__base.html" id="other-policy">' in page
    assert "the base policy (random:1) on this task" in page
    assert (page_path.parent / "toy.Counter-v1__base.html") == base_page
    assert 'href="toy.Counter-v1__trained.html"' in base_page.read_text()
    links = _hrefs(page)
    frames = [h for h in links if "/frames/" in h]
    trees = [h for h in links if "/trees/" in h]
    # per world and step: the frame opens full size (the image is a link) and its own link;
    # the step's UI XML
    assert len(frames) == 2 * 2 * 2 and len(trees) == 2 * 2
    assert "../episodes/toy.Counter-v1__trained__real__r0/trees/0001.xml" in trees
    for href in [*frames, *trees]:
        assert (page_path.parent / href).is_file(), href
    assert '<a class="full" href="../episodes/toy.Counter-v1__trained__sim__r0/frames/0000' in page


def test_a_replay_shows_one_check_table_for_both_worlds(tmp_path: Path) -> None:
    _, page = _page(_run(tmp_path / "run"), "trained")
    checks = page[page.index('id="checks"') :]
    assert checks.count("<table") == 1 and checks.count("<td>counter</td>") == 1
    assert "<th>Simulator</th><th>Virtual phone</th>" in checks
    assert checks.count("<span class='pass'>pass</span>") == 2


def test_without_the_other_policy_a_replay_links_only_the_report(tmp_path: Path) -> None:
    _, page = _page(_run(tmp_path / "run", roles=("trained",)), "trained")
    assert "../report.html" in page and 'id="other-policy"' not in page


def test_checkpoint_hashes_follow_the_bytes_not_the_place(tmp_path: Path) -> None:
    first = tmp_path / "a" / "ckpt"
    first.mkdir(parents=True)
    (first / "config.json").write_text('{"hidden": 8}')
    (first / "weights.npy").write_bytes(b"\x00" * 64)
    copy = tmp_path / "b" / "ckpt"
    copy.mkdir(parents=True)
    for file in first.iterdir():
        (copy / file.name).write_bytes(file.read_bytes())
    digest = checkpoint_hash(first)
    assert re.fullmatch(r"sha256:[0-9a-f]{12}", digest) and checkpoint_hash(copy) == digest
    (copy / "weights.npy").write_bytes(b"\x00" * 63 + b"\x01")
    assert checkpoint_hash(copy) != digest


def test_git_commit_is_unknown_outside_a_checkout(tmp_path: Path) -> None:
    assert git_commit(tmp_path) == ("unknown", None)
    commit, dirty = git_commit()
    assert commit == "unknown" or (re.fullmatch(r"[0-9a-f]{40}", commit) and dirty is not None)


def test_the_manifest_versions_carry_commit_command_and_checkpoint_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkpoint = tmp_path / "ckpt"
    checkpoint.mkdir()
    (checkpoint / "weights.npy").write_bytes(b"weights")
    argv = ["transfer-eval", "--trained", f"learned:{checkpoint}", "--out", "runs/my run"]
    monkeypatch.setattr(sys, "argv", argv)
    config = PairedConfig(
        base="random:1", trained=f"learned:{checkpoint}", suite="smoke", out=tmp_path / "run"
    )
    manifest = _manifest(config)
    versions = manifest.versions
    assert versions["command"] == (
        f"transfer-eval --trained learned:{checkpoint} --out 'runs/my run'"
    )
    assert versions["checkpoint_trained"] == checkpoint_hash(checkpoint)
    assert "checkpoint_base" not in versions  # random:1 has no checkpoint
    assert versions["git_commit"] == git_commit()[0]
    assert not {"git_commit", "command", "checkpoint_trained"} & manifest.config.keys()
    # resuming compares config and seeds, not versions: another commit or command resumes,
    # and the run keeps the provenance it began with
    store = RunStore.create(config.out, manifest)
    other = {**run_provenance(config, ["transfer-eval", "--resume", "x"]), "git_commit": "f00"}
    later = manifest.model_copy(update={"versions": {**versions, **other}})
    resumed = RunStore.create(config.out, later, resume=True)
    assert resumed.manifest.versions == store.manifest.versions == versions


@pytest.mark.browser
def test_in_chromium_a_frame_opens_full_size_and_the_links_lead_on(tmp_path: Path) -> None:
    store = _run(tmp_path / "run")
    _page(store, "base")
    page_path, _ = _page(store, "trained")
    (store.root / "report.html").write_text("<h1 id='report'>report</h1>")

    async def look() -> tuple[str, str, str]:
        async with launch_chromium() as browser:
            page = await browser.new_page()
            await page.goto(page_path.as_uri())
            async with page.expect_popup() as popup:
                await page.locator("[data-step='0']:not([hidden]) img").first.click()
            frame = (await popup.value).url
            await page.click("#other-policy")
            other = await page.locator("nav.links b").inner_text()
            await page.click("text=← report")
            return frame, other, await page.locator("#report").inner_text()

    frame, other, report = asyncio.run(look())
    assert frame.endswith("/episodes/toy.Counter-v1__trained__sim__r0/frames/0000.jpg")
    assert other == "base" and report == "report"
