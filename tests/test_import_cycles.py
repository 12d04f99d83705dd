"""No import cycles: our packages' modules import one another in layers (issue 29).

Every module of our packages is parsed with ``ast`` (nothing is imported). An edge
``a -> b`` is any import of ``b`` in ``a``: at module level or inside a function, since an
import moved into a function to dodge a cycle is still a cycle of the design. Imports under
``if TYPE_CHECKING:`` do not count (they never run). ``import a.b.c`` and ``from a.b import
c`` name the module ``a.b.c`` when it exists, else the package ``a.b`` (its ``__init__``);
the parent packages Python also initialises are left out, so a package ``__init__`` that
re-exports its modules does not put every module on a cycle.

``device/`` has no cycle at all. Other packages may keep the cycles listed in
``KNOWN_CYCLES``; the test fails when a new one appears and when a known one changes or goes
away (then the constant shrinks).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from functools import cache
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("bridge", "sim", "device", "policies", "scaleout", "trainers", "transfer_eval")
CLEAN = ("device",)
"""Packages asserted free of cycles, whatever ``KNOWN_CYCLES`` says."""

KNOWN_CYCLES: dict[str, frozenset[frozenset[str]]] = {
    # policies.vlm_replay imports the spec models; policies.registry builds a
    # RecordedVLMPolicy in a function.
    "policies": frozenset({frozenset({"policies.registry", "policies.vlm_replay"})}),
}
"""Cycles found when this test was written (issue 29), per package: each is one strongly
connected component of the import graph, as its set of modules. To be broken, not added to."""


def module_name(path: Path) -> str:
    """The dotted module name of a file under ``REPO`` (a package is its ``__init__``)."""
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def modules() -> dict[str, Path]:
    """Every module of our packages, by dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            found[module_name(path)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements under ``node``, skipping ``if TYPE_CHECKING:`` bodies."""
    yield from _imports_in(ast.iter_child_nodes(node))


def _imports_in(nodes: Iterable[ast.AST]) -> Iterator[ast.Import | ast.ImportFrom]:
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _imports_in(node.orelse)
        else:
            yield from _imports(node)


def _targets(module: str, is_package: bool, stmt: ast.Import | ast.ImportFrom) -> Iterator[str]:
    """The dotted module each name of an import statement refers to (relative ones resolved)."""
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            yield alias.name
        return
    base = stmt.module or ""
    if stmt.level:
        package = module if is_package else module.rpartition(".")[0]
        for _ in range(stmt.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{base}".rstrip(".") if base else package
    for alias in stmt.names:
        yield f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules() else base


@cache
def graph() -> dict[str, frozenset[str]]:
    """Each of our modules and the modules of ours it imports."""
    edges: dict[str, frozenset[str]] = {}
    for name, path in modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        targets = {
            target
            for stmt in _imports(tree)
            for target in _targets(name, is_package, stmt)
            if target in modules() and target != name
        }
        edges[name] = frozenset(targets)
    return edges


def cycles(edges: dict[str, frozenset[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(frozenset(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def _cycles_touching(package: str) -> frozenset[frozenset[str]]:
    return frozenset(
        component
        for component in cycles(graph())
        if any(m == package or m.startswith(f"{package}.") for m in component)
    )


def test_the_graph_sees_function_level_imports_and_skips_type_checking() -> None:
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import a\nelse:\n    import b\n"
        "def f():\n    import c\n"
    )
    named = [s.module if isinstance(s, ast.ImportFrom) else s.names[0].name for s in _imports(tree)]
    assert sorted(map(str, named)) == ["b", "c", "typing"]


def test_cycles_finds_a_loop_and_ignores_a_chain() -> None:
    edges = {m: frozenset(t) for m, t in {"a": "b", "b": "c", "c": "a", "d": "a"}.items()}
    assert cycles(edges) == [frozenset("abc")]
    assert cycles({"a": frozenset("b"), "b": frozenset()}) == []


def test_known_cycles_spare_the_clean_packages() -> None:
    assert not any(
        m.split(".")[0] in CLEAN
        for components in KNOWN_CYCLES.values()
        for component in components
        for m in component
    )


@pytest.mark.parametrize("package", PACKAGES)
def test_no_import_cycle_but_the_known_ones(package: str) -> None:
    found = _cycles_touching(package)
    known = frozenset() if package in CLEAN else KNOWN_CYCLES.get(package, frozenset())
    new = [sorted(c) for c in found - known]
    gone = [sorted(c) for c in known - found]
    assert not new, f"new import cycles (break them by inverting a dependency): {new}"
    assert not gone, f"known cycles changed or went away; shrink KNOWN_CYCLES: {gone}"
