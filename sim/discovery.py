"""Finding the simulator's apps, task templates and wrong plans by an explicit scan (no
registry filled as a side effect of importing).

* **Apps.** An app is a folder: a package under ``sim/apps/`` (or under a directory of
  ``MGB_EXTRA_APPS``, which joins ``sim.apps``) defining one :class:`~sim.app.App` subclass
  whose ``id`` is the folder's name, with an entry in ``bridge/apps.json`` (or in the extra
  directory's ``apps.json``). Apps come in catalog order.
* **Templates.** An app's template modules are the modules of its folder named ``tasks`` or
  ending in ``_tasks`` (``tasks.py`` first, then the others by name); templates that cross
  apps are in the ``sim/tasks/*_tasks.py`` modules, after every app's. Each module lists its
  templates in ``TEMPLATES``.
* **Wrong plans.** A template module maps its task ids to a plausible plan that must not pass
  the judge in ``WRONG`` (:data:`~sim.tasks.base.WrongPlan`); the end-to-end tests run them.

Adding an app or a module of templates is adding files: nothing else lists them.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from types import ModuleType

from bridge.app_catalog import app_catalog, extra_app_dirs
from sim.app import App
from sim.errors import SimError
from sim.tasks.base import WrongPlan

__all__ = ["scan_apps", "scan_templates", "scan_wrong_plans", "template_modules"]


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


def _app_packages() -> list[str]:
    """The names of the app folders, in catalog order; the folders of ``MGB_EXTRA_APPS``
    directories join ``sim.apps`` first (so an app imports itself as ``sim.apps.<id>``
    wherever its folder is)."""
    import sim.apps

    for directory in map(str, extra_app_dirs()):
        if directory not in sim.apps.__path__:
            sim.apps.__path__.append(directory)
    names = {info.name for info in pkgutil.iter_modules(sim.apps.__path__) if info.ispkg}
    order = {app_id: index for index, app_id in enumerate(app_catalog().ids())}
    unknown = sorted(name for name in names if name not in order)
    if unknown:
        raise SimError(
            f"app folder {unknown[0]!r} has no entry in bridge/apps.json (nor in an "
            "MGB_EXTRA_APPS directory's apps.json): add its identity"
        )
    return sorted(names, key=order.__getitem__)


def scan_apps() -> list[App]:
    """One instance of every app, in catalog order."""
    return [_app_of(name)() for name in _app_packages()]


def _task_modules(package: ModuleType) -> list[str]:
    names = [
        info.name
        for info in pkgutil.iter_modules(package.__path__)
        if info.name == "tasks" or info.name.endswith("_tasks")
    ]
    return sorted(names, key=lambda name: (name != "tasks", name))


def template_modules() -> list[ModuleType]:
    """Every template module: each app's (apps in catalog order), then the cross-app ones of
    ``sim/tasks/``; modules without a ``TEMPLATES`` list are refused."""
    import sim.tasks

    modules: list[ModuleType] = []
    for app in _app_packages():
        package = importlib.import_module(f"sim.apps.{app}")
        modules += [
            importlib.import_module(f"sim.apps.{app}.{name}") for name in _task_modules(package)
        ]
    modules += [importlib.import_module(f"sim.tasks.{name}") for name in _task_modules(sim.tasks)]
    for module in modules:
        if getattr(module, "TEMPLATES", None) is None:
            raise SimError(
                f"{module.__file__} is a template module (named tasks or *_tasks) but lists "
                "no TEMPLATES: list its templates, or rename it"
            )
    return modules


def scan_templates() -> list[object]:
    """Every template of every template module, in :func:`template_modules` order."""
    return [template for module in template_modules() for template in module.TEMPLATES]


def scan_wrong_plans() -> dict[str, WrongPlan]:
    """Task id -> its wrong plan, from the ``WRONG`` maps of the template modules."""
    plans: dict[str, WrongPlan] = {}
    for module in template_modules():
        for task_id, plan in getattr(module, "WRONG", {}).items():
            if task_id in plans:
                raise SimError(f"{module.__file__}: a second wrong plan for {task_id}")
            plans[task_id] = plan
    return plans
