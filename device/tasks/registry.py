"""Every device variant by task id."""

from __future__ import annotations

from device.tasks.base import DeviceVariant
from device.tasks.contacts_hybrid_variants import CONTACTS_HYBRID_VARIANTS
from device.tasks.contacts_variants import CONTACTS_VARIANTS
from device.tasks.settings_query_variants import SETTINGS_QUERY_VARIANTS
from device.tasks.settings_variants import SETTINGS_VARIANTS

__all__ = ["default_variants"]


def default_variants() -> dict[str, DeviceVariant]:
    """Task id -> device variant, for every task a phone can pose and judge."""
    variants: dict[str, DeviceVariant] = {}
    groups = (
        SETTINGS_VARIANTS,
        SETTINGS_QUERY_VARIANTS,
        CONTACTS_VARIANTS,
        CONTACTS_HYBRID_VARIANTS,
    )
    for variant in (variant for group in groups for variant in group):
        if variant.task_id in variants:
            raise ValueError(f"two device variants for {variant.task_id}")
        variants[variant.task_id] = variant
    return variants
