"""The public API of policies.vlm: complete ``__all__``, docstrings, imports pointing down."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import policies.vlm

VLM_DIR = Path(policies.vlm.__file__).parent
MODULES = sorted(p.stem for p in VLM_DIR.glob("*.py") if p.stem != "__init__")


@pytest.mark.parametrize("name", MODULES)
def test_all_lists_every_public_definition_and_each_has_a_docstring(name: str) -> None:
    module = importlib.import_module(f"policies.vlm.{name}")
    assert module.__doc__, f"policies.vlm.{name} has no module docstring"
    tree = ast.parse((VLM_DIR / f"{name}.py").read_text(encoding="utf-8"))
    public = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_")
    }
    assert public <= set(module.__all__), sorted(public - set(module.__all__))
    undocumented = [s for s in public if not getattr(module, s).__doc__]
    assert not undocumented, f"policies.vlm.{name}: no docstring on {undocumented}"


@pytest.mark.parametrize("name", MODULES)
def test_vlm_imports_only_bridge_and_itself(name: str) -> None:
    tree = ast.parse((VLM_DIR / f"{name}.py").read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    ours = {m for m in modules if m.split(".")[0] in {"sim", "device", "policies", "transfer_eval"}}
    assert all(m.startswith("policies.vlm") for m in ours), ours


def test_package_exports_resolve() -> None:
    assert all(getattr(policies.vlm, symbol) is not None for symbol in policies.vlm.__all__)
