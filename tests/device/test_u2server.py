"""The virtual phone's uiautomator2 server: selector engine, HTTP / JSON-RPC layer, methods.

Selector tests run over literal trees. Server tests drive ``phone.tcp_handlers[9008]`` with
in-memory streams carrying the bytes uiautomator2 sends (head and body in separate chunks),
against a VirtualPhone on a real simulator; selectors are built with uiautomator2's own
``Selector`` so their JSON is exactly the client's.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import importlib.resources
import json
import socket
import time
from collections.abc import AsyncIterator
from types import ModuleType
from typing import Any

import adbutils
import cv2
import numpy as np
import pytest
import pytest_asyncio
import uiautomator2 as u2
from adbutils._proto import ShellReturn
from uiautomator2._selector import Selector

from bridge.schema import UINode
from bridge.uitree import UITree, parse_hierarchy
from device.virtual import u2_methods, u2_selectors, u2server
from device.virtual.attach import AttachedVirtualPhone
from device.virtual.errors import JavaException
from device.virtual.phone import VirtualPhone
from device.virtual.u2_methods import active_window, limit_depth
from device.virtual.u2_selectors import ObjInfo, find, find_all, obj_info, parse_selector
from device.virtual.u2server import run_uiautomator
from sim.simulator import Simulator

PORT = 9008
SEARCH_ID = "com.android.contacts:id/search_src_text"
OBJINFO_KEYS = [
    "bounds",
    "visibleBounds",
    "childCount",
    "className",
    "contentDescription",
    "packageName",
    "text",
    "checkable",
    "checked",
    "clickable",
    "enabled",
    "focusable",
    "focused",
    "longClickable",
    "scrollable",
    "selected",
    "resourceName",
]


# --------------------------------------------------------------------------- selector engine


def node(node_id: int, parent: int | None = None, **fields: object) -> UINode:
    fields.setdefault("bounds_px", (0, 0, 100, 100))
    fields.setdefault("class_name", "android.widget.TextView")
    fields.setdefault("package", "com.example")
    return UINode.model_validate({"id": node_id, "parent": parent, **fields})


LIST_BOX = (0, 200, 1080, 1000)


def tree() -> list[UINode]:
    """A list with two rows (title + checkbox each), a hidden node, and a status bar window."""
    return [
        node(0, class_name="android.widget.FrameLayout", bounds_px=(0, 0, 1080, 2400)),
        node(1, 0, class_name="android.widget.ListView", scrollable=True, bounds_px=LIST_BOX),
        node(2, 1, index=0, class_name="android.widget.LinearLayout", clickable=True),
        node(3, 2, index=0, text="Wi-Fi", resource_id="com.example:id/title"),
        node(4, 2, index=1, class_name="android.widget.CheckBox", checkable=True, checked=True),
        node(5, 1, index=1, class_name="android.widget.LinearLayout", clickable=True),
        node(6, 5, index=0, text="Bluetooth", resource_id="com.example:id/title"),
        node(7, 5, index=1, class_name="android.widget.CheckBox", checkable=True),
        node(8, 1, index=2, text="Hidden", visible=False),
        node(9, 8, index=0, text="Inside hidden"),
        node(10, 0, index=1, content_desc="More options", bounds_px=(900, 900, 1200, 1100)),
        node(11, class_name="android.widget.FrameLayout", package="com.android.systemui"),
        node(12, 11, text="9:30", resource_id="com.android.systemui:id/clock"),
    ]


def texts(found: list[UINode]) -> list[str]:
    return [n.text or n.class_name for n in found]


def first(nodes: list[UINode], **kwargs: Any) -> UINode | None:
    return find(nodes, parse_selector(Selector(**kwargs)))


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"text": "Wi-Fi"}, 3),
        ({"textContains": "tooth"}, 6),
        ({"textMatches": "Blue.*"}, 6),
        ({"textMatches": "Blue"}, None),  # Java matches() is a full match
        ({"textStartsWith": "Wi"}, 3),
        ({"className": "android.widget.CheckBox"}, 4),
        ({"classNameMatches": r".*\.ListView"}, 1),
        ({"description": "More options"}, 10),
        ({"descriptionContains": "options"}, 10),
        ({"descriptionStartsWith": "More"}, 10),
        ({"descriptionMatches": "(?i)more.*"}, 10),
        ({"resourceId": "com.example:id/title"}, 3),
        ({"resourceIdMatches": ".*:id/clock"}, 12),
        ({"packageName": "com.android.systemui"}, 11),
        ({"packageNameMatches": r"com\.android\..*"}, 11),
        ({"checkable": True, "checked": False}, 7),
        ({"scrollable": True}, 1),
        ({"clickable": True, "index": 1}, 5),
        ({"className": "android.widget.CheckBox", "instance": 1}, 7),
        ({"resourceId": "com.example:id/title", "instance": 2}, None),
        ({"text": "Hidden"}, None),  # not visible to the user
        ({"text": "Inside hidden"}, None),  # nor is its subtree
        ({"textContains": ""}, 3),  # nodes without text never match a text criterion
        ({"text": ""}, None),
    ],
)
def test_selector_fields(kwargs: dict[str, Any], expected: int | None) -> None:
    found = first(tree(), **kwargs)
    assert (None if found is None else found.id) == expected


def test_child_and_sibling_chains() -> None:
    nodes = tree()
    row = Selector(className="android.widget.LinearLayout")
    assert first(nodes, className="android.widget.LinearLayout") is not None
    child = parse_selector(row.clone().child(className="android.widget.CheckBox", checked=False))
    assert find(nodes, child).id == 7  # the second row's box: the first row has none unchecked
    # instance of the last level counts over every row the chain passes through
    boxes = parse_selector(row.clone().child(className="android.widget.CheckBox", instance=1))
    assert find(nodes, boxes).id == 7
    # sibling (UiSelector.fromParent): anything under the match's parent
    box = {"className": "android.widget.CheckBox"}
    sibling = parse_selector(Selector(text="Bluetooth").sibling(**box))
    assert find(nodes, sibling).id == 7
    # child is strictly below the match: a title row has no title row inside it
    assert find(nodes, parse_selector(Selector(text="Wi-Fi").child(text="Wi-Fi"))) is None
    # a nested chain is flattened, as UiSelector.childSelector appends to its last level
    nested = dict(Selector(className="android.widget.ListView"))
    nested["childOrSibling"] = ["child"]
    nested["childOrSiblingSelector"] = [Selector(index=1).child(text="Bluetooth")]
    assert find(nodes, parse_selector(nested)).id == 6


def test_find_all_and_count_semantics() -> None:
    nodes = tree()
    titles = parse_selector(Selector(resourceId="com.example:id/title"))
    assert texts(find_all(nodes, titles)) == ["Wi-Fi", "Bluetooth"]
    pinned = parse_selector(Selector(resourceId="com.example:id/title", instance=1))
    assert texts(find_all(nodes, pinned)) == ["Bluetooth"]
    chained = Selector(className="android.widget.LinearLayout").child(checkable=True)
    assert [n.id for n in find_all(nodes, parse_selector(chained))] == [4, 7]
    assert find_all(nodes, parse_selector(Selector(text="nothing"))) == []


def test_malformed_selectors_are_java_exceptions() -> None:
    with pytest.raises(JavaException) as regex:
        parse_selector(Selector(textMatches="(unclosed"))
    assert regex.value.java_class == "java.util.regex.PatternSyntaxException"
    with pytest.raises(JavaException) as missing:
        parse_selector({"mask": 1, "childOrSibling": [], "childOrSiblingSelector": []})
    assert missing.value.java_class == "java.lang.IllegalArgumentException"
    with pytest.raises(JavaException):
        parse_selector(["text", "OK"])


def test_selector_descriptions_read_like_uiselector() -> None:
    selector = Selector(text="OK", instance=2).child(resourceId="a:id/b")
    assert parse_selector(selector).describe() == (
        "UiSelector[TEXT=OK, INSTANCE=2, CHILD=UiSelector[RESOURCE_ID=a:id/b]]"
    )
    assert parse_selector(Selector(checked=True)).describe() == "UiSelector[CHECKED=true]"


def test_obj_info_shape_and_visible_bounds() -> None:
    nodes = tree()
    info = obj_info(nodes[10], nodes, (1080, 2400)).model_dump(mode="json")
    assert list(info) == OBJINFO_KEYS
    assert info["bounds"] == {"top": 900, "bottom": 1100, "left": 900, "right": 1200}
    assert info["visibleBounds"] == {"top": 900, "bottom": 1100, "left": 900, "right": 1080}
    assert info["contentDescription"] == "More options" and info["resourceName"] is None
    title = obj_info(nodes[3], nodes, (1080, 2400))
    assert title.contentDescription is None and title.resourceName == "com.example:id/title"
    assert obj_info(nodes[2], nodes, (1080, 2400)).childCount == 2
    # clipped to the scrollable list it sits in
    below = node(13, 1, bounds_px=(0, 950, 1080, 1100))
    clipped = obj_info(below, [*nodes, below], (1080, 2400)).visibleBounds
    assert (clipped.top, clipped.bottom) == (950, 1000)


def test_dump_filters_keep_a_valid_tree() -> None:
    nodes = tree()
    shallow = limit_depth(nodes, 2)
    assert [n.id for n in shallow] == list(range(len(shallow)))
    assert {n.text for n in shallow} == {"", "9:30"}  # roots and their children only
    UITree(shallow)
    app = active_window(nodes, "com.example")
    assert {n.package for n in app} == {"com.example"} and len(app) == 11
    UITree(app)
    assert active_window(nodes, "com.unknown") == nodes


@pytest.mark.parametrize("module", [u2_selectors, u2_methods, u2server])
def test_public_api_is_declared_and_documented(module: ModuleType) -> None:
    defined_here = {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not isinstance(value, ModuleType)
        and getattr(value, "__module__", None) == module.__name__
    }
    assert defined_here <= set(module.__all__) <= set(vars(module))
    assert all(getattr(module, name).__doc__ for name in defined_here)


# --------------------------------------------------------------------------- streams


class FakeStream:
    """An in-memory ServiceStream: chunks the host sends in, what the device writes out."""

    def __init__(self, *chunks: bytes) -> None:
        self.incoming: asyncio.Queue[bytes] = asyncio.Queue()
        for chunk in chunks:
            self.incoming.put_nowait(chunk)
        self.written = bytearray()
        self.closed = False

    async def read(self) -> bytes:
        return await self.incoming.get()

    async def write(self, data: bytes) -> None:
        self.written += data

    async def close(self) -> None:
        self.closed = True

    def host_closes(self) -> None:
        self.incoming.put_nowait(b"")


def request_chunks(method: str, path: str, body: bytes = b"") -> list[bytes]:
    """What http.client sends for uiautomator2: the head, then the body in its own send()."""
    head = f"{method} {path} HTTP/1.1\r\nHost: localhost:{PORT}\r\n"
    if body:
        head += f"Content-Length: {len(body)}\r\n"
    head += "User-Agent: uiautomator2\r\nAccept-Encoding: \r\n"
    head += "Content-Type: application/json\r\n\r\n"
    return [head.encode(), body] if body else [head.encode()]


async def exchange(phone: VirtualPhone, chunks: list[bytes]) -> tuple[int, dict[str, str], bytes]:
    stream = FakeStream(*chunks, b"")
    await phone.tcp_handlers[PORT](stream)
    assert stream.closed
    head, _, body = bytes(stream.written).partition(b"\r\n\r\n")
    status_line, *lines = head.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    assert status_line.startswith("HTTP/1.1 ") and headers["connection"] == "close"
    assert int(headers["content-length"]) == len(body)
    return int(status_line.split()[1]), headers, body


async def rpc(phone: VirtualPhone, method: str, *params: Any) -> dict[str, Any]:
    payload = {"jsonrpc": "2.0", "id": 1, "method": method, "params": list(params) or {}}
    body = json.dumps(payload).encode()
    status, headers, content = await exchange(phone, request_chunks("POST", "/jsonrpc/0", body))
    assert status == 200 and headers["content-type"] == "application/json"
    reply = json.loads(content)
    assert reply["jsonrpc"] == "2.0" and reply["id"] == 1
    return reply


async def call(phone: VirtualPhone, method: str, *params: Any) -> Any:
    reply = await rpc(phone, method, *params)
    assert "error" not in reply and "result" in reply, reply
    return reply["result"]


# --------------------------------------------------------------------------- the server


@pytest_asyncio.fixture(loop_scope="module")
async def phone(sim: Simulator) -> AsyncIterator[VirtualPhone]:
    """A fresh phone with the u2 server running, as after ``app_process … -p 9008``."""
    instance = sim.create_instance()
    phone = VirtualPhone(sim, instance, serial="vp-test")
    shell = FakeStream()
    server = asyncio.create_task(run_uiautomator(phone, PORT, shell))
    await asyncio.sleep(0)
    assert PORT in phone.tcp_handlers
    yield phone
    shell.host_closes()
    await asyncio.wait_for(server, 5)
    assert PORT not in phone.tcp_handlers and not shell.written
    sim.drop_instance(instance.id)


def sel(**kwargs: Any) -> dict[str, Any]:
    return dict(Selector(**kwargs))


async def center_of(phone: VirtualPhone, **kwargs: Any) -> tuple[float, float]:
    box = (await call(phone, "objInfo", sel(**kwargs)))["visibleBounds"]
    return ((box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_server_lives_as_long_as_its_shell_stream(sim: Simulator) -> None:
    instance = sim.create_instance()
    phone = VirtualPhone(sim, instance, serial="vp-life")
    shell, second = FakeStream(), FakeStream()
    server = asyncio.create_task(run_uiautomator(phone, PORT, shell))
    await asyncio.sleep(0)
    status, _, body = await exchange(phone, request_chunks("GET", "/ping"))
    assert (status, body) == (200, b"pong")
    # a second launch cannot bind: it says so (never "already registered") and ends
    await asyncio.wait_for(run_uiautomator(phone, PORT, second), 5)
    assert b"Address already in use" in second.written
    assert b"already registered" not in second.written
    assert not server.done() and PORT in phone.tcp_handlers
    shell.incoming.put_nowait(b"stdin is ignored")
    shell.host_closes()
    await asyncio.wait_for(server, 5)
    assert PORT not in phone.tcp_handlers
    sim.drop_instance(instance.id)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_http_layer(phone: VirtualPhone) -> None:
    status, _, body = await exchange(phone, request_chunks("GET", "/ping"))
    assert (status, body) == (200, b"pong")
    assert (await exchange(phone, request_chunks("GET", "/nothing")))[0] == 404
    assert (await exchange(phone, [b"NONSENSE\r\n\r\n"]))[0] == 400
    # the head split across chunks, the body byte by byte
    payload = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "getClipboard", "params": {}})
    head, body_bytes = request_chunks("POST", "/jsonrpc/0", payload.encode())
    chunks = [head[:10], head[10:], *(body_bytes[i : i + 1] for i in range(len(body_bytes)))]
    status, _, content = await exchange(phone, chunks)
    assert status == 200 and json.loads(content) == {"jsonrpc": "2.0", "id": 7, "result": ""}
    # a host that hangs up mid-request gets nothing and breaks nothing
    hung = FakeStream(head, b"")
    await phone.tcp_handlers[PORT](hung)
    assert hung.closed and not hung.written


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_jsonrpc_errors(phone: VirtualPhone) -> None:
    unknown = await rpc(phone, "noSuchMethod")
    assert unknown["error"]["code"] == -32601 and unknown["error"]["message"] == "Method not found"
    assert "result" not in unknown
    missing = await rpc(phone, "objInfo", sel(text="No such thing"))
    assert missing["error"] == {
        "code": -32001,
        "message": "androidx.test.uiautomator.UiObjectNotFoundException",
        "data": "UiSelector[TEXT=No such thing]",
    }
    assert "uiautomator.UiObjectNotFoundException" in missing["error"]["message"]
    assert (await rpc(phone, "click", "x", 1))["error"]["code"] == -32602
    assert (await rpc(phone, "click", 1, 2, 3, 4))["error"]["code"] == -32602
    assert (await rpc(phone, "count"))["error"]["code"] == -32602
    regex = await rpc(phone, "exist", sel(textMatches="(bad"))
    assert regex["error"]["message"] == "java.util.regex.PatternSyntaxException"
    garbage = FakeStream(*request_chunks("POST", "/jsonrpc/0", b"{not json"), b"")
    await phone.tcp_handlers[PORT](garbage)
    assert json.loads(bytes(garbage.written).partition(b"\r\n\r\n")[2])["error"]["code"] == -32700


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_device_info_and_void_results(phone: VirtualPhone) -> None:
    info = await call(phone, "deviceInfo")
    assert info == {
        "currentPackageName": "com.android.launcher3",
        "displayWidth": 1080,
        "displayHeight": 2400,
        "displayRotation": 0,
        "displaySizeDpX": round(1080 / (phone.density / 160)),
        "displaySizeDpY": round(2400 / (phone.density / 160)),
        "productName": phone.device,
        "naturalOrientation": True,
        "screenOn": True,
        "sdkInt": 34,
    }
    reply = await rpc(phone, "sleep")
    assert "result" in reply and reply["result"] is None
    assert (await call(phone, "deviceInfo"))["screenOn"] is False
    await call(phone, "wakeUp")
    assert (await call(phone, "deviceInfo"))["screenOn"] is True


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_hierarchy_and_screenshot(phone: VirtualPhone) -> None:
    xml = await call(phone, "dumpWindowHierarchy", False, 50)
    tree_ = parse_hierarchy(xml)
    assert tree_.find(text="Settings") and xml.startswith("<?xml")
    assert {n.package for n in tree_.roots()} >= {"com.android.launcher3", "com.android.systemui"}
    active = parse_hierarchy(await call(phone, "dumpWindowHierarchy", False, 50, True))
    assert {n.package for n in active} == {"com.android.launcher3"}
    assert len(parse_hierarchy(await call(phone, "dumpWindowHierarchy", False, 1))) == len(
        tree_.roots()
    )
    encoded = await call(phone, "takeScreenshot", 1, 80)
    lines = encoded.split("\n")
    assert encoded.endswith("\n") and all(len(line) == 76 for line in lines[:-2])
    jpeg = base64.b64decode(encoded)
    assert jpeg[:2] == b"\xff\xd8"
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape == (2400, 1080, 3)


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_click_on_settings_then_home(phone: VirtualPhone) -> None:
    assert await call(phone, "exist", sel(text="Settings")) is True
    assert await call(phone, "waitForExists", sel(text="Settings"), 1000) is True
    x, y = await center_of(phone, text="Settings")
    assert await call(phone, "click", x, y) is True
    assert phone.current_focus()[0] == "com.android.settings"
    assert (await call(phone, "deviceInfo"))["currentPackageName"] == "com.android.settings"
    assert await call(phone, "pressKey", "home") is True
    assert phone.current_focus()[0] == "com.android.launcher3"
    assert await call(phone, "pressKey", "no_such_key") is False
    # u2's double_click: injectInputEvent down + up in place is a tap
    x, y = await center_of(phone, text="Contacts")
    assert await call(phone, "injectInputEvent", 0, x, y, 0) is True
    assert phone.current_focus()[0] == "com.android.launcher3"  # nothing until the finger lifts
    assert await call(phone, "injectInputEvent", 1, x, y, 0) is True
    assert phone.current_focus()[0] == "com.android.contacts"
    await call(phone, "pressKeyCode", 3)
    # a swipe that stays in place is a tap too
    x, y = await center_of(phone, text="Settings")
    assert await call(phone, "swipe", x, y, x + 2, y, 10) is True
    assert phone.current_focus()[0] == "com.android.settings"
    await call(phone, "pressKey", "home")
    assert await call(phone, "openNotification") is True
    assert phone.instance.state.ui.shade_open and not phone.instance.state.ui.quick_settings
    await call(phone, "pressKey", "back")
    assert not phone.instance.state.ui.shade_open
    assert await call(phone, "openQuickSettings") is True  # HyperOS draws its Control Center
    assert phone.instance.state.ui.shade_open and phone.instance.state.ui.quick_settings
    await call(phone, "pressKey", "back")
    assert not phone.instance.state.ui.shade_open


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_selector_methods_on_the_launcher(phone: VirtualPhone) -> None:
    icons = sel(className="android.widget.TextView", clickable=True)
    home = [app.label("en") for app in phone.sim.phone.apps.values()]  # apps.json order
    assert await call(phone, "count", icons) == len(home) >= 3
    infos = await call(phone, "objInfoOfAllInstances", icons)
    assert [i["text"] for i in infos] == home
    assert await call(phone, "count", sel(text="Contacts", instance=0)) == 1
    clock = await call(phone, "objInfo", sel(resourceId="com.android.systemui:id/clock"))
    assert list(clock) == OBJINFO_KEYS and clock["packageName"] == "com.android.systemui"
    ObjInfo.model_validate(clock)
    assert await call(phone, "getText", sel(resourceId="com.android.systemui:id/clock")) == "9:30"
    started = time.perf_counter()
    assert await call(phone, "waitForExists", sel(text="Not there"), 300) is False
    assert 0.3 <= time.perf_counter() - started < 2
    assert await call(phone, "waitUntilGone", sel(text="Not there"), 5000) is True
    assert await call(phone, "waitUntilGone", sel(text="Settings"), 200) is False
    phone.instance.state.ui.toast = "Contact saved"
    assert await call(phone, "getLastToast") == "Contact saved"
    assert await call(phone, "clearLastToast") is None
    assert await call(phone, "getLastToast") is None


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_clipboard_paste_and_set_text_into_contacts_search(phone: VirtualPhone) -> None:
    assert await phone.start("com.android.contacts")
    search = sel(resourceId=SEARCH_ID)
    info = await call(phone, "objInfo", search)
    assert info["className"] == "android.widget.EditText" and info["resourceName"] == SEARCH_ID
    assert info["contentDescription"] is None and info["text"] == ""
    x, y = await center_of(phone, resourceId=SEARCH_ID)
    await call(phone, "click", x, y)
    # u2's send_keys: setClipboard, getClipboard (must round-trip exactly), pasteClipboard
    assert await call(phone, "setClipboard", None, "张伟 hello") is None
    assert await call(phone, "getClipboard") == "张伟 hello"
    assert await call(phone, "pasteClipboard") is None
    assert await call(phone, "getText", search) == "张伟 hello"
    assert parse_hierarchy(await call(phone, "dumpWindowHierarchy", False, 50)).find(
        text="张伟 hello"
    )
    await call(phone, "clearInputText")
    assert await call(phone, "getText", search) == ""
    assert await call(phone, "setText", search, "妈妈") is True
    assert await call(phone, "getText", search) == "妈妈"
    assert await call(phone, "clearTextField", search) is None
    assert await call(phone, "getText", search) == ""
    title = sel(resourceId="com.android.contacts:id/title", text="Contacts")
    assert await call(phone, "setText", title, "x") is False  # not editable


# --------------------------------------------------------------------------- the real client


class InProcessDevice(adbutils.AdbDevice):
    """An AdbDevice whose ``tcp:`` connections reach the phone's handlers in this process.

    Only the adb transport is faked (a socket pair per connection, as adbutils hands
    uiautomator2 a socket); the HTTP and JSON-RPC bytes are uiautomator2's own. The shell
    answers the two commands ``u2.connect`` and ``send_keys`` issue: the jar's md5 (so it is
    not pushed) and an ``ime list`` without AdbKeyboard (so text goes the clipboard way).
    """

    def __init__(self, phone: VirtualPhone, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(adbutils.AdbClient(), serial="vp-inprocess")
        self.phone, self.loop = phone, loop
        jar = importlib.resources.files("uiautomator2") / "assets" / "u2.jar"
        self.jar_md5 = hashlib.md5(jar.read_bytes()).hexdigest()

    def shell(self, cmdargs: Any, *args: Any, **kwargs: Any) -> Any:
        assert list(cmdargs)[:2] == ["toybox", "md5sum"], cmdargs
        return f"{self.jar_md5}  /data/local/tmp/u2.jar"

    def shell2(self, cmdargs: Any, *args: Any, **kwargs: Any) -> Any:
        assert list(cmdargs) == ["ime", "list", "-s", "-a"], cmdargs
        return ShellReturn(command=" ".join(cmdargs), returncode=0, output="")

    def create_connection(self, network: Any, address: Any) -> socket.socket:
        handler = self.phone.tcp_handlers.get(address)
        if network != adbutils.Network.TCP or handler is None:
            raise adbutils.AdbError(f"closed: nothing listens on tcp:{address}")
        client, server = socket.socketpair()
        client.settimeout(30)  # a server bug fails the test instead of hanging it
        asyncio.run_coroutine_threadsafe(_serve_socket(handler, server), self.loop)
        return client


class _SocketStream:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def read(self) -> bytes:
        return await self.reader.read(65536)

    async def write(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def close(self) -> None:
        self.writer.close()


async def _serve_socket(handler: Any, sock: socket.socket) -> None:
    reader, writer = await asyncio.open_connection(sock=sock)
    await handler(_SocketStream(reader, writer))
    await writer.wait_closed()


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.browser
async def test_uiautomator2_client_against_the_server(phone: VirtualPhone) -> None:
    device = InProcessDevice(phone, asyncio.get_running_loop())
    d = await asyncio.to_thread(u2.connect, device)
    info, orientation = await asyncio.to_thread(lambda: (d.info, d.orientation))
    assert info["currentPackageName"] == "com.android.launcher3" and orientation == "natural"
    xml = await asyncio.to_thread(d.dump_hierarchy)
    assert parse_hierarchy(xml).find(text="Settings")
    image = await asyncio.to_thread(d.screenshot)
    assert image.size == (1080, 2400)
    await asyncio.to_thread(lambda: d(text="Settings").click())
    assert phone.current_focus()[0] == "com.android.settings"
    await asyncio.to_thread(d.press, "home")
    assert phone.current_focus()[0] == "com.android.launcher3"

    def type_into_contacts_search() -> str:
        d(text="Contacts").click()
        d(resourceId=SEARCH_ID).click()
        d.send_keys("张伟")
        return d(resourceId=SEARCH_ID).get_text()

    assert await asyncio.to_thread(type_into_contacts_search) == "张伟"
    with pytest.raises(u2.UiObjectNotFoundError):
        await asyncio.to_thread(lambda: d(text="No such thing").info)
    with pytest.raises(u2.exceptions.RPCUnknownError, match="Method not found"):
        await asyncio.to_thread(lambda: d.jsonrpc.noSuchMethod())


# --------------------------------------------------------------------------- end to end


@pytest.mark.device_virtual
def test_uiautomator2_end_to_end_through_the_real_adb_server(
    attached: AttachedVirtualPhone,
) -> None:
    client = adbutils.AdbClient(host="127.0.0.1", port=attached.adb_port, socket_timeout=30)
    device = client.device(attached.serial)
    d = u2.connect(device)
    try:
        assert d.info["currentPackageName"] == "com.android.launcher3"
        assert parse_hierarchy(d.dump_hierarchy()).find(text="Settings")
        assert d.screenshot().size == (1080, 2400)
        d(text="Settings").click()
        assert d.app_current()["package"] == "com.android.settings"
        d.press("home")
        d(text="Contacts").click()
        d(resourceId=SEARCH_ID).click()
        d.send_keys("张伟")
        assert d(resourceId=SEARCH_ID).get_text() == "张伟"
        with pytest.raises(u2.UiObjectNotFoundError):
            d(text="No such thing").click(timeout=0.2)
    finally:
        d.stop_uiautomator()
    with pytest.raises(adbutils.AdbError):
        device.create_connection(adbutils.Network.TCP, PORT)
