"""App identity lives once (bridge/apps.json): the simulator's apps, the device profiles and
the policies' app lists all derive from it, checked both ways."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bridge.app_catalog import app_catalog, normalize_app_name
from device.profiles import load_profile, profile_names
from policies.learned.candidates import trained_app_ids as learned_apps
from policies.random_policy import everyday_app_ids as random_apps
from policies.vlm.apps import resolve_app
from sim.simulator import installed_apps
from sim.skins import SKINS

ROOT = Path(__file__).resolve().parents[2]


def test_the_simulators_apps_and_the_catalog_name_each_other() -> None:
    catalog = app_catalog()
    installed = {app.id: app for app in installed_apps()}
    assert set(installed) == set(catalog.simulated())
    for app_id, app in installed.items():
        identity = catalog.get(app_id)
        assert app.package_on("aosp") == identity.package("aosp")
        assert identity.package("aosp") == load_profile("virtual").package(app_id)
        redmi = load_profile("redmi_note_12_turbo").package(app_id)
        assert app.package_on("hyperos") == redmi  # a skin's phone names apps as its device
        assert app.label("zh") == identity.names["zh"] and app.strings("en")["app_name"]


def test_profiles_take_their_packages_from_the_catalog() -> None:
    redmi, pixel = load_profile("redmi_note_12_turbo"), load_profile("pixel")
    assert redmi.package("messages") == "com.android.mms" and redmi.launcher == "com.miui.home"
    assert pixel.package("contacts") == "com.google.android.contacts"
    assert redmi.package("contacts") == "com.android.contacts"  # AOSP's, by default
    for name in profile_names():
        profile = load_profile(name)
        assert profile.apps == app_catalog().packages(name)
        assert profile.app_of(profile.package("settings")) == "settings"


def test_names_models_say_resolve_through_the_catalog() -> None:
    said = {"设置": "settings", "File Manager": "files", "com.google.android.contacts": "contacts",
            "Phone book": "contacts", "答题卡": "answersheet", "ＣＬＯＣＫ": "clock",
            "Contacts app": "contacts", "Google Maps": "google_maps"}  # fmt: skip
    assert {name: resolve_app(name) for name in said} == said
    names = app_catalog().names()
    assert names[normalize_app_name("Home")] == "launcher"


def test_policies_app_lists_come_from_the_catalog() -> None:
    assert learned_apps() == (
        "settings",
        "contacts",
        "answersheet",
        "messages",
        "clock",
        "calendar",
        "files",
    )
    assert "launcher" not in random_apps() and "answersheet" not in random_apps()
    assert set(random_apps()) >= {"settings", "contacts", "messages", "clock", "calendar"}
    with pytest.raises(KeyError, match="known: settings"):
        app_catalog().get("weibo")


@pytest.mark.parametrize("package", ["policies", "device", "bridge"])
def test_policies_and_device_never_import_the_simulator(package: str) -> None:
    for path in (ROOT / package).rglob("*.py"):
        if path.is_relative_to(ROOT / "device" / "virtual"):
            continue  # the virtual phone is built on the simulator
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n == "sim" or n.startswith("sim.") for n in names), (path, names)


def test_no_app_repeats_its_launcher_activity_in_its_routes() -> None:
    for app in installed_apps():
        for skin in SKINS:
            launcher = app.launcher_activity(skin)
            assert launcher == app_catalog().get(app.id).launcher_activity(SKINS[skin].profile)
            assert launcher not in {s.activity for s in app.screens(skin).values()}, app.id


@pytest.mark.parametrize("package", ["bridge", "sim", "device", "policies", "transfer_eval"])
def test_system_packages_are_named_only_in_the_catalog(package: str) -> None:
    catalog = app_catalog()
    system = {*catalog.get("launcher").packages.values(), *catalog.system_ui.values()}
    for path in (ROOT / package).rglob("*.py"):
        text = path.read_text("utf-8")
        assert not [name for name in system if f'"{name}"' in text], path
