"""``MobileGymFiles``: the shared storage as MobileGym's file system holds it (``__SIM_FS__``,
the nodes of ``os.fileSystem``), shown as ``stat`` shows Android's; writes only in a task
folder.

A node is shown as Android's ``stat`` would: its ``modifiedAt`` in whole seconds (``%Y``), a
file's ``size`` in bytes (MobileGym stores a file as a UTF-8 ``Blob``), a folder's as 4096 (as
ext4 and f2fs show one), and an inode derived from the node's ``id`` (:func:`inode_of`):
MobileGym's ``move`` keeps a node's id, so a rename or move keeps the inode and a copy gets a
new one, as on Android. Unlike Android's ``rename``, MobileGym's ``move`` also sets the node's
``modifiedAt`` to its clock.
"""

from __future__ import annotations

import hashlib
import mimetypes
import posixpath
from functools import cache
from typing import Any

from bridge.android_state import FileStat, in_task_folder
from bridge.errors import StateUnavailable
from mobilegym.android_state.base import MobileGymStateBase

__all__ = ["DIR_SIZE", "MobileGymFiles", "file_stat", "inode_of"]

DIR_SIZE = 4096
"""A folder's size as ``stat`` shows it on ext4 and f2fs."""

_NODE = "({id: n.id, name: n.name, type: n.type, size: n.size, modifiedAt: n.modifiedAt})"
_STAT = f"(path) => {{ const n = window.__SIM_FS__.stat(path); return n && {_NODE}; }}"
_LIST = f"""(path) => {{
  const fs = window.__SIM_FS__, folder = fs.stat(path);
  return folder && folder.type === 'directory' ? fs.list(path).map((n) => {_NODE}) : [];
}}"""
_WRITE = """async ([path, folder, text, mimeType, modifiedAt]) => {
  const fs = window.__SIM_FS__, parent = fs.stat(folder), there = fs.stat(path);
  if (!parent || parent.type !== 'directory') return `${folder} is not a folder`;
  if (there && there.type === 'directory') return 'it is a folder';
  await fs.write(path, text, {mimeType, modifiedAt});
  return null;
}"""
_MKDIR = """async (path) => {
  const fs = window.__SIM_FS__, parts = path.split('/').filter(Boolean);
  for (let depth = 1; depth <= parts.length; depth += 1) {
    const found = fs.stat('/' + parts.slice(0, depth).join('/'));
    if (found && found.type !== 'directory') return `${found.name} is not a folder`;
  }
  await fs.mkdir(path);
  return null;
}"""
"""Every folder from ``/sdcard`` to the path must be a folder where it exists (MobileGym would
make a folder inside a file; Android's ``mkdir -p`` fails: Not a directory), checked and made
in one call."""
_DELETE = "async (path) => { await window.__SIM_FS__.delete(path); }"


@cache
def _types() -> mimetypes.MimeTypes:
    """Python's built-in table only (not the machine's), so a type is the same everywhere."""
    return mimetypes.MimeTypes()


def inode_of(node_id: str) -> int:
    """A stable inode number for a MobileGym node id (48 bits of its BLAKE2b digest)."""
    return int.from_bytes(hashlib.blake2b(node_id.encode(), digest_size=6).digest(), "big")


def file_stat(node: dict[str, Any]) -> FileStat:
    """A MobileGym node as ``stat`` shows it (see the module docstring)."""
    is_dir = node["type"] == "directory"
    return FileStat(
        name=str(node["name"]),
        kind="dir" if is_dir else "file",
        size=DIR_SIZE if is_dir else int(node["size"]),
        mtime_ms=int(node["modifiedAt"]) // 1000 * 1000,
        inode=inode_of(str(node["id"])),
    )


class MobileGymFiles(MobileGymStateBase):
    """:class:`bridge.android_state.FilesState` over MobileGym's file system."""

    def _task_path(self, path: str) -> str:
        if not in_task_folder(path):
            raise StateUnavailable(f"a task writes files only inside a task folder, not {path!r}")
        return path

    async def stat_path(self, path: str) -> FileStat | None:
        """The node at ``path`` (None: nothing there)."""
        node = await self.page.call(_STAT, path)
        return None if node is None else file_stat(node)

    async def list_files(self, path: str) -> list[FileStat]:
        """The entries of the folder ``path`` by name ([] when there is no such folder)."""
        nodes = await self.page.call(_LIST, path)
        return sorted((file_stat(node) for node in nodes), key=lambda stat: stat.name)

    async def write_file(self, path: str, text: str, mtime_ms: int) -> None:
        """Create or replace a text file in a task folder (its folder must exist, as for
        ``printf > path``), modified at ``mtime_ms``; its type from its name, as Android's
        media store gives one."""
        folder = posixpath.dirname(self._task_path(path))
        kind = _types().guess_type(path)[0] or "application/octet-stream"
        refused = await self.page.call(_WRITE, [path, folder, text, kind, mtime_ms])
        if refused is not None:
            raise StateUnavailable(f"cannot write {path}: {refused}")

    async def make_dir(self, path: str) -> None:
        """``mkdir -p`` in a task folder."""
        refused = await self.page.call(_MKDIR, self._task_path(path))
        if refused is not None:
            raise StateUnavailable(f"cannot make {path}: {refused}")

    async def remove(self, path: str) -> None:
        """``rm -rf`` in a task folder (nothing there is no error)."""
        await self.page.call(_DELETE, self._task_path(path))
