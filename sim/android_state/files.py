"""``SimFiles``: the files surface over :mod:`sim.storage`, the instance's ``/sdcard`` tree
(``stat`` shows whole seconds)."""

from __future__ import annotations

from bridge.android_state import FileStat, in_task_folder
from bridge.errors import StateUnavailable
from sim import storage as sdcard
from sim.android_state.base import SimStateBase
from sim.errors import NotADirectory, NotFound

__all__ = ["SimFiles", "file_stat"]


def file_stat(node: sdcard.Node) -> FileStat:
    """A storage node as ``stat`` shows it: the time in whole seconds, as ``%Y`` has it."""
    return FileStat(
        name=node.name,
        kind=node.kind,
        size=node.size if node.kind == "file" else 4096,
        mtime_ms=node.mtime_ms // 1000 * 1000,
        inode=node.id,
    )


class SimFiles(SimStateBase):
    """:class:`bridge.android_state.FilesState` over the instance's shared storage."""

    def _task_path(self, path: str) -> str:
        if not in_task_folder(path):
            raise StateUnavailable(f"a task writes files only inside a task folder, not {path!r}")
        return path

    async def stat_path(self, path: str) -> FileStat | None:
        """The node at ``path`` as ``stat`` shows it (None: nothing there)."""
        try:
            node = sdcard.lookup(self.state.os.storage, path)
        except NotADirectory:
            return None
        return None if node is None else file_stat(node)

    async def list_files(self, path: str) -> list[FileStat]:
        """The entries of the directory ``path`` by name ([] when there is none)."""
        found = await self.stat_path(path)
        if found is None or found.kind != "dir":
            return []
        return [file_stat(n) for n in sdcard.children(self.state.os.storage, found.inode)]

    async def write_file(self, path: str, text: str, mtime_ms: int) -> None:
        """Create or replace a text file in a task folder, modified at ``mtime_ms``."""
        tree = self.state.os.storage
        sdcard.write(tree, self._task_path(path), text, self.state.os.clock_ms)
        sdcard.set_mtime(tree, path, mtime_ms)
        self._changed()

    async def make_dir(self, path: str) -> None:
        """``mkdir -p`` in a task folder."""
        sdcard.make_dir(
            self.state.os.storage, self._task_path(path), self.state.os.clock_ms, parents=True
        )
        self._changed()

    async def remove(self, path: str) -> None:
        """``rm -rf`` in a task folder."""
        try:
            sdcard.remove(self.state.os.storage, self._task_path(path), recursive=True)
        except NotFound:
            return
        self._changed()
