"""``AdbFiles``: the shared storage over ``stat``, ``ls``, ``printf``, ``touch``, ``mkdir``
and ``rm``; writes only inside a task folder."""

from __future__ import annotations

import shlex
from datetime import datetime

from bridge.android_state import FileStat, in_task_folder
from bridge.errors import StateUnavailable
from bridge.phone_time import zone
from device.android_state.clock import AdbClock

__all__ = ["STAT_FORMAT", "AdbFiles", "parse_stat_line"]

STAT_FORMAT = "%i/%s/%Y/%F/%n"
"""``stat -c`` of a file: inode, size, mtime (s), type, path ("/" cannot be in a name, so
the first four fields split cleanly and the path is the rest)."""


def parse_stat_line(line: str) -> FileStat | None:
    """One line of ``stat -c STAT_FORMAT`` (None: not such a line, e.g. an error)."""
    fields = line.split("/", 4)
    if len(fields) != 5 or not all(f.isdigit() for f in fields[:3]):
        return None
    inode, size, mtime, kind, path = fields
    return FileStat(
        name=path.rstrip("/").rsplit("/", 1)[-1],
        kind="dir" if kind == "directory" else "file",
        size=int(size),
        mtime_ms=int(mtime) * 1000,
        inode=int(inode),
    )


class AdbFiles(AdbClock):
    """:class:`bridge.android_state.FilesState` over ``adb shell``; builds on
    :class:`~device.android_state.clock.AdbClock` for the zone a modification time is in."""

    async def stat_path(self, path: str) -> FileStat | None:
        """``stat -c`` of one path (None: nothing there)."""
        output = await self.shell(f"stat -c {STAT_FORMAT} {shlex.quote(path)} 2>/dev/null")
        return next(filter(None, map(parse_stat_line, output.splitlines())), None)

    async def list_files(self, path: str) -> list[FileStat]:
        """``ls -a`` of a directory, then one ``stat -c`` of its entries ([] when ``path``
        is no directory)."""
        quoted = shlex.quote(path)
        output = await self.shell(f"[ -d {quoted} ] && ls -a {quoted}")
        names = [n for n in output.splitlines() if n not in ("", ".", "..")]
        if not names:
            return []
        paths = " ".join(shlex.quote(f"{path.rstrip('/')}/{name}") for name in names)
        printed = await self.shell(f"stat -c {STAT_FORMAT} {paths} 2>/dev/null")
        found = [stat for stat in map(parse_stat_line, printed.splitlines()) if stat]
        return sorted(found, key=lambda stat: stat.name)

    def _task_path(self, path: str) -> str:
        if not in_task_folder(path):
            raise StateUnavailable(
                f"refusing to write {path!r} on a phone: a task writes files only inside its "
                "own folder under /sdcard/Download"
            )
        return shlex.quote(path)

    async def _files(self, command: str, what: str) -> None:
        output = await self.shell(f"{command} 2>&1; echo status=$?")
        lines = output.rstrip().splitlines()
        if not lines or lines[-1] != "status=0":
            detail = " ".join(lines[:-1])[:200] or "no output"
            raise StateUnavailable(f"the phone could not {what}: {detail}")

    async def write_file(self, path: str, text: str, mtime_ms: int) -> None:
        """``printf '%s' TEXT > PATH`` then ``touch -m -d "YYYY-MM-DD HH:MM:SS"`` in the
        phone's zone (inside a task folder only)."""
        quoted = self._task_path(path)
        _, zone_name = await self.now()
        local = datetime.fromtimestamp(mtime_ms / 1000, zone(zone_name))
        stamp = shlex.quote(local.strftime("%Y-%m-%d %H:%M:%S"))
        command = f"printf '%s' {shlex.quote(text)} > {quoted} && touch -m -d {stamp} {quoted}"
        await self._files(command, f"write {path}")

    async def make_dir(self, path: str) -> None:
        """``mkdir -p`` (inside a task folder only)."""
        await self._files(f"mkdir -p {self._task_path(path)}", f"make the folder {path}")

    async def remove(self, path: str) -> None:
        """``rm -rf`` (inside a task folder only)."""
        await self._files(f"rm -rf {self._task_path(path)}", f"remove {path}")
