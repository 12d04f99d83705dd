"""The Python half of the derived tree, without a browser: ``tree.js``'s JSON to UINodes
(scaling, rounding, clipping to the screen) and its refusal of malformed trees."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mobilegym import tree
from mobilegym.errors import MobileGymFailed
from mobilegym.tree import nodes_from_json


def raw_node(node_id: int, parent: int | None, rect: list[float], **fields: Any) -> dict[str, Any]:
    """A node as ``tree.js`` writes it (CSS pixels), defaults for what a test leaves out."""
    node: dict[str, Any] = {
        "id": node_id,
        "parent": parent,
        "index": 0,
        "class_name": "android.view.View",
        "text": "",
        "content_desc": "",
        "resource_id": "",
        "hint": "",
        "package": "com.example",
        "checkable": False,
        "checked": False,
        "clickable": False,
        "long_clickable": False,
        "editable": False,
        "focusable": False,
        "focused": False,
        "scrollable": False,
        "enabled": True,
        "selected": False,
        "password": False,
        "rect": rect,
    }
    node.update(fields)
    return node


def payload(*nodes: dict[str, Any], dpr: float = 3, viewport: tuple[int, int] = (360, 800)) -> str:
    root = raw_node(0, None, [0, 0, viewport[0], viewport[1]], class_name="FrameLayout")
    return json.dumps({"dpr": dpr, "viewport": list(viewport), "nodes": [root, *nodes]})


def test_fields_carry_over_and_bounds_become_device_pixels() -> None:
    switch = raw_node(
        1,
        0,
        [282, 153, 326, 179],
        class_name="android.widget.Switch",
        checkable=True,
        checked=True,
        resource_id="com.example:id/toggle",
    )
    nodes = nodes_from_json(payload(switch))
    assert nodes[0].bounds_px == (0, 0, 1080, 2400) and nodes[0].parent is None
    assert nodes[1].bounds_px == (846, 459, 978, 537)
    assert nodes[1].class_name == "android.widget.Switch"
    assert nodes[1].checkable and nodes[1].checked and nodes[1].parent == 0
    assert nodes[1].resource_id == "com.example:id/toggle"


def test_rounding_is_half_up_as_in_the_page() -> None:
    # device pixels 1.5, 2.5, 10.49, 10.5: as Math.round in the page (Python's round() would
    # make 2.5 into 2, banker's rounding)
    nodes = nodes_from_json(payload(raw_node(1, 0, [0.5, 2.5 / 3, 10.49 / 3, 10.5 / 3])))
    assert nodes[1].bounds_px == (2, 3, 10, 11)


def test_bounds_are_clipped_to_the_screen() -> None:
    nodes = nodes_from_json(payload(raw_node(1, 0, [-5, 790, 400, 810.2])))
    assert nodes[1].bounds_px == (0, 2370, 1080, 2400)


def test_the_pixel_ratio_comes_from_the_page() -> None:
    nodes = nodes_from_json(payload(raw_node(1, 0, [10, 10, 20, 20]), dpr=2, viewport=(400, 900)))
    assert nodes[0].bounds_px == (0, 0, 800, 1800)
    assert nodes[1].bounds_px == (20, 20, 40, 40)


@pytest.mark.parametrize(
    "nodes",
    [
        [raw_node(2, 0, [0, 0, 1, 1])],  # an id out of order
        [raw_node(1, 1, [0, 0, 1, 1])],  # its own parent
        [raw_node(1, 0, [0, 0, 1, 1]), raw_node(2, 3, [0, 0, 1, 1])],  # a later parent
        [raw_node(1, None, [0, 0, 1, 1])],  # a second root
    ],
)
def test_out_of_order_trees_are_refused(nodes: list[dict[str, Any]]) -> None:
    with pytest.raises(MobileGymFailed, match=r"tree|parent"):
        nodes_from_json(payload(*nodes))


@pytest.mark.parametrize(
    "raw",
    [
        "not json",
        json.dumps({"dpr": 3, "viewport": [360, 800]}),
        json.dumps({"dpr": 3, "viewport": [360, 800], "nodes": [], "extra": 1}),
        payload(raw_node(1, 0, [0, 0, 1, 1], unknown="x")),
        payload(raw_node(1, 0, [0, 0, 1])),
    ],
)
def test_malformed_json_is_an_env_failure(raw: str) -> None:
    with pytest.raises(MobileGymFailed, match="malformed"):
        nodes_from_json(raw)


def test_a_root_parented_elsewhere_is_refused() -> None:
    bad = json.loads(payload())
    bad["nodes"][0]["parent"] = 0
    with pytest.raises(MobileGymFailed, match="parent"):
        nodes_from_json(json.dumps(bad))


def test_the_page_script_is_one_function_expression_taking_the_package() -> None:
    script = tree._script()
    code = "\n".join(line for line in script.splitlines() if not line.startswith("//"))
    assert code.startswith("((pkg) => {") and code.rstrip().endswith("})")
    assert "JSON.stringify" in code and "__reactProps$" in code
