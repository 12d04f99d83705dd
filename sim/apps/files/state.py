"""The Files app's overlay, typed: what :mod:`sim.apps.files.app` writes into
``InstanceState.apps["files"]``. Its judged state is shared storage (``os.storage``), not
this: the overlay keeps only the app's own preference."""

from __future__ import annotations

from typing import Literal

from sim.state import OverlayModel

__all__ = ["FilesState", "SortOrder"]

SortOrder = Literal["name_asc", "name_desc", "date_desc", "date_asc", "size_desc", "size_asc"]
"""The sort orders the Sort by dialog offers (:data:`sim.apps.files.screens.SORTS`)."""


class FilesState(OverlayModel):
    """``{"sort": order}``, kept for every folder (absent: by name, A–Z)."""

    sort: SortOrder | None = None
