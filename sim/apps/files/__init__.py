"""The Files app (AOSP DocumentsUI): roots, folders, selection, rename, copy, move, delete."""

from sim.apps.files.app import FilesApp

__all__ = ["FilesApp"]
