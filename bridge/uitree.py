"""UI hierarchy dumps ⇄ :class:`~bridge.schema.UINode` lists, and the queries policies need.

Reads ``uiautomator dump`` output (junk before it and the ``UI hierchary dumped to: …`` trailer,
sic, are ignored) and uiautomator2 dumps (pretty-printed, CRLF or ``\r\r\n``, several
windows); writes uiautomator2's format (protocols.md §3.1), which the simulator emits too, so
one XPath rule set judges both worlds. XML -> nodes -> XML -> nodes is lossless: attributes the
schema does not model (``NAF``, ``drawing-order``, ``display-id``, ``xpos``) stay in
``UINode.extra`` in their order. ``visible`` is ``visible-to-user`` (absent: true); booleans are
``true`` in any case; ``editable`` is the ``editable`` attribute if any, else true for
``*EditText`` / ``*AutoCompleteTextView`` classes. Bounds ``[l,t][r,b]`` contain ``(x, y)`` when
``l <= x < r`` and ``t <= y < b`` (pixel ``p`` covers ``[p, p + 1)``, as in bridge.coords).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from lxml import etree

from bridge.errors import UITreeError
from bridge.schema import UINode
from bridge.uitree_text import render_text, short_id

__all__ = ["XML_DECLARATION", "UITree", "parse_hierarchy", "render_text", "to_xml", "xpath_literal"]

XML_DECLARATION = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"
"""The declaration uiautomator and uiautomator2 write first."""

# Attributes in uiautomator2's order (after NAF and index; bounds, drawing-order, hint and
# display-id follow), and the UINode field each fills.
_STRINGS = ("text", "resource-id", "class", "package", "content-desc")
_FLAGS: tuple[str, ...] = ("checkable", "checked", "clickable", "enabled", "focusable")
_FLAGS += ("focused", "scrollable", "long-clickable", "password", "selected", "visible-to-user")
_FIELD = {key: key.replace("-", "_") for key in _STRINGS + _FLAGS}
_FIELD.update({"class": "class_name", "visible-to-user": "visible"})
_MODELLED = frozenset(_FIELD) | {"index", "bounds", "hint", "editable"}

_BOUNDS = re.compile(r"\s*\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]\s*")
_ATTRIBUTE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]*")
_EDITABLE_CLASS = re.compile(r"(EditText|AutoCompleteTextView)$")
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
# Newlines and tabs as character references, or attribute-value normalisation eats them.
_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"})
_ESCAPES.update({ord(char): f"&#{ord(char)};" for char in "\n\r\t"})
_END_TAG = "</hierarchy>"


class UITree:
    """An immutable UI tree: nodes in document order plus the dump's ``rotation`` (0..3).

    Built by :func:`parse_hierarchy` or from any ``list[UINode]`` (simulator, observation).
    Raises :class:`UITreeError` unless ids are 0..n-1, each parent is an enclosing earlier node
    (depth-first document order), and ``extra`` keys are plain, unmodelled attribute names.
    """

    __slots__ = ("_children", "_doc", "_nodes", "_rotation")

    def __init__(self, nodes: Sequence[UINode], rotation: int = 0) -> None:
        if rotation not in (0, 1, 2, 3):
            raise UITreeError(f"rotation {rotation!r} is not 0, 1, 2 or 3 (Surface.ROTATION_*)")
        self._nodes: tuple[UINode, ...] = tuple(nodes)
        self._rotation = rotation
        self._children = _children_of(self._nodes)
        self._doc: tuple[etree._Element, dict[etree._Element, int]] | None = None

    def __len__(self) -> int:
        return len(self._nodes)

    def __iter__(self) -> Iterator[UINode]:
        return iter(self._nodes)

    def __repr__(self) -> str:
        return f"UITree({len(self)} nodes, {len(self.roots())} windows, rotation={self.rotation})"

    @property
    def rotation(self) -> int:
        """The ``rotation`` attribute of the dump (``Surface.ROTATION_*``), as given."""
        return self._rotation

    @property
    def nodes(self) -> list[UINode]:
        """The nodes in document order (a fresh list, ready for ``Observation.ui``)."""
        return list(self._nodes)

    def node(self, node_id: int) -> UINode:
        """The node with this id; ``KeyError`` when there is none."""
        if not 0 <= node_id < len(self._nodes):
            raise KeyError(f"no node {node_id}: the tree has ids 0..{len(self._nodes) - 1}")
        return self._nodes[node_id]

    def roots(self) -> list[UINode]:
        """The top-level nodes (one per dumped window), in document order."""
        return [node for node in self._nodes if node.parent is None]

    def children(self, node_id: int) -> list[UINode]:
        """The direct children of a node, in document order."""
        self.node(node_id)
        return [self._nodes[child] for child in self._children[node_id]]

    def ancestors(self, node_id: int) -> list[UINode]:
        """The enclosing nodes of a node, nearest first, ending with its window root."""
        found: list[UINode] = []
        parent = self.node(node_id).parent
        while parent is not None:
            found.append(self._nodes[parent])
            parent = self._nodes[parent].parent
        return found

    def find(
        self,
        *,
        text: str | None = None,
        content_desc: str | None = None,
        resource_id: str | None = None,
        class_name: str | None = None,
    ) -> list[UINode]:
        """Nodes equal to every given criterion, in document order.

        A ``resource_id`` without ``:`` matches the short name (``login`` matches
        ``com.example:id/login``, whatever the package in this world); a ``class_name``
        without ``.`` matches the class after its last dot (``Button``).
        """
        return [
            node
            for node in self._nodes
            if text in (None, node.text)
            and content_desc in (None, node.content_desc)
            and _id_matches(node.resource_id, resource_id)
            and _class_matches(node.class_name, class_name)
        ]

    def screen_bounds(self) -> tuple[int, int, int, int]:
        """The union of the top-level nodes' bounds, ``(0, 0, 0, 0)`` when all are empty.

        For a freeform or partial window this is the window, not the panel.
        """
        boxes = [node.bounds_px for node in self.roots() if node.area_px > 0]
        if not boxes:
            return (0, 0, 0, 0)
        lefts, tops, rights, bottoms = zip(*boxes, strict=True)
        return (min(lefts), min(tops), max(rights), max(bottoms))

    def hit_test(self, x_px: float, y_px: float) -> UINode | None:
        """The node a tap at device pixel ``(x_px, y_px)`` lands on, or None.

        Among visible nodes of non-zero area containing the point, the smallest clickable
        (or long-clickable) one wins; when none is clickable, the smallest of all. On equal
        areas the later node in document order wins: it is drawn on top.
        """
        best: UINode | None = None
        best_clickable: UINode | None = None
        for node in self._nodes:
            left, top, right, bottom = node.bounds_px
            if not (node.visible and left <= x_px < right and top <= y_px < bottom):
                continue
            if best is None or node.area_px <= best.area_px:
                best = node
            if (node.clickable or node.long_clickable) and (
                best_clickable is None or node.area_px <= best_clickable.area_px
            ):
                best_clickable = node
        return best_clickable or best

    def xpath(self, query: str) -> list[UINode]:
        """The nodes an XPath 1.0 query selects, in document order.

        It runs over the document :meth:`to_xml` writes, with the dump's attribute names:
        ``//node[@text="Settings"]``, ``//*[@class="android.widget.Button"]``. Raises
        :class:`UITreeError` for invalid XPath or a result that is not ``<node>`` elements.
        """
        return self._selected(query, *self._evaluate(query))

    def xpath_exists(self, query: str) -> bool:
        """Whether a query selects a node, or the value of a boolean expression such as
        ``count(//node[@checked="true"]) >= 2``; raises like :meth:`xpath`."""
        result, ids = self._evaluate(query)
        return result if isinstance(result, bool) else bool(self._selected(query, result, ids))

    def xpath_for(self, node_id: int) -> str:
        """A short XPath that selects exactly node ``node_id`` in this tree (what a person
        copies from the console into a check or a script).

        The first unique one of: its resource id, text or content-desc, the resource id
        with the text, the class with the text; otherwise its path of child positions from
        the root (``/hierarchy/node[1]/node[3]``), which is always unique.
        """
        node = self.node(node_id)
        tests = [
            [("resource-id", node.resource_id)],
            [("text", node.text)],
            [("content-desc", node.content_desc)],
            [("resource-id", node.resource_id), ("text", node.text)],
            [("class", node.class_name), ("text", node.text)],
            [("class", node.class_name), ("content-desc", node.content_desc)],
        ]
        for test in tests:
            if not all(value for _, value in test):
                continue
            predicate = " and ".join(f"@{name}={xpath_literal(value)}" for name, value in test)
            query = f"//node[{predicate}]"
            if [found.id for found in self.xpath(query)] == [node_id]:
                return query
        steps = []
        for current in [*reversed(self.ancestors(node_id)), node]:
            siblings = self.roots() if current.parent is None else self.children(current.parent)
            steps.append(f"node[{[s.id for s in siblings].index(current.id) + 1}]")
        return "/hierarchy/" + "/".join(steps)

    def render_text(self, max_text: int = 60) -> str:
        """This tree as compact text for text-only policies; see :func:`render_text`."""
        return render_text(self._nodes, max_text=max_text)

    def to_xml(self) -> str:
        """This tree in uiautomator2's dump format; see :func:`to_xml`."""
        lines = [XML_DECLARATION, f'<hierarchy rotation="{self.rotation}">']
        open_ids: list[int] = []
        for node in self._nodes:
            while open_ids and open_ids[-1] != node.parent:
                lines.append("  " * len(open_ids) + "</node>")
                open_ids.pop()
            indent = "  " * (len(open_ids) + 1)
            attributes = " ".join(f'{key}="{_escape(value)}"' for key, value in _attributes(node))
            if self._children[node.id]:
                lines.append(f"{indent}<node {attributes}>")
                open_ids.append(node.id)
            else:
                lines.append(f"{indent}<node {attributes} />")
        lines.extend("  " * depth + "</node>" for depth in range(len(open_ids), 0, -1))
        lines.append(_END_TAG)
        return "\n".join(lines)

    def _document(self) -> tuple[etree._Element, dict[etree._Element, int]]:
        # The dict holds every element, which keeps lxml's proxies alive: the elements a query
        # returns are these very objects and map back to ids by identity.
        if self._doc is None:
            root = etree.fromstring(self.to_xml().encode("utf-8"), _parser())
            self._doc = (root, {element: i for i, element in enumerate(root.iter("node"))})
        return self._doc

    def _evaluate(self, query: str) -> tuple[object, dict[etree._Element, int]]:
        root, ids = self._document()
        try:
            return root.xpath(query, smart_strings=False), ids
        except etree.XPathError as exc:
            raise UITreeError(
                f"invalid XPath {query!r}: {exc}; write XPath 1.0 such as //node[@text='OK']"
            ) from exc

    def _selected(self, query: str, result: object, ids: dict[etree._Element, int]) -> list[UINode]:
        if not isinstance(result, list) or not all(item in ids for item in result):
            raise UITreeError(
                f"XPath {query!r} selects {type(result).__name__} {result!r:.60}, not <node> "
                "elements; select nodes, e.g. //node[@text='OK'] rather than //node/@text"
            )
        return [self._nodes[ids[item]] for item in result]


def xpath_literal(value: str) -> str:
    """``value`` as an XPath 1.0 string literal (``concat()`` when it has both quotes)."""
    if "'" not in value:
        return f"'{value}'"
    if '"' not in value:
        return f'"{value}"'
    parts = value.split("'")
    return "concat(" + ', "\'", '.join(f"'{part}'" for part in parts) + ")"


def parse_hierarchy(xml: str | bytes) -> UITree:
    """Parse ``uiautomator dump`` or uiautomator2 ``dump_hierarchy`` output.

    Args:
        xml: the dump as text or UTF-8 bytes; text before ``<hierarchy`` and after
            ``</hierarchy>`` is ignored.

    Raises:
        UITreeError: empty or non-UTF-8 input, malformed XML, no ``<hierarchy>`` root, no
            ``<node>``, or a node with bad bounds or index.
    """
    body, line_offset = _extract_document(_decode(xml))
    root = _parse_xml(body, line_offset)
    elements = list(root.iter("node"))
    if not elements:
        raise UITreeError(
            "the dump has no <node> elements: the screen may be idle-timeout or secure "
            "(FLAG_SECURE), or the window was changing; retry the dump"
        )
    ids = {element: i for i, element in enumerate(elements)}
    nodes = [
        _node_from_element(element, i, _parent_id(element, ids), line_offset)
        for i, element in enumerate(elements)
    ]
    return UITree(nodes, _rotation(root))


def to_xml(nodes: Sequence[UINode], rotation: int = 0) -> str:
    """Write nodes as uiautomator2 writes a dump (raises like :class:`UITree`).

    2-space indentation, leaves closed with ``" />"``, attributes in uiautomator2's order:
    ``NAF``, ``index`` … ``visible-to-user``, ``bounds``, ``drawing-order``, ``hint``,
    ``display-id``, then other ``extra`` ones in their order. Newlines, CRs and tabs become
    character references; characters XML cannot carry become ``.``, as on a device.
    """
    return UITree(nodes, rotation).to_xml()


# --------------------------------------------------------------------------- parsing


def _decode(xml: str | bytes) -> str:
    if isinstance(xml, bytes):
        try:
            xml = xml.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise UITreeError(f"the dump is not UTF-8 ({exc}); pass the bytes as read") from exc
    if not xml.strip():
        raise UITreeError(
            "the dump is empty: uiautomator returned nothing (server crash or secure screen); "
            "restart the uiautomator server and retry the dump"
        )
    return xml


def _extract_document(text: str) -> tuple[str, int]:
    """The text from ``<hierarchy`` to its end, and how many lines came before it."""
    start = text.find("<hierarchy")
    if start < 0:
        raise UITreeError(
            f"no <hierarchy> element in the dump (it reads {text.strip()[:80]!r}): uiautomator "
            "failed, e.g. 'could not get idle state' on a screen that never settles; retry "
            "the dump, with animations off"
        )
    end = text.rfind(_END_TAG)
    end = end + len(_END_TAG) if end > start else text.rfind(">") + 1
    return text[start : max(end, start + 1)], text.count("\n", 0, start)


def _parser() -> etree.XMLParser:
    # No DTD, no entities beyond XML's five, no network, default size limits.
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)


def _parse_xml(body: str, line_offset: int) -> etree._Element:
    try:
        root = etree.fromstring(body, _parser())
    except etree.XMLSyntaxError as exc:
        raise UITreeError(
            f"the dump is not well-formed XML: {exc.msg} (line {(exc.lineno or 1) + line_offset}"
            " of the input); it may be truncated or mixed with other output: retry the dump"
        ) from exc
    if root.tag != "hierarchy":
        raise UITreeError(f"the dump's root is <{root.tag!s}>, not <hierarchy>; is it a UI dump?")
    return root


def _rotation(root: etree._Element) -> int:
    value = root.get("rotation", "0")
    try:
        return int(value)
    except ValueError:
        raise UITreeError(f"<hierarchy rotation={value!r}> is not an integer 0..3") from None


def _parent_id(element: etree._Element, ids: dict[etree._Element, int]) -> int | None:
    parent = element.getparent()
    while parent is not None and parent not in ids:
        parent = parent.getparent()
    return None if parent is None else ids[parent]


def _node_from_element(
    element: etree._Element, node_id: int, parent: int | None, line_offset: int
) -> UINode:
    attributes = dict(element.items())
    fields: dict[str, object] = {_FIELD[key]: attributes.pop(key, "") for key in _STRINGS}
    for key in _FLAGS:
        if key in attributes:
            fields[_FIELD[key]] = attributes.pop(key).lower() == "true"
    editable = attributes.pop("editable", None)
    class_name = str(fields["class_name"])
    fields["editable"] = (
        _looks_editable(class_name) if editable is None else editable.lower() == "true"
    )
    where = f"node {node_id} ({class_name}, line {(element.sourceline or 1) + line_offset})"
    fields["index"] = _parse_index(attributes.pop("index", "0"), where)
    fields["bounds_px"] = _parse_bounds(attributes.pop("bounds", None), where)
    fields.update(id=node_id, parent=parent, hint=attributes.pop("hint", ""), extra=attributes)
    return UINode.model_validate(fields)


def _parse_index(value: str, where: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise UITreeError(f"{where} has index={value!r}, not an integer; retry the dump") from None


def _parse_bounds(value: str | None, where: str) -> tuple[int, int, int, int]:
    match = _BOUNDS.fullmatch(value or "")
    if match is None:
        got = "no bounds" if value is None else f"bounds={value!r}"
        raise UITreeError(
            f"{where} has {got}; expected '[left,top][right,bottom]' like '[0,0][1080,2400]'"
        )
    left, top, right, bottom = (int(group) for group in match.groups())
    return (left, top, right, bottom)


def _looks_editable(class_name: str) -> bool:
    return _EDITABLE_CLASS.search(class_name) is not None


def _children_of(nodes: tuple[UINode, ...]) -> list[list[int]]:
    """Each node's children; checks ids, depth-first order and ``extra`` keys."""
    children: list[list[int]] = [[] for _ in nodes]
    open_ids: list[int] = []
    for position, node in enumerate(nodes):
        if node.id != position:
            raise UITreeError(f"node at position {position} has id {node.id}; ids must be 0..n-1")
        while open_ids and open_ids[-1] != node.parent:
            open_ids.pop()
        if node.parent is not None and not open_ids:
            raise UITreeError(
                f"node {node.id} has parent {node.parent}, which is not an enclosing earlier "
                "node; list nodes in depth-first document order"
            )
        if node.parent is not None:
            children[node.parent].append(node.id)
        open_ids.append(node.id)
        bad = [key for key in node.extra if key in _MODELLED or not _ATTRIBUTE_NAME.fullmatch(key)]
        if bad:
            raise UITreeError(
                f"node {node.id} has extra keys {bad}: extra holds only attributes the schema "
                "does not model, named like XML attributes; set the UINode fields instead"
            )
    return children


# --------------------------------------------------------------------------- writing


def _attributes(node: UINode) -> list[tuple[str, str]]:
    """The node's attributes in uiautomator2's order, ``extra`` ones put back in place."""
    extra = dict(node.extra)
    attributes = [("NAF", extra.pop("NAF"))] if "NAF" in extra else []
    attributes.append(("index", str(node.index)))
    attributes += [(key, getattr(node, _FIELD[key])) for key in _STRINGS]
    attributes += [(key, "true" if getattr(node, _FIELD[key]) else "false") for key in _FLAGS]
    attributes.append(("bounds", "[{},{}][{},{}]".format(*node.bounds_px)))
    if "drawing-order" in extra:
        attributes.append(("drawing-order", extra.pop("drawing-order")))
    attributes.append(("hint", node.hint))
    if "display-id" in extra:
        attributes.append(("display-id", extra.pop("display-id")))
    if node.editable != _looks_editable(node.class_name):
        attributes.append(("editable", "true" if node.editable else "false"))
    return attributes + list(extra.items())


def _escape(value: str) -> str:
    return _NOT_XML.sub(".", value).translate(_ESCAPES)


def _id_matches(actual: str, wanted: str | None) -> bool:
    return wanted in (None, actual) or (":" not in wanted and short_id(actual) == wanted)


def _class_matches(actual: str, wanted: str | None) -> bool:
    return wanted in (None, actual) or ("." not in wanted and actual.rpartition(".")[2] == wanted)
