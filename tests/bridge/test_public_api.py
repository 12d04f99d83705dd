"""bridge's public API is explicit, complete, and layered (it imports nothing else of ours)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from pathlib import Path

import pytest

import bridge

BRIDGE_DIR = Path(bridge.__file__).parent
MODULES = sorted(
    info.name.removeprefix("bridge.")
    for info in pkgutil.walk_packages(bridge.__path__, prefix="bridge.")
)
"""Every module of bridge/ and its packages (``spec``, ``spec.settings``, …)."""


def _source(name: str) -> Path:
    """The source file of ``bridge.<name>`` (a package's ``__init__.py``)."""
    path = BRIDGE_DIR.joinpath(*name.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


@pytest.mark.parametrize("name", MODULES)
def test_every_module_declares_a_complete_all(name: str) -> None:
    module = importlib.import_module(f"bridge.{name}")
    declared = set(module.__all__)
    tree = ast.parse(_source(name).read_text(encoding="utf-8"))
    public = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
        and not node.name.startswith("_")
    }
    assert public <= declared, f"bridge.{name} leaves {sorted(public - declared)} out of __all__"
    assert all(hasattr(module, symbol) for symbol in declared)


def test_package_exports_resolve() -> None:
    for symbol in bridge.__all__:
        assert getattr(bridge, symbol) is not None, symbol


@pytest.mark.parametrize("name", MODULES)
def test_bridge_imports_nothing_else_of_ours(name: str) -> None:
    tree = ast.parse(_source(name).read_text(encoding="utf-8"))
    ours = {"sim", "device", "policies", "transfer_eval"}
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
        elif isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
    assert not imported & ours, f"bridge.{name} imports {sorted(imported & ours)}"


@pytest.mark.parametrize("name", MODULES)
def test_public_symbols_have_docstrings(name: str) -> None:
    module = importlib.import_module(f"bridge.{name}")
    assert module.__doc__, f"bridge.{name} has no module docstring"
    missing = [
        symbol
        for symbol in module.__all__
        if callable(getattr(module, symbol))
        and getattr(getattr(module, symbol), "__module__", "") == module.__name__
        and not getattr(module, symbol).__doc__
    ]
    assert not missing, f"bridge.{name}: no docstring on {missing}"
