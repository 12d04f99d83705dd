"""``ifconfig`` (toybox) and ``ip addr`` (iproute2): the phone's ``lo`` and ``wlan0``.

``wlan0`` is UP with an IPv4 address while Wi-Fi is connected to a network
(:func:`sim.radios.connected_ssid`); otherwise it is down (``BROADCAST MULTICAST``) and
has no ``inet`` line. Its address is a stable private one per phone: ``192.168.<a>.<b>``
derived from the instance's seed, in a /24 with broadcast ``.255``.

Formats (toybox ``toys/net/ifconfig.c`` ``display_ifconfig``; iproute2 ``ip addr``):

* ``ifconfig IFACE``: ``%-9s Link encap:Ethernet  HWaddr xx:…``, then
  ``          inet addr:A  Bcast:B  Mask:M `` (each field printed as `` %s:%s ``), an
  ``inet6 addr: …/64 Scope: Link`` line, the flags (``UP BROADCAST RUNNING MULTICAST ``)
  with ``  MTU:1500  Metric:1``, four counter lines and a blank line. An unknown interface:
  ``ifconfig: NAME: No such device``, exit 1.
* ``ip addr show [dev] IFACE``: ``N: IFACE: <FLAGS> mtu … state UP|DOWN …``, ``link/ether``,
  ``inet A/24 brd B scope global IFACE`` + lifetimes; ``-f inet``/``-4`` keeps only IPv4
  and prints nothing for an interface without it. Unknown: ``Device "NAME" does not
  exist.``, exit 1.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

from device.virtual.shell_context import CommandContext, CommandFn
from sim.radios import connected_ssid, settings_world

__all__ = ["COMMANDS", "Interface", "interfaces"]


@dataclass(frozen=True)
class Interface:
    """One network interface as the kernel reports it."""

    index: int
    name: str
    up: bool
    loopback: bool
    mtu: int
    mac: str
    inet: tuple[str, int, str | None] | None
    """(address, prefix length, broadcast) or None."""
    inet6: tuple[str, int, str] | None
    """(address, prefix length, scope name) or None."""
    qlen: int


def _wlan_address(seed: int) -> tuple[str, str]:
    """A stable private IPv4 address and MAC for the phone with ``seed``."""
    digest = zlib.crc32(f"wlan0:{seed}".encode())
    subnet, host = digest % 250 + 1, (digest >> 8) % 200 + 20
    mac_tail = ":".join(f"{(digest >> shift) & 0xFF:02x}" for shift in (0, 8, 16))
    return f"192.168.{subnet}.{host}", f"02:00:00:{mac_tail}"


def interfaces(ctx: CommandContext) -> list[Interface]:
    """``lo`` and ``wlan0`` as they are now (``wlan0`` up only while Wi-Fi is connected)."""
    state = ctx.phone.instance.state
    connected = connected_ssid(state, settings_world(ctx.phone.sim.phone)) is not None
    address, mac = _wlan_address(state.seed)
    subnet = address.rsplit(".", 1)[0]
    wlan = Interface(
        30,
        "wlan0",
        connected,
        False,
        1500,
        mac,
        (address, 24, f"{subnet}.255") if connected else None,
        ("fe80::" + mac.replace(":", "")[-4:].lstrip("0"), 64, "link") if connected else None,
        3000,
    )
    lo = Interface(
        1,
        "lo",
        True,
        True,
        65536,
        "00:00:00:00:00:00",
        ("127.0.0.1", 8, None),
        ("::1", 128, "host"),
        1000,
    )
    return [lo, wlan]


def _mask(prefix: int) -> str:
    bits = (0xFFFFFFFF << (32 - prefix)) & 0xFFFFFFFF
    return ".".join(str((bits >> shift) & 0xFF) for shift in (24, 16, 8, 0))


def _ifconfig_text(iface: Interface) -> str:
    pad = " " * 10
    if iface.loopback:
        lines = [f"{iface.name:<9s} Link encap:Local Loopback  "]
    else:
        lines = [f"{iface.name:<9s} Link encap:Ethernet  HWaddr {iface.mac}"]
    if iface.inet is not None:
        address, prefix, broadcast = iface.inet
        fields = f" addr:{address} "
        fields += f" Bcast:{broadcast} " if broadcast else ""
        lines.append(f"{pad}inet{fields} Mask:{_mask(prefix)} ")
    if iface.inet6 is not None:
        address6, prefix6, scope = iface.inet6
        lines.append(f"{pad}inet6 addr: {address6}/{prefix6} Scope: {scope.capitalize()}")
    flags = ["UP"] if iface.up else []
    flags += ["LOOPBACK"] if iface.loopback else ["BROADCAST"]
    flags += ["RUNNING"] if iface.up else []
    flags += [] if iface.loopback else ["MULTICAST"]
    lines.append(f"{pad}{' '.join(flags)}  MTU:{iface.mtu}  Metric:1")
    lines.append(f"{pad}RX packets:0 errors:0 dropped:0 overruns:0 frame:0 ")
    lines.append(f"{pad}TX packets:0 errors:0 dropped:0 overruns:0 carrier:0 ")
    lines.append(f"{pad}collisions:0 txqueuelen:{iface.qlen} ")
    lines.append(f"{pad}RX bytes:0 TX bytes:0 ")
    return "\n".join(lines) + "\n\n"


async def ifconfig(ctx: CommandContext) -> int:
    """``ifconfig [-a] [IFACE]``: show interfaces (configuring them is refused)."""
    show_all = "-a" in ctx.args
    names = [arg for arg in ctx.args if not arg.startswith("-")]
    found = {iface.name: iface for iface in interfaces(ctx)}
    if len(names) > 1:
        await ctx.eprintln(f"ifconfig: ioctl {names[1]}: Operation not permitted")
        return 1
    if names:
        if names[0] not in found:
            await ctx.eprintln(f"ifconfig: {names[0]}: No such device")
            return 1
        await ctx.out(_ifconfig_text(found[names[0]]))
        return 0
    await ctx.out("".join(_ifconfig_text(i) for i in found.values() if i.up or show_all))
    return 0


def _ip_text(iface: Interface, family: str | None) -> str:
    has_inet = iface.inet is not None and family in (None, "inet")
    has_inet6 = iface.inet6 is not None and family in (None, "inet6")
    if family is not None and not (has_inet or has_inet6):
        return ""
    if iface.loopback:
        flags, state, kind = "LOOPBACK,UP,LOWER_UP", "UNKNOWN", "loopback"
        link = f"    link/{kind} {iface.mac} brd {iface.mac}"
        qdisc = "noqueue"
    else:
        flags = "BROADCAST,MULTICAST" + (",UP,LOWER_UP" if iface.up else "")
        state, qdisc = ("UP" if iface.up else "DOWN"), "mq"
        link = f"    link/ether {iface.mac} brd ff:ff:ff:ff:ff:ff"
    lines = [
        f"{iface.index}: {iface.name}: <{flags}> mtu {iface.mtu} qdisc {qdisc} state {state} "
        f"group default qlen {iface.qlen}",
        link,
    ]
    lifetimes = "       valid_lft forever preferred_lft forever"
    if has_inet and iface.inet is not None:
        address, prefix, broadcast = iface.inet
        brd = f" brd {broadcast}" if broadcast else ""
        scope = "host" if iface.loopback else "global"
        lines += [f"    inet {address}/{prefix}{brd} scope {scope} {iface.name}", lifetimes]
    if has_inet6 and iface.inet6 is not None:
        address6, prefix6, scope6 = iface.inet6
        lines += [f"    inet6 {address6}/{prefix6} scope {scope6} ", lifetimes]
    return "\n".join(lines) + "\n"


async def ip(ctx: CommandContext) -> int:
    """``ip [-4|-6|-f FAMILY] addr|address|a [show|list] [dev] [IFACE]``."""
    args, family = list(ctx.args), None
    while args and args[0].startswith("-"):
        option = args.pop(0)
        if option in ("-f", "-family") and args:
            family = {"inet": "inet", "inet6": "inet6"}.get(args.pop(0))
        elif option in ("-4", "-6"):
            family = "inet" if option == "-4" else "inet6"
    if not args or args[0] not in ("addr", "address", "a"):
        obj = args[0] if args else ""
        return await ctx.usage(f'Object "{obj}" is unknown, try "ip help".')
    rest = [arg for arg in args[1:] if arg not in ("show", "list", "dev")]
    found = {iface.name: iface for iface in interfaces(ctx)}
    if rest:
        if rest[0] not in found:
            await ctx.eprintln(f'Device "{rest[0]}" does not exist.')
            return 1
        await ctx.out(_ip_text(found[rest[0]], family))
        return 0
    await ctx.out("".join(_ip_text(iface, family) for iface in found.values()))
    return 0


COMMANDS: dict[str, CommandFn] = {"ifconfig": ifconfig, "ip": ip}
"""The network commands."""
