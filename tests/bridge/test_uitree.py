"""Tests for bridge.uitree over the 24 real dumps and hand-made edge cases."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

import bridge.uitree as uitree
import bridge.uitree_text as uitree_text
from bridge.errors import UITreeError
from bridge.schema import BackendInfo, Observation, ScreenSpec, UINode, UIStatus
from bridge.uitree import XML_DECLARATION, UITree, parse_hierarchy, render_text, to_xml
from tests.bridge.uitree_expectations import DUMPS

DUMP_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "real_dumps"
GBOARD = "com.google.android.inputmethod.latin"
SYSTEMUI = "com.android.systemui"


def raw(name: str) -> bytes:
    return (DUMP_DIR / name).read_bytes()


def tree(name: str) -> UITree:
    return parse_hierarchy(raw(name))


def _prefix(prefix: str) -> str:
    return next(name for name in DUMPS if name.startswith(prefix))


def node(node_id: int, parent: int | None = None, **fields: object) -> UINode:
    fields.setdefault("bounds_px", (0, 0, 100, 100))
    fields.setdefault("class_name", "android.view.View")
    return UINode.model_validate({"id": node_id, "parent": parent, **fields})


def test_the_fixture_set_is_complete() -> None:
    assert sorted(path.name for path in DUMP_DIR.glob("*.xml")) == sorted(DUMPS)
    assert len(DUMPS) == 24


def test_public_api_is_declared_and_complete() -> None:
    defined_here = {
        name
        for name, value in vars(uitree).items()
        if not name.startswith("_")
        and not isinstance(value, ModuleType)
        and getattr(value, "__module__", uitree.__name__) == uitree.__name__
    }
    assert set(uitree.__all__) == defined_here | {"render_text"}  # re-exported from uitree_text
    public = {"XML_DECLARATION", "UITree", "parse_hierarchy", "to_xml", "xpath_literal"}
    assert defined_here == public
    assert all(getattr(uitree, name).__doc__ for name in defined_here - {"XML_DECLARATION"})
    assert uitree.render_text is uitree_text.render_text and uitree_text.render_text.__doc__


# --------------------------------------------------------------------------- real dumps


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_real_dump_facts(name: str) -> None:
    facts = DUMPS[name]
    parsed = tree(name)
    assert len(parsed) == facts.nodes
    assert len(parsed.roots()) == facts.windows
    assert parsed.rotation == facts.rotation
    assert {n.package for n in parsed} == facts.packages
    assert [n.id for n in parsed] == list(range(facts.nodes))
    for node_id, field, value in facts.fields:
        assert getattr(parsed.node(node_id), field) == value, (node_id, field)


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_real_dump_agrees_with_elementtree(name: str) -> None:
    elements = list(ElementTree.fromstring(raw(name)).iter("node"))
    parsed = tree(name)
    assert len(parsed) == len(elements)
    for element, parsed_node in zip(elements, parsed, strict=True):
        assert parsed_node.text == element.get("text")
        assert parsed_node.class_name == element.get("class")
        assert parsed_node.resource_id == element.get("resource-id")
        assert parsed_node.clickable == (element.get("clickable") == "true")
        assert parsed_node.visible == (element.get("visible-to-user", "true") == "true")
        bounds = element.get("bounds", "").replace("][", ",").strip("[]").split(",")
        assert parsed_node.bounds_px == tuple(int(part) for part in bounds)
        modelled = {"index", "bounds", "hint", "text", "resource-id", "class", "package"}
        modelled |= {"content-desc", "checkable", "checked", "clickable", "enabled"}
        modelled |= {"focusable", "focused", "scrollable", "long-clickable", "password"}
        modelled |= {"selected", "visible-to-user"}
        unmodelled = [(key, value) for key, value in element.items() if key not in modelled]
        assert list(parsed_node.extra.items()) == unmodelled


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_round_trip_is_lossless(name: str) -> None:
    parsed = tree(name)
    written = parsed.to_xml()
    again = parse_hierarchy(written)
    assert again.nodes == parsed.nodes
    assert again.rotation == parsed.rotation
    assert again.to_xml() == written
    assert to_xml(parsed.nodes, parsed.rotation) == written
    plain = etree.fromstring(written.encode("utf-8"))
    assert plain.tag == "hierarchy"
    assert len(list(plain.iter("node"))) == DUMPS[name].nodes


@pytest.mark.parametrize("prefix", ["17", "19"])
def test_u2_dumps_are_rewritten_byte_for_byte(prefix: str) -> None:
    text = raw(_prefix(prefix)).decode("utf-8")
    expected = text.replace("\r\r\n", "\n").replace("\r\n", "\n")
    assert parse_hierarchy(text).to_xml() == expected


def test_parent_links_and_helpers_on_a_multi_window_dump() -> None:
    parsed = tree(_prefix("17"))
    roots = parsed.roots()
    assert [root.package for root in roots] == ["com.facebook.katana", *[SYSTEMUI] * 2]
    assert all(parsed.ancestors(n.id)[-1] in roots for n in parsed if n.parent is not None)
    assert parsed.screen_bounds() == (0, 0, 720, 1560)
    assert [child.id for child in parsed.children(0)] == [1]
    assert parsed.node(1).parent == 0
    assert parsed.ancestors(0) == []


def test_gboard_window_and_zero_area_counts() -> None:
    avito = tree(_prefix("23"))
    assert sum(n.package == GBOARD for n in avito) == 137
    assert sum(n.scrollable for n in avito) == 6
    assert sum(n.area_px == 0 for n in tree(_prefix("27"))) == 26
    assert sum(n.area_px == 0 for n in tree(_prefix("29"))) == 26
    stock = tree(_prefix("19"))
    assert all(n.extra.get("display-id") == "0" for n in stock)
    assert sum("NAF" in n.extra for n in stock) == 8
    assert tree(_prefix("16")).screen_bounds() == (800, 624, 1520, 2064)


def test_parsed_tree_fits_an_observation() -> None:
    parsed = tree(_prefix("32"))
    observation = Observation(
        step=0,
        screen=ScreenSpec(width_px=1080, height_px=2400),
        ui=parsed.nodes,
        ui_status=UIStatus.OK,
        backend=BackendInfo(kind="device"),
    )
    assert observation.node(20) == parsed.node(20)


# --------------------------------------------------------------------------- input variants


def test_trailer_junk_crlf_bytes_and_str_give_the_same_nodes() -> None:
    data = raw(_prefix("15"))
    expected = parse_hierarchy(data).nodes
    text = data.decode("utf-8")
    variants = [
        text,
        text + "UI hierchary dumped to: /dev/tty",
        text + "\nUI hierchary dumped to: /dev/tty\n",
        "WARNING: linker: libdvm.so has text relocations.\n" + text,
        "\ufeff" + text,
        b"\xef\xbb\xbf" + data,
        text.replace("><", ">\r\n<"),
        text.replace("><", ">\r\r\n<"),
    ]
    for variant in variants:
        assert parse_hierarchy(variant).nodes == expected


def test_own_output_with_crlf_line_endings_parses() -> None:
    parsed = tree(_prefix("03"))
    written = parsed.to_xml()
    assert parse_hierarchy(written.replace("\n", "\r\n")).nodes == parsed.nodes
    assert parse_hierarchy(written.encode("utf-8")).nodes == parsed.nodes


def test_minimal_platform_dump_without_optional_attributes() -> None:
    dump = '<hierarchy rotation="2"><node bounds="[-5,0][10,20]" class="x.EditText"/></hierarchy>'
    parsed = parse_hierarchy(dump)
    (only,) = parsed.nodes
    assert parsed.rotation == 2
    assert only.bounds_px == (-5, 0, 10, 20)
    assert only.visible and only.enabled and only.editable
    assert (only.text, only.index, only.extra) == ("", 0, {})


def test_editable_attribute_wins_over_the_class() -> None:
    dump = (
        '<hierarchy><node bounds="[0,0][1,1]" class="android.widget.EditText" editable="false"/>'
        '<node bounds="[0,0][1,1]" class="android.widget.TextView" editable="true"/></hierarchy>'
    )
    first, second = parse_hierarchy(dump).nodes
    assert not first.editable and second.editable
    assert parse_hierarchy(to_xml([first, second])).nodes == [first, second]


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("dump", "words"),
    [
        ("", ["empty", "retry"]),
        (b"", ["empty", "retry"]),
        ("  \r\n ", ["empty"]),
        ("ERROR: could not get idle state.", ["no <hierarchy>", "idle state", "retry"]),
        ('<hierarchy rotation="0"/>', ["no <node>", "retry"]),
        (XML_DECLARATION + '<hierarchy rotation="0"></hierarchy>', ["no <node>"]),
        ('<hierarchy rotation="0"><node bounds="[0,0][1,1]">', ["not well-formed", "line 1"]),
        ("junk\njunk\n<hierarchy>\n<node bounds='[0,0][1,1]'></nod></hierarchy>", ["line 4"]),
        ('<hierarchyX><node bounds="[0,0][1,1]"/></hierarchyX>', ["<hierarchyX>", "not"]),
        ('<hierarchy rotation="x"><node bounds="[0,0][1,1]"/></hierarchy>', ["rotation='x'"]),
        ('<hierarchy rotation="7"><node bounds="[0,0][1,1]"/></hierarchy>', ["rotation 7"]),
        (b"<hierarchy>\xff</hierarchy>", ["not UTF-8"]),
    ],
)
def test_unusable_dumps_raise_helpful_errors(dump: str | bytes, words: list[str]) -> None:
    with pytest.raises(UITreeError) as caught:
        parse_hierarchy(dump)
    assert isinstance(caught.value, ValueError)
    for word in words:
        assert word in str(caught.value)


def test_truncated_real_dump_is_reported_with_its_line() -> None:
    text = raw(_prefix("19")).decode("utf-8")
    with pytest.raises(UITreeError, match=r"not well-formed XML: .*line \d+.*retry"):
        parse_hierarchy(text[: len(text) // 2])


@pytest.mark.parametrize(
    ("attributes", "words"),
    [
        ('class="android.widget.Button" bounds="[0,0][10]"', ["node 1", "Button", "[0,0][10]"]),
        ('class="a.B" bounds="0,0,10,10"', ["node 1", "bounds='0,0,10,10'", "[0,0][1080,2400]"]),
        ('class="a.B"', ["node 1", "no bounds"]),
        ('class="a.B" bounds="[0,0][1,1]" index="first"', ["node 1", "index='first'"]),
    ],
)
def test_bad_node_attributes_name_the_node(attributes: str, words: list[str]) -> None:
    dump = f'<hierarchy><node bounds="[0,0][9,9]"><node {attributes}/></node></hierarchy>'
    with pytest.raises(UITreeError) as caught:
        parse_hierarchy(dump)
    for word in words:
        assert word in str(caught.value)
    assert "line 1" in str(caught.value)


def test_entities_and_dtds_are_not_resolved() -> None:
    dump = (
        '<?xml version="1.0"?><!DOCTYPE hierarchy [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
        '<hierarchy><node text="&x;" bounds="[0,0][1,1]"/></hierarchy>'
    )
    with pytest.raises(UITreeError, match="not well-formed"):
        parse_hierarchy(dump)


def test_trees_that_are_not_in_document_order_are_rejected() -> None:
    with pytest.raises(UITreeError, match=r"ids must be 0\.\.n-1"):
        UITree([node(1)])
    with pytest.raises(UITreeError, match="depth-first document order"):
        UITree([node(0), node(1), node(2, parent=0)])
    with pytest.raises(UITreeError, match="depth-first document order"):
        to_xml([node(0, parent=None), node(1, parent=5)])
    with pytest.raises(UITreeError, match="extra keys"):
        UITree([node(0, extra={"text": "shadow"})])
    with pytest.raises(UITreeError, match="extra keys"):
        UITree([node(0, extra={"not a name": "x"})])
    with pytest.raises(KeyError):
        UITree([node(0)]).node(1)
    with pytest.raises(KeyError):
        UITree([node(0)]).children(-1)


# --------------------------------------------------------------------------- writing


def test_writer_matches_the_documented_u2_shape() -> None:
    nodes = [
        node(
            0,
            class_name="android.widget.FrameLayout",
            package="com.example.app",
            bounds_px=(0, 0, 1080, 2400),
            extra={"drawing-order": "0", "display-id": "0"},
        ),
        node(
            1,
            parent=0,
            text="Sign in",
            resource_id="com.example.app:id/login",
            class_name="android.widget.Button",
            package="com.example.app",
            clickable=True,
            focusable=True,
            bounds_px=(90, 800, 990, 940),
            extra={"drawing-order": "1", "display-id": "0"},
        ),
    ]
    common = (
        'checkable="false" checked="false" clickable="{c}" enabled="true" focusable="{c}" '
        'focused="false" scrollable="false" long-clickable="false" password="false" '
        'selected="false" visible-to-user="true"'
    )
    expected = "\n".join(
        [
            XML_DECLARATION,
            '<hierarchy rotation="0">',
            '  <node index="0" text="" resource-id="" class="android.widget.FrameLayout" '
            'package="com.example.app" content-desc="" '
            + common.format(c="false")
            + ' bounds="[0,0][1080,2400]" drawing-order="0" hint="" display-id="0">',
            '    <node index="0" text="Sign in" resource-id="com.example.app:id/login" '
            'class="android.widget.Button" package="com.example.app" content-desc="" '
            + common.format(c="true")
            + ' bounds="[90,800][990,940]" drawing-order="1" hint="" display-id="0" />',
            "  </node>",
            "</hierarchy>",
        ]
    )
    assert to_xml(nodes) == expected


def test_writer_places_naf_first_and_vendor_attributes_last() -> None:
    written = to_xml([node(0, extra={"xpos": "[0,0][0,0]", "NAF": "true", "drawing-order": "3"})])
    line = written.splitlines()[2]
    assert line.startswith('  <node NAF="true" index="0" ')
    assert line.endswith('bounds="[0,0][100,100]" drawing-order="3" hint="" xpos="[0,0][0,0]" />')


def test_writer_escapes_what_xml_needs() -> None:
    text = "a & b < c > \"d\" 'e'\nline two\r\n\ttab"
    written = to_xml([node(0, text=text, content_desc="x\x01y", hint="\ud800")])
    assert "&amp;" in written and "&lt;" in written and "&quot;" in written
    assert "&#10;" in written and "&#13;" in written and "&#9;" in written
    assert "\n" not in written.splitlines()[2]
    (back,) = parse_hierarchy(written).nodes
    assert back.text == text
    assert (back.content_desc, back.hint) == ("x.y", ".")


def test_empty_node_list_writes_an_empty_hierarchy_that_does_not_parse() -> None:
    written = to_xml([], rotation=1)
    assert written == XML_DECLARATION + '\n<hierarchy rotation="1">\n</hierarchy>'
    with pytest.raises(UITreeError, match="no <node>"):
        parse_hierarchy(written)


@st.composite
def node_lists(draw: st.DrawFn) -> list[UINode]:
    words = st.text(
        st.characters(exclude_categories=("Cs", "Cc", "Cn"), include_characters="\t\n\r&<>\"'"),
        max_size=12,
    )
    names = st.from_regex(r"[a-z][a-z0-9\-]{0,8}", fullmatch=True).filter(
        lambda name: name not in uitree._MODELLED
    )
    count = draw(st.integers(1, 12))
    levels = [0]
    for _ in range(count - 1):
        levels.append(draw(st.integers(0, levels[-1] + 1)))
    nodes: list[UINode] = []
    for position, level in enumerate(levels):
        parent = next((n.id for n in reversed(nodes) if levels[n.id] == level - 1), None)
        nodes.append(
            UINode(
                id=position,
                parent=parent,
                index=draw(st.integers(-1, 50)),
                class_name=draw(st.sampled_from(["android.widget.EditText", "a.B", ""])),
                text=draw(words),
                content_desc=draw(words),
                hint=draw(words),
                bounds_px=draw(st.tuples(*[st.integers(-50, 3000)] * 4)),
                checked=draw(st.booleans()),
                editable=draw(st.booleans()),
                visible=draw(st.booleans()),
                enabled=draw(st.booleans()),
                extra=draw(st.dictionaries(names, words, max_size=3)),
            )
        )
    return nodes


@settings(max_examples=150, deadline=None)
@given(node_lists(), st.integers(0, 3))
def test_any_tree_survives_a_round_trip(nodes: list[UINode], rotation: int) -> None:
    again = parse_hierarchy(to_xml(nodes, rotation))
    assert again.nodes == nodes
    assert again.rotation == rotation
    assert render_text(again.nodes) == render_text(nodes)


# --------------------------------------------------------------------------- xpath


def test_xpath_by_text_resource_id_and_class() -> None:
    settings_tree = tree(_prefix("32"))
    assert [n.id for n in settings_tree.xpath('//node[@text="Phone"]')] == [20]
    assert [n.id for n in settings_tree.xpath('//node[@text="Phone"]/..')] == [19]
    buttons = settings_tree.xpath('//*[@class="android.widget.Button"]')
    assert [n.id for n in buttons] == [34, 38, 41]
    launcher = tree(_prefix("15"))
    icons = launcher.xpath('//node[@resource-id="com.android.launcher3:id/icon"]')
    assert len(icons) == 20 and icons[6].text == "Clock"
    assert len(tree(_prefix("23")).xpath(f'//node[@package="{GBOARD}"]')) == 137
    assert tree(_prefix("03")).xpath('//node[contains(@text, "3\n79")]')[0].id == 7


def test_xpath_sees_attributes_as_dumped() -> None:
    stock = tree(_prefix("19"))
    assert len(stock.xpath('//node[@display-id="0"]')) == 239
    assert len(stock.xpath("//node[@NAF]")) == 8
    assert tree(_prefix("16")).xpath('//node[@xpos="[0,0][0,0]"]')[0].id == 0
    assert tree(_prefix("02")).xpath('//node[@visible-to-user="true"]')[0].id == 0


def test_xpath_exists_and_boolean_expressions() -> None:
    settings_tree = tree(_prefix("32"))
    assert settings_tree.xpath_exists('//node[@text="YouTube"]')
    assert not settings_tree.xpath_exists('//node[@text="Nope"]')
    assert settings_tree.xpath_exists('count(//node[@text="Not allowed"]) = 7')
    assert settings_tree.xpath("//node[@text='Nope']") == []


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ('//node[@text="x"', ["invalid XPath", "XPath 1.0"]),
        ("//node[nosuch()]", ["invalid XPath"]),
        ("//node/@text", ["not <node> elements"]),
        ("count(//node)", ["not <node> elements", "float"]),
        ("/hierarchy", ["not <node> elements"]),
    ],
)
def test_bad_xpath_raises(query: str, words: list[str]) -> None:
    with pytest.raises(UITreeError) as caught:
        tree(_prefix("32")).xpath(query)
    for word in words:
        assert word in str(caught.value)


# --------------------------------------------------------------------------- hit testing


def test_hit_test_on_real_dumps() -> None:
    launcher = tree(_prefix("15"))
    clock = launcher.hit_test(663, 727)
    assert clock is not None and clock.text == "Clock"
    # The "Phone" label is not clickable; its row (node 19) is, and wins.
    settings_tree = tree(_prefix("32"))
    row = settings_tree.hit_test(267, 1597)
    assert row is not None and row.id == 19
    assert settings_tree.hit_test(5000, 5000) is None
    assert settings_tree.hit_test(-1, 10) is None
    # The left edge is inside, the right edge outside: pixel p covers [p, p + 1).
    assert launcher.hit_test(540, 700) == clock
    assert launcher.hit_test(786, 700) != clock


def test_hit_test_ignores_zero_area_and_invisible_nodes() -> None:
    launcher = tree(_prefix("27"))
    hit = launcher.hit_test(0, 0)
    assert hit is not None and hit.area_px > 0
    nodes = [
        node(0, bounds_px=(0, 0, 100, 100)),
        node(1, parent=0, bounds_px=(10, 10, 10, 10), clickable=True),
        node(2, parent=0, bounds_px=(10, 10, 20, 20), clickable=True, visible=False),
    ]
    assert UITree(nodes).hit_test(10, 10) == nodes[0]


def test_hit_test_prefers_clickable_then_smallest_then_latest() -> None:
    nodes = [
        node(0, bounds_px=(0, 0, 100, 100), clickable=True),
        node(1, parent=0, bounds_px=(0, 0, 50, 50)),
        node(2, parent=0, bounds_px=(0, 0, 60, 60), long_clickable=True),
        node(3, parent=0, bounds_px=(0, 0, 60, 60), clickable=True),
    ]
    test_tree = UITree(nodes)
    assert test_tree.hit_test(5, 5) == nodes[3]
    assert test_tree.hit_test(70, 70) == nodes[0]
    assert UITree(nodes[:2]).hit_test(5, 5) == nodes[0]
    assert UITree([node(0), node(1, parent=0, bounds_px=(0, 0, 9, 9))]).hit_test(1, 1).id == 1


# --------------------------------------------------------------------------- text


def test_render_text_lines_on_real_dumps() -> None:
    launcher = tree(_prefix("15")).render_text()
    assert '    [12] TextView #icon "Clock" clickable long-clickable @(663,727)' in launcher.split(
        "\n"
    )
    assert "[5] RecyclerView #apps_list_view scrollable focused @(540,1008)" in launcher
    quick = tree(_prefix("36")).render_text()
    switch = '[15] Switch "开启" desc="互联网,zxgj_5G" clickable long-clickable checked @(85,122)'
    assert switch in quick
    assert '[24] Switch "关闭" desc="蓝牙。" clickable long-clickable unchecked' in quick
    watch = tree(_prefix("03")).render_text()
    assert '#text_title "科技爱好者周刊（第 3 79 期）：《硅谷钢铁侠》摘录"' in watch
    assert '[8] Button #button_open "打开原文" clickable @(233,198)' in watch
    miui = tree(_prefix("20")).render_text()
    assert (
        '[70] EditText #search_bar_input "Uygulama ara" clickable long-clickable editable '
        "@(600,2486)" in miui
    )


def test_render_text_clips_cleans_and_skips() -> None:
    kakao = tree(_prefix("06")).render_text(max_text=20)
    line = next(line for line in kakao.splitlines() if "[54]" in line)
    assert "\"📰 '윤 관저 이전 특혜' 관련자들…\"" in line
    tiktok = tree(_prefix("22")).render_text()
    assert '"מנסה לחזור קצת לשגרה בתוך כל הטירוף הזה #foryou…"' in tiktok
    assert "\ufeff" not in tiktok
    samsung = tree(_prefix("27"))
    shown = {int(line.split("]")[0].strip(" [")) for line in samsung.render_text().splitlines()}
    assert not shown & {n.id for n in samsung if n.area_px == 0}


def test_render_text_indents_by_shown_depth_and_marks_state() -> None:
    nodes = [
        node(0, bounds_px=(0, 0, 100, 100)),
        node(1, parent=0, text="Title", bounds_px=(0, 0, 100, 20)),
        node(2, parent=1, bounds_px=(0, 0, 100, 20)),
        node(3, parent=2, text='say "hi"', clickable=True, enabled=False, selected=True),
        node(4, parent=1, text="ghost", visible=False),
        node(5, parent=4, hint="Email", class_name="a.EditText", editable=True, password=True),
    ]
    assert render_text(nodes).splitlines() == [
        '[1] View "Title" @(50,10)',
        '  [3] View "say \\"hi\\"" clickable selected disabled @(50,50)',
        '  [5] EditText hint="Email" editable password @(50,50)',
    ]
    assert render_text([]) == ""


@pytest.mark.parametrize("name", sorted(DUMPS))
def test_render_text_is_deterministic(name: str) -> None:
    parsed = tree(name)
    text = parsed.render_text()
    assert text == tree(name).render_text()
    assert text == parse_hierarchy(parsed.to_xml()).render_text()
    ids = [int(line.split("]")[0].strip(" [")) for line in text.splitlines()]
    assert ids == sorted(ids) and all(parsed.node(i).visible for i in ids)


# --------------------------------------------------------------------------- helpers


def test_find_children_ancestors() -> None:
    launcher = tree(_prefix("15"))
    (clock,) = launcher.find(text="Clock")
    assert launcher.find(resource_id="icon", text="Clock") == [clock]
    assert launcher.find(resource_id="com.android.launcher3:id/icon", content_desc="Clock") == [
        clock
    ]
    assert len(launcher.find(resource_id="icon")) == 20
    assert len(launcher.find(class_name="TextView")) == len(
        launcher.find(class_name="android.widget.TextView")
    )
    assert launcher.find(text="Clock", class_name="Button") == []
    assert [a.id for a in launcher.ancestors(clock.id)] == [5, 4, 0]
    assert clock in launcher.children(5)
    assert all(child.parent == 5 for child in launcher.children(5))
    assert launcher.screen_bounds() == (0, 0, 1080, 1776)
    assert UITree([node(0, bounds_px=(0, 0, 0, 0))]).screen_bounds() == (0, 0, 0, 0)
    assert "29 nodes, 1 windows" in repr(launcher)


# --------------------------------------------------------------------------- xpath_for


@pytest.mark.parametrize("name", sorted(p.name for p in DUMP_DIR.glob("*.xml"))[:8])
def test_xpath_for_selects_exactly_its_node_on_real_dumps(name: str) -> None:
    tree = parse_hierarchy((DUMP_DIR / name).read_bytes())
    for node in tree.nodes:
        query = tree.xpath_for(node.id)
        assert [found.id for found in tree.xpath(query)] == [node.id], query


def test_xpath_for_prefers_a_readable_attribute_and_quotes_safely() -> None:
    nodes = [
        UINode(id=0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 100, 100)),
        UINode(id=1, parent=0, text='it\'s "quoted"', bounds_px=(0, 0, 50, 50)),
        UINode(id=2, parent=0, resource_id="a:id/ok", bounds_px=(50, 0, 100, 50)),
        UINode(id=3, parent=0, text="same", bounds_px=(0, 50, 50, 100)),
        UINode(id=4, parent=0, text="same", bounds_px=(50, 50, 100, 100)),
    ]
    tree = UITree(nodes)
    assert tree.xpath_for(2) == "//node[@resource-id='a:id/ok']"
    assert [n.id for n in tree.xpath(tree.xpath_for(1))] == [1]
    assert tree.xpath_for(4) == "/hierarchy/node[1]/node[4]"  # two nodes say "same"
