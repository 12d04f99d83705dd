"""How ``make test`` shares its tests between xdist workers (``--dist loadgroup``).

A work unit is one test file, so that a file's module fixtures (a started simulator, a
virtual phone) are set up once per worker. A file whose tests are independent episodes over
task templates can say ``SHARD_BY_APP = True``: its tests parametrized by ``task_id`` are
then split by app, since those files grow with the catalogue and would otherwise leave one
worker running the biggest of them alone at the end.
"""

from __future__ import annotations

import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every test its work unit (runs before xdist names the units by these marks)."""
    for item in items:
        group = item.nodeid.split("::", 1)[0]
        callspec = getattr(item, "callspec", None)
        task_id = callspec.params.get("task_id") if callspec is not None else None
        module = getattr(item, "module", None)
        if getattr(module, "SHARD_BY_APP", False) and isinstance(task_id, str) and "/" in task_id:
            group += ":" + task_id.split("/", 1)[0]
        item.add_marker(pytest.mark.xdist_group(group))
