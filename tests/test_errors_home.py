"""Every exception class of ours lives in an ``errors`` module, where its tree is drawn.

An exception defined beside the code that raises it is found by nobody who reads the trees
(docs/architecture.md: "Infra errors are the mapped ones"); this test finds it instead.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

PACKAGES = ("bridge", "sim", "device", "policies", "scaleout", "trainers", "transfer_eval")


def _modules() -> list[str]:
    names: list[str] = []
    for package in PACKAGES:
        root = importlib.import_module(package)
        names.append(package)
        names += [
            info.name
            for info in pkgutil.walk_packages(root.__path__, prefix=f"{package}.")
            if not info.name.endswith("__main__")
            and ".static" not in info.name
            and ".templates" not in info.name
        ]
    return names


def _optional(name: str) -> bool:
    """Modules that need an extra this machine may not have (Ray, trainers' frameworks)."""
    return name.startswith(("scaleout.ray", "trainers."))


def _exceptions_defined_in(name: str) -> list[str]:
    try:
        module = importlib.import_module(name)
    except ImportError:
        if _optional(name):
            return []
        raise
    return [
        cls.__qualname__
        for _, cls in inspect.getmembers(module, inspect.isclass)
        if issubclass(cls, BaseException) and cls.__module__ == name
    ]


@pytest.mark.parametrize("package", PACKAGES)
def test_exceptions_live_in_errors_modules(package: str) -> None:
    stray = {
        name: found
        for name in _modules()
        if name.split(".")[0] == package
        and name.rsplit(".", 1)[-1] != "errors"
        and (found := _exceptions_defined_in(name))
    }
    assert not stray, f"exception classes outside an errors module: {stray}"


def test_every_errors_module_draws_its_tree() -> None:
    for name in _modules():
        if name.rsplit(".", 1)[-1] != "errors":
            continue
        module = importlib.import_module(name)
        defined = [
            cls.__name__
            for _, cls in inspect.getmembers(module, inspect.isclass)
            if issubclass(cls, BaseException) and cls.__module__ == name
        ]
        doc = module.__doc__ or ""
        missing = [cls for cls in defined if cls not in doc]
        assert not missing, f"{name}'s docstring does not draw {missing}"
