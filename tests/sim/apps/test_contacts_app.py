"""The Contacts app: pure model functions with literal inputs, handler flows, rendering."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from importlib import resources
from typing import Any

import pytest

from sim.app import AppContext, Event
from sim.apps.contacts import ContactsApp
from sim.apps.contacts.editor import (
    contact_from_fields,
    fields_for_contact,
    key,
    row_count,
    type_key,
)
from sim.apps.contacts.model import (
    delete_contact,
    effective_contacts,
    find_by_name,
    get_contact,
    group_by_letter,
    index_letter,
    matches,
    normalize_contact,
    normalize_phone,
    put_contact,
    same_number,
    search,
    set_starred,
    sort_contacts,
    transliterate,
    validate,
)
from sim.errors import SimError
from sim.render import TemplateRenderer
from sim.state import AppTask, InstanceState

# ---------------------------------------------------------------- helpers


def contact(cid: str, name: str, number: str = "", starred: bool = False) -> dict[str, Any]:
    """A literal contact with one mobile number."""
    phones = [{"type": "mobile", "number": number}] if number else []
    return {
        "id": cid,
        "name": name,
        "phones": phones,
        "emails": [],
        "company": "",
        "title": "",
        "starred": starred,
        "note": "",
    }


class _Nodes(HTMLParser):
    """Elements with ``data-class`` (the UI tree's nodes): attributes and own text."""

    def __init__(self) -> None:
        super().__init__()
        self.nodes: list[dict[str, Any]] = []
        self._stack: list[dict[str, Any] | None] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = None
        if tag not in ("path", "svg"):
            node = {"attrs": {k: v or "" for k, v in attrs}, "text": ""}
            if "data-class" in node["attrs"]:
                self.nodes.append(node)
        if tag != "path":
            self._stack.append(node)

    def handle_endtag(self, tag: str) -> None:
        if tag != "path" and self._stack:
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        for node in reversed(self._stack):
            if node is not None:
                node["text"] += data.strip()
                return


def nodes(html: str, **attrs: str) -> list[dict[str, Any]]:
    """UI nodes whose ``data-*`` attributes match (``rid="title"`` → ``data-rid``)."""
    parser = _Nodes()
    parser.feed(html)
    wanted = {f"data-{k.replace('_', '-')}": v for k, v in attrs.items()}
    return [n for n in parser.nodes if all(n["attrs"].get(k) == v for k, v in wanted.items())]


def texts(html: str, **attrs: str) -> list[str]:
    """The texts of the matching nodes, in document order."""
    return [n["text"] for n in nodes(html, **attrs)]


@pytest.fixture(scope="module")
def app() -> ContactsApp:
    return ContactsApp()


@pytest.fixture(scope="module")
def renderer(app: ContactsApp) -> TemplateRenderer:
    return TemplateRenderer([app])


def make_ctx(app: ContactsApp, renderer: TemplateRenderer, lang: str = "en") -> AppContext:
    """A fresh instance with Contacts in the foreground on its list."""
    state = InstanceState()
    state.os.tasks = [AppTask(app="contacts")]
    state.os.foreground = "contacts"
    if lang == "zh":
        state.os.settings["system"]["system_locales"] = "zh-CN"
    return AppContext(app, state, renderer.render)


@pytest.fixture
def ctx(app: ContactsApp, renderer: TemplateRenderer) -> AppContext:
    return make_ctx(app, renderer)


@pytest.fixture
def zh(app: ContactsApp, renderer: TemplateRenderer) -> AppContext:
    return make_ctx(app, renderer, "zh")


def tap(ctx: AppContext, action: str, gesture: str = "tap", **args: object) -> None:
    ctx.app.handle(ctx, Event(gesture, action, {k: str(v) for k, v in args.items()}))  # type: ignore[arg-type]


def render(ctx: AppContext) -> str:
    return ctx.app.render(ctx)


def view(ctx: AppContext) -> list[dict[str, Any]]:
    return ctx.app.view(ctx.data)["contacts"]


def by_name(ctx: AppContext, name: str) -> dict[str, Any]:
    found = find_by_name(view(ctx), name)
    assert found is not None, name
    return dict(found)


def stack(ctx: AppContext) -> list[tuple[str, dict[str, Any]]]:
    task = ctx.os.task("contacts")
    assert task is not None
    return [(r.path, dict(r.params)) for r in task.stack]


# ---------------------------------------------------------------- model: names


def test_normalize_phone_keeps_digits_and_a_leading_plus() -> None:
    assert normalize_phone("+86 138-0013-8000") == "+8613800138000"
    assert normalize_phone(" (010) 6552 3344 ") == "01065523344"
    assert normalize_phone("10086") == "10086"
    assert normalize_phone("1+2") == "12"


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("13800138000", "+86 138 0013 8000", True),
        ("+8613800138000", "138-0013-8000", True),
        ("10086", "10086", True),
        ("10086", "+86 10086", False),
        ("6552 3344", "010-6552 3344", True),
        ("13800138000", "13800138001", False),
        ("", "", False),
    ],
)
def test_same_number_is_a_loose_comparison(a: str, b: str, same: bool) -> None:
    assert same_number(a, b) is same


def test_index_letters_use_pinyin_surname_readings_and_hash() -> None:
    assert index_letter("张伟") == "Z"
    assert index_letter("曾志强") == "Z"  # pypinyin alone reads 曾 as "ceng"
    assert index_letter("Émilie Laurent") == "E"
    assert index_letter("alice") == "A"
    assert index_letter("12306") == "#"
    assert index_letter("@home") == "#"
    assert transliterate("中国移动") == "zhong guo yi dong"
    assert transliterate("Carlos García") == "carlos garcia"


def test_sort_interleaves_chinese_by_pinyin_and_puts_hash_last() -> None:
    people = [
        contact(f"c{i:03d}", name)
        for i, name in enumerate(
            ["Zoe", "12306", "张伟", "Bob", "李娜", "爸爸", "曾志强", "Émile", "alice", "陈静"], 1
        )
    ]
    ordered = [c["name"] for c in sort_contacts(people)]
    assert ordered == [
        "alice",
        "爸爸",
        "Bob",
        "陈静",
        "Émile",
        "李娜",
        "曾志强",
        "张伟",
        "Zoe",
        "12306",
    ]


def test_group_by_letter_groups_in_list_order() -> None:
    people = [
        contact("c1", "王芳"),
        contact("c2", "Wendy"),
        contact("c3", "10086"),
        contact("c4", "Alice"),
    ]
    groups = [(letter, [c["name"] for c in group]) for letter, group in group_by_letter(people)]
    assert groups == [("A", ["Alice"]), ("W", ["王芳", "Wendy"]), ("#", ["10086"])]


# ---------------------------------------------------------------- model: search


@pytest.mark.parametrize(
    ("query", "name", "number", "expected"),
    [
        ("alice", "Alice Johnson", "", True),
        ("JOHN", "Alice Johnson", "", True),
        ("lice", "Alice Johnson", "", False),  # word prefixes, not any substring
        ("gar", "Carlos García", "", True),
        ("张", "张伟", "", True),
        ("伟", "张伟", "", True),
        ("zhangwei", "张伟", "", True),
        ("wei", "张伟", "", True),
        ("zw", "张伟", "", True),
        ("zw", "Zoe Wang", "", False),
        ("wz", "张伟", "", False),
        ("138 0013", "张三", "+86 138 0013 8000", True),
        ("13800138000", "张三", "+86 138 0013 8000", True),
        ("139", "张三", "+86 138 0013 8000", False),
        ("", "Anyone", "", True),
        ("   ", "Anyone", "", True),
    ],
)
def test_matches(query: str, name: str, number: str, expected: bool) -> None:
    assert matches(contact("c1", name, number), query) is expected


def test_search_returns_matches_in_list_order() -> None:
    people = [
        contact("c1", "Oliver Smith"),
        contact("c2", "Bob Smith"),
        contact("c3", "Smithers"),
        contact("c4", "Ann"),
    ]
    assert [c["name"] for c in search(people, "smith")] == ["Bob Smith", "Oliver Smith", "Smithers"]


# ---------------------------------------------------------------- model: validation


def test_validate_requires_a_name() -> None:
    assert validate({"name": "", "phones": [], "emails": []}) == {"name": "err_name_required"}
    assert validate({"name": "  ", "phones": [], "emails": []}) == {"name": "err_name_required"}
    assert validate({"name": "Ann", "phones": [], "emails": []}) == {}


@pytest.mark.parametrize(
    ("number", "ok"),
    [
        ("+86 (010) 6552-3344", True),
        ("10086", True),
        ("", True),
        ("abc", False),
        ("138a0013", False),
        ("+", False),
        ("12+34", False),
        ("138#", False),
    ],
)
def test_validate_phone_characters(number: str, ok: bool) -> None:
    draft = {
        "name": "Ann",
        "phones": [{"type": "mobile", "number": ""}, {"type": "work", "number": number}],
        "emails": [],
    }
    assert validate(draft) == ({} if ok else {"phone.1": "err_phone_invalid"})


@pytest.mark.parametrize(
    ("address", "ok"), [("a@b.cn", True), ("", True), ("ab.cn", False), ("a b@c.d", False)]
)
def test_validate_email_needs_an_at(address: str, ok: bool) -> None:
    draft = {"name": "Ann", "phones": [], "emails": [{"type": "home", "address": address}]}
    assert validate(draft) == ({} if ok else {"email.0": "err_email_invalid"})


# ---------------------------------------------------------------- model: overlay


WORLD = {"contacts": [contact("c001", "Ann", "111"), contact("c002", "Bo", "222", True)]}


def test_effective_contacts_apply_replacements_tombstones_and_new_ones() -> None:
    overlay = {
        "contacts": {
            "c001": {**contact("c001", "Ann B", "111")},
            "c002": None,
            "n010": contact("n010", "New"),
            "n009": contact("n009", "Nine"),
        },
        "next_id": 11,
    }
    got = effective_contacts(WORLD, overlay)
    assert [c["id"] for c in got] == ["c001", "n009", "n010"]
    assert got[0]["name"] == "Ann B"
    assert effective_contacts(WORLD, {}) == [normalize_contact(c) for c in WORLD["contacts"]]


def test_ids_sort_numerically_past_999() -> None:
    overlay = {"contacts": {"n1000": contact("n1000", "X"), "n999": contact("n999", "Y")}}
    assert [c["id"] for c in effective_contacts({}, overlay)] == ["n999", "n1000"]


def test_put_contact_mints_ids_and_replaces() -> None:
    overlay: dict[str, Any] = {"contacts": {}, "next_id": 1}
    assert put_contact(overlay, {"name": " Cy ", "phones": [{"number": " 123 "}]}) == "n001"
    assert put_contact(overlay, {"name": "Di"}) == "n002"
    assert overlay["next_id"] == 3
    assert overlay["contacts"]["n001"] == {
        "id": "n001",
        "name": "Cy",
        "phones": [{"type": "mobile", "number": "123"}],
        "emails": [],
        "company": "",
        "title": "",
        "starred": False,
        "note": "",
    }
    assert put_contact(overlay, {**contact("c001", "Ann C")}) == "c001"
    assert get_contact(WORLD, overlay, "c001")["name"] == "Ann C"  # type: ignore[index]
    assert overlay["next_id"] == 3


def test_put_contact_with_its_own_new_id_advances_next_id() -> None:
    overlay: dict[str, Any] = {"contacts": {}, "next_id": 1}
    assert put_contact(overlay, contact("n005", "Set up")) == "n005"
    assert overlay["next_id"] == 6
    assert put_contact(overlay, {"name": "Next"}) == "n006"
    put_contact(overlay, contact("c900", "World-like"))
    assert overlay["next_id"] == 7


def test_delete_tombstones_world_contacts_and_forgets_created_ones() -> None:
    overlay: dict[str, Any] = {"contacts": {}, "next_id": 1}
    new = put_contact(overlay, {"name": "Temp"})
    delete_contact(overlay, new)
    delete_contact(overlay, "c001")
    assert overlay["contacts"] == {"c001": None}
    assert [c["id"] for c in effective_contacts(WORLD, overlay)] == ["c002"]
    assert get_contact(WORLD, overlay, "c001") is None


def test_set_starred_writes_only_changes() -> None:
    overlay: dict[str, Any] = {"contacts": {}, "next_id": 1}
    set_starred(overlay, "c002", True, WORLD)
    assert overlay["contacts"] == {}
    set_starred(overlay, "c001", True, WORLD)
    assert overlay["contacts"]["c001"]["starred"] is True
    assert overlay["contacts"]["c001"]["name"] == "Ann"
    with pytest.raises(SimError, match="c404"):
        set_starred(overlay, "c404", True, WORLD)


def test_find_by_name_exact_then_ignoring_case() -> None:
    people = [contact("c1", "alice"), contact("c2", "Alice"), contact("c3", "张伟")]
    assert find_by_name(people, "Alice")["id"] == "c2"  # type: ignore[index]
    assert find_by_name(people, " ALICE ")["id"] == "c1"  # type: ignore[index]
    assert find_by_name(people, "张伟")["id"] == "c3"  # type: ignore[index]
    assert find_by_name(people, "张") is None


# ---------------------------------------------------------------- editor drafts


def test_editor_fields_round_trip() -> None:
    original = {
        **contact("c1", "Ann", "111"),
        "emails": [{"type": "work", "address": "a@b.c"}],
        "company": "Acme",
        "title": "CEO",
        "note": "hi",
    }
    original["phones"].append({"type": "home", "number": "222"})
    fields = fields_for_contact(original)
    assert fields[key("phone", 1)] == "222"
    assert fields[type_key("phone", 1)] == "home"
    assert row_count(fields, "phone") == 2
    assert row_count(fields, "email") == 1
    back = normalize_contact({**contact_from_fields(fields), "id": "c1"})
    assert back == normalize_contact(original)


def test_new_contact_drafts_have_one_empty_row_with_default_labels() -> None:
    fields = fields_for_contact(None)
    assert fields[key("name")] == ""
    assert fields[type_key("phone", 0)] == "mobile"
    assert fields[type_key("email", 0)] == "home"
    assert contact_from_fields(fields)["phones"] == [{"type": "mobile", "number": ""}]
    assert row_count({}, "phone") == 1


# ---------------------------------------------------------------- world data and strings


def test_world_has_enough_realistic_contacts(app: ContactsApp) -> None:
    contacts = app.world["contacts"]
    ids = [c["id"] for c in contacts]
    names = [c["name"] for c in contacts]
    numbers = [p["number"] for c in contacts for p in c["phones"]]
    assert 60 <= len(contacts) <= 80
    assert len(set(ids)) == len(ids) and all(i.startswith("c") for i in ids)
    assert len(set(names)) == len(names)
    assert len(set(numbers)) == len(numbers)
    assert any("\u4e00" <= n[0] <= "\u9fff" for n in names)
    assert any(n[0].isascii() and n[0].isalpha() for n in names)
    assert 3 <= sum(c["starred"] for c in contacts) <= 6
    for c in contacts:
        assert normalize_contact(c) == c, c["id"]
        assert validate(c) == {}, c["id"]


def test_view_is_plain_normalised_and_sorted_by_id(app: ContactsApp) -> None:
    got = app.view(app.initial_overlay())
    assert list(got) == ["contacts"]
    assert [c["id"] for c in got["contacts"]] == sorted(c["id"] for c in app.world["contacts"])
    assert json.loads(json.dumps(got)) == got


def test_strings_have_identical_keys(app: ContactsApp) -> None:
    assert set(app.strings("en")) == set(app.strings("zh"))
    assert app.label("en") == "Contacts"
    assert app.label("zh") == "通讯录"
    assert app.strings("en")["err_name_required"] == "Name is required"
    assert app.strings("zh")["err_name_required"] == "请输入姓名"


def test_icon_is_a_stroked_24px_svg(app: ContactsApp) -> None:
    svg = app.icon_svg()
    assert 'viewBox="0 0 24 24"' in svg
    assert 'stroke="currentColor"' in svg and 'fill="none"' in svg


def test_activities_per_route(ctx: AppContext, app: ContactsApp) -> None:
    assert app.package_on("aosp") == "com.android.contacts"
    assert app.activity_for(ctx.route) == ".activities.PeopleActivity"
    tap(ctx, "open", id="c001")
    assert app.activity_for(ctx.route) == ".quickcontact.QuickContactActivity"
    tap(ctx, "edit", id="c001")
    assert app.activity_for(ctx.route) == ".activities.ContactEditorActivity"


# ---------------------------------------------------------------- list screen


def test_list_shows_favorites_then_letters_then_hash(ctx: AppContext) -> None:
    html = render(ctx)
    sections = texts(html, rid="section_title")
    assert sections[0] == "Favorites"
    letters = sections[1:]
    assert letters == sorted(letters, key=lambda s: (s == "#", s))
    assert letters[-1] == "#"
    favorites = {"张三", "中国移动", "Charlie", "妈妈"}
    rows = nodes(html, rid="contact_row", action="open")
    assert len(rows) == len(view(ctx)) + len(favorites)
    titles = texts(html, rid="title")
    assert set(titles[1:5]) == favorites  # [0] is the toolbar title
    assert nodes(html, rid="floating_action_button", desc="Create contact", action="create")
    assert nodes(html, field="contacts.search", hint="Search contacts", submit="search")
    assert nodes(html, scroll_key="contacts.list")
    assert not nodes(html, action="os:back")


def test_list_rows_carry_the_contact_id(ctx: AppContext) -> None:
    html = render(ctx)
    zhang_wei = by_name(ctx, "张伟")
    row = [n for n in nodes(html, rid="contact_row") if n["attrs"]["data-arg-id"] == "c013"]
    assert zhang_wei["id"] == "c013" and len(row) == 1


def test_search_filters_rows_live(ctx: AppContext) -> None:
    ctx.set_field("contacts.search", "zhang")
    html = render(ctx)
    titles = texts(html, rid="title")
    assert "张伟" in titles and "Michael Zhang" in titles
    assert "Alice Johnson" not in titles
    assert "Favorites" not in texts(html, rid="section_title")
    assert texts(html, rid="section_title") == [f"{len(titles) - 1} found"]
    assert texts(html, field="contacts.search") == ["zhang"]
    ctx.set_field("contacts.search", "qqqq")
    html = render(ctx)
    assert texts(html, rid="empty") == ["No contacts found"]
    assert not nodes(html, rid="contact_row")


def test_search_by_number(ctx: AppContext) -> None:
    ctx.set_field("contacts.search", "10086")
    assert texts(render(ctx), rid="title")[1:] == ["中国移动"]


def test_back_on_list_clears_search_first(ctx: AppContext, app: ContactsApp) -> None:
    ctx.set_field("contacts.search", "li")
    ctx.state.ui.focus = "contacts.search"
    ctx.state.ui.keyboard_visible = True
    assert app.on_back(ctx) is True
    assert ctx.field("contacts.search") == ""
    assert ctx.state.ui.keyboard_visible is False
    assert app.on_back(ctx) is False


def test_search_submit_hides_keyboard(ctx: AppContext) -> None:
    ctx.state.ui.focus = "contacts.search"
    ctx.state.ui.keyboard_visible = True
    tap(ctx, "search", gesture="submit")
    assert ctx.state.ui.keyboard_visible is False and ctx.state.ui.focus is None


# ---------------------------------------------------------------- contact card


def test_open_contact_shows_details(ctx: AppContext) -> None:
    tap(ctx, "open", id="c013")
    assert stack(ctx) == [("/", {}), ("/contact", {"id": "c013"})]
    html = render(ctx)
    assert texts(html, rid="title")[0] == "张伟"
    assert "+86 138 1234 5678" in texts(html, rid="title")
    assert texts(html, rid="summary")[:3] == ["Mobile", "Work", "Work"]
    assert texts(html, rid="section_title") == ["Phone", "Email", "Organization"]
    assert "软件工程师" in texts(html, rid="summary")
    assert nodes(html, desc="Add to favorites", action="star", arg_id="c013")
    assert nodes(html, desc="Edit", action="edit", arg_id="c013")
    assert nodes(html, desc="Delete", action="delete", arg_id="c013")
    assert nodes(html, desc="Navigate up", action="os:back")


def test_star_and_unstar(ctx: AppContext) -> None:
    before = view(ctx)
    tap(ctx, "open", id="c013")
    tap(ctx, "star", id="c013")
    assert by_name(ctx, "张伟")["starred"] is True
    html = render(ctx)
    assert nodes(html, desc="Remove from favorites", action="star")
    assert not nodes(html, desc="Add to favorites")
    ctx.state.os.tasks[0].stack.pop()
    assert "张伟" in texts(render(ctx), rid="title")[1:6]
    tap(ctx, "star", id="c013")
    assert by_name(ctx, "张伟")["starred"] is False
    assert view(ctx) == before


def test_unstar_a_seed_favorite(ctx: AppContext) -> None:
    tap(ctx, "open", id="c005")
    tap(ctx, "star", id="c005")
    assert by_name(ctx, "中国移动")["starred"] is False
    assert sum(c["starred"] for c in view(ctx)) == 3


def test_delete_cancel_keeps_the_contact(ctx: AppContext, app: ContactsApp) -> None:
    tap(ctx, "open", id="c002")
    tap(ctx, "delete", id="c002")
    html = render(ctx)
    assert texts(html, rid="alertTitle") == ["Delete this contact?"]
    assert texts(html, rid="button2") == ["Cancel"]  # Android: the negative button
    assert nodes(html, rid="button1", action="delete_confirm", arg_id="c002")
    tap(ctx, "dialog_cancel")
    assert not nodes(render(ctx), rid="alertTitle")
    tap(ctx, "delete", id="c002")
    assert app.on_back(ctx) is True  # back closes the dialog, stays on the card
    assert not nodes(render(ctx), rid="alertTitle")
    assert ctx.route.path == "/contact"
    assert find_by_name(view(ctx), "李四") is not None


def test_delete_confirm_tombstones_and_returns_to_list(ctx: AppContext) -> None:
    count = len(view(ctx))
    tap(ctx, "open", id="c002")
    tap(ctx, "delete", id="c002")
    tap(ctx, "delete_confirm", id="c002")
    assert ctx.data["contacts"] == {"c002": None}
    assert find_by_name(view(ctx), "李四") is None
    assert len(view(ctx)) == count - 1
    assert ctx.state.ui.toast == "Contact deleted"
    assert stack(ctx) == [("/", {})]
    assert "李四" not in texts(render(ctx), rid="title")


def test_missing_contact_renders_a_message(ctx: AppContext) -> None:
    ctx.navigate("/contact", id="c999")
    html = render(ctx)
    assert texts(html, rid="empty") == ["This contact no longer exists"]
    assert not nodes(html, action="star")


# ---------------------------------------------------------------- editor


def test_create_with_validation_failure_then_success(ctx: AppContext) -> None:
    before = view(ctx)
    tap(ctx, "create")
    assert stack(ctx) == [("/", {}), ("/edit", {})]
    html = render(ctx)
    assert texts(html, rid="title")[0] == "Create contact"
    assert nodes(html, field="contacts.edit.name", hint="Name", rid="name_edit")
    assert nodes(html, desc="Save", action="save", rid="editor_menu_save_button")
    assert nodes(html, desc="Cancel", action="os:back")
    tap(ctx, "save")
    assert texts(render(ctx), rid="textinput_error") == ["Name is required"]
    assert ctx.route.path == "/edit" and view(ctx) == before
    ctx.set_field("contacts.edit.name", "Test User")
    ctx.set_field("contacts.edit.phone.0", "138-abc")
    ctx.set_field("contacts.edit.email.0", "nobody")
    tap(ctx, "save")
    assert texts(render(ctx), rid="textinput_error") == [
        "Invalid phone number",
        "Invalid email address",
    ]
    ctx.set_field("contacts.edit.phone.0", "+86 139 0000 0000")
    ctx.set_field("contacts.edit.email.0", " test@example.com ")
    ctx.set_field("contacts.edit.company", "Acme Corp")
    tap(ctx, "save")
    created = by_name(ctx, "Test User")
    assert created == {
        "id": "n001",
        "name": "Test User",
        "phones": [{"type": "mobile", "number": "+86 139 0000 0000"}],
        "emails": [{"type": "home", "address": "test@example.com"}],
        "company": "Acme Corp",
        "title": "",
        "starred": False,
        "note": "",
    }
    assert len(view(ctx)) == len(before) + 1
    assert ctx.data["next_id"] == 2
    assert ctx.state.ui.toast == "Contact saved"
    assert stack(ctx) == [("/", {}), ("/contact", {"id": "n001"})]
    assert not [k for k in ctx.state.ui.fields if k.startswith("contacts.edit.")]
    assert texts(render(ctx), rid="title")[0] == "Test User"


def test_delete_a_created_contact_leaves_no_trace(ctx: AppContext) -> None:
    before = view(ctx)
    tap(ctx, "create")
    ctx.set_field("contacts.edit.name", "Temp")
    tap(ctx, "save")
    tap(ctx, "delete", id="n001")
    tap(ctx, "delete_confirm", id="n001")
    assert ctx.data["contacts"] == {}
    assert view(ctx) == before


def test_edit_prefills_and_updates_in_place(ctx: AppContext) -> None:
    tap(ctx, "open", id="c001")
    tap(ctx, "edit", id="c001")
    assert ctx.field("contacts.edit.name") == "张三"
    html = render(ctx)
    assert texts(html, rid="title")[0] == "Edit contact"
    assert texts(html, field="contacts.edit.phone.0") == ["+86 138 0013 8000"]
    ctx.set_field("contacts.edit.title", "产品总监")
    tap(ctx, "save")
    edited = by_name(ctx, "张三")
    assert edited["title"] == "产品总监" and edited["starred"] is True
    assert edited["id"] == "c001"
    assert stack(ctx) == [("/", {}), ("/contact", {"id": "c001"})]
    assert "产品总监" in texts(render(ctx), rid="summary")


def test_saving_unchanged_contact_writes_nothing(ctx: AppContext) -> None:
    tap(ctx, "open", id="c013")
    tap(ctx, "edit", id="c013")
    tap(ctx, "save")
    assert ctx.data["contacts"] == {}
    assert ctx.route.path == "/contact"


def test_cancel_editor_discards_drafts(ctx: AppContext, app: ContactsApp) -> None:
    before = view(ctx)
    tap(ctx, "open", id="c013")
    tap(ctx, "edit", id="c013")
    ctx.set_field("contacts.edit.name", "Changed")
    assert app.on_back(ctx) is False  # the OS pops the editor
    assert not [k for k in ctx.state.ui.fields if k.startswith("contacts.edit.")]
    assert view(ctx) == before


def test_label_picker_and_extra_rows(ctx: AppContext, app: ContactsApp) -> None:
    tap(ctx, "create")
    ctx.set_field("contacts.edit.name", "Work Person")
    tap(ctx, "add_row", kind="phone")
    html = render(ctx)
    assert nodes(html, field="contacts.edit.phone.1", rid="phone_edit")
    assert texts(html, rid="spinner") == ["Mobile", "Mobile", "Home"]
    tap(ctx, "pick_type", kind="email", index=0)
    html = render(ctx)
    assert texts(html, rid="alertTitle") == ["Choose label"]
    radios = nodes(html, rid="radio")
    assert [(r["attrs"]["data-text"], r["attrs"]["data-checked"]) for r in radios] == [
        ("Home", "true"),
        ("Work", "false"),
        ("Other", "false"),
    ]
    assert app.on_back(ctx) is True and not nodes(render(ctx), rid="radio")
    tap(ctx, "pick_type", kind="email", index=0)
    tap(ctx, "set_type", kind="email", index=0, type="work")
    assert not nodes(render(ctx), rid="alertTitle")
    ctx.set_field("contacts.edit.phone.0", "10010")
    ctx.set_field("contacts.edit.phone.1", "(021) 6288-0000")
    ctx.set_field("contacts.edit.email.0", "w@corp.cn")
    tap(ctx, "save")
    saved = by_name(ctx, "Work Person")
    assert saved["phones"] == [
        {"type": "mobile", "number": "10010"},
        {"type": "mobile", "number": "(021) 6288-0000"},
    ]
    assert saved["emails"] == [{"type": "work", "address": "w@corp.cn"}]


# ---------------------------------------------------------------- Chinese UI


def test_every_route_renders_in_chinese(zh: AppContext) -> None:
    html = render(zh)
    assert texts(html, rid="title")[0] == "通讯录"
    assert texts(html, rid="section_title")[0] == "收藏"
    assert nodes(html, desc="新建联系人", action="create")
    assert nodes(html, hint="搜索联系人")
    tap(zh, "open", id="c001")
    html = render(zh)
    assert nodes(html, desc="取消收藏", action="star")
    assert nodes(html, desc="编辑") and nodes(html, desc="删除")
    assert texts(html, rid="section_title")[0] == "电话"
    assert "手机" in texts(html, rid="summary")
    tap(zh, "delete", id="c001")
    html = render(zh)
    assert texts(html, rid="alertTitle") == ["要删除此联系人吗？"]
    assert texts(html, rid="button2") == ["取消"] and texts(html, rid="button1") == ["删除"]
    tap(zh, "dialog_cancel")
    tap(zh, "edit", id="c001")
    zh.set_field("contacts.edit.name", "")
    tap(zh, "save")
    html = render(zh)
    assert texts(html, rid="title")[0] == "编辑联系人"
    assert nodes(html, desc="保存") and nodes(html, hint="姓名") and nodes(html, desc="取消")
    assert texts(html, rid="textinput_error") == ["请输入姓名"]
    tap(zh, "pick_type", kind="phone", index=0)
    assert texts(render(zh), rid="title")[-4:] == ["手机", "单位", "住宅", "其他"]


def test_chinese_search_and_toasts(zh: AppContext) -> None:
    zh.set_field("contacts.search", "zw")
    html = render(zh)
    assert texts(html, rid="section_title") == ["找到 1 个联系人"]
    tap(zh, "open", id="c013")
    tap(zh, "delete", id="c013")
    tap(zh, "delete_confirm", id="c013")
    assert zh.state.ui.toast == "联系人已删除"
    assert texts(render(zh), rid="empty") == ["未找到联系人"]


# ---------------------------------------------------------------- determinism


def test_same_actions_give_identical_states(app: ContactsApp, renderer: TemplateRenderer) -> None:
    dumps = []
    for _ in range(2):
        c = make_ctx(app, renderer)
        tap(c, "create")
        c.set_field("contacts.edit.name", "Same")
        tap(c, "save")
        tap(c, "star", id="n001")
        dumps.append(c.state.model_dump_json())
    assert dumps[0] == dumps[1]
    assert json.loads(dumps[0])["apps"]["contacts"]["contacts"]["n001"]["starred"] is True


def test_package_ships_its_resources() -> None:
    package = resources.files("sim.apps.contacts")
    for name in (
        "world.json",
        "strings.json",
        "icon.svg",
        "templates/list.html",
        "templates/contact.html",
        "templates/edit.html",
    ):
        assert package.joinpath(name).is_file(), name


def test_search_matches_the_company_as_android_does() -> None:
    contact = {"id": "x", "name": "Zed Q", "company": "Acme Corp", "phones": []}
    assert matches(contact, "acme") and matches(contact, "corp")
    assert not matches(contact, "cme")
