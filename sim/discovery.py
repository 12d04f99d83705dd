"""Finding the simulator's apps and task templates by an explicit scan (no registry filled
as a side effect of importing).

An app is the one :class:`~sim.app.App` subclass a package under ``sim/apps/`` defines whose
``id`` is the package's name; a template module is a module of ``sim/tasks/`` whose name
ends in ``_tasks`` and which lists its templates in ``TEMPLATES``. Adding an app or a module
of templates is adding files: nothing else lists them.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

from bridge.app_catalog import app_catalog
from sim.app import App
from sim.errors import SimError

__all__ = ["scan_apps", "scan_templates"]


def _app_of(package: str) -> type[App]:
    module = importlib.import_module(f"sim.apps.{package}")
    found = {
        cls
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, App) and cls is not App and getattr(cls, "id", None) == package
    }
    if len(found) != 1:
        raise SimError(
            f"sim/apps/{package} should export one App subclass with id {package!r}, found "
            f"{sorted(c.__name__ for c in found) or 'none'}"
        )
    return found.pop()


def scan_apps() -> list[App]:
    """One instance of every app under ``sim/apps/``, in ``bridge/apps.json`` order."""
    import sim.apps

    names = [info.name for info in pkgutil.iter_modules(sim.apps.__path__) if info.ispkg]
    order = {app_id: index for index, app_id in enumerate(app_catalog().ids())}
    unknown = sorted(name for name in names if name not in order)
    if unknown:
        raise SimError(f"sim/apps/{unknown[0]} has no entry in bridge/apps.json: add its identity")
    return [_app_of(name)() for name in sorted(names, key=order.__getitem__)]


def scan_templates() -> list[object]:
    """Every template of every ``sim/tasks/*_tasks.py`` module, modules in name order."""
    import sim.tasks

    modules = sorted(
        info.name
        for info in pkgutil.iter_modules(sim.tasks.__path__)
        if info.name.endswith("_tasks")
    )
    templates: list[object] = []
    for name in modules:
        module = importlib.import_module(f"sim.tasks.{name}")
        listed = getattr(module, "TEMPLATES", None)
        if listed is None:
            raise SimError(f"sim/tasks/{name}.py lists no TEMPLATES")
        templates.extend(listed)
    return templates
