"""What every runner (sim runs, phone runs, transfer-eval) builds the same way: fresh
policies per episode from a spec (``scripted`` follows the task's oracle plan), the UI tree
saved per step, and the versions a run records.

The composition roots (sim runs, phone runs, transfer-eval) all build policies here, so a
spec means the same thing everywhere.
"""

from __future__ import annotations

import platform
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version

from bridge.plans import Plan
from bridge.policy import Policy
from bridge.schema import Observation, PolicyContext, TaskInstance
from bridge.uitree import to_xml
from policies.registry import load
from sim.tasks.base import TaskTemplate

__all__ = ["policy_factory", "run_versions", "tree_xml"]


def policy_factory(
    spec: str, template: TaskTemplate, task: TaskInstance, seed_offset: int = 0
) -> Callable[[], Policy]:
    """A factory of policies for one episode of ``task``."""

    def plan_for(_instruction: str, _context: PolicyContext) -> Plan:
        return template.oracle_for(task)

    return lambda: load(spec, plan_for=plan_for, seed=task.seed + seed_offset)


def tree_xml(observation: Observation) -> str | None:
    """The UI tree of a step as uiautomator XML (None when there is no tree)."""
    return to_xml(observation.ui) if observation.ui else None


def run_versions() -> dict[str, str]:
    """Software versions a run manifest records."""
    try:
        ours = version("mobilegym-bridge")
    except PackageNotFoundError:
        ours = "unknown"
    return {"mobilegym-bridge": ours, "python": platform.python_version()}
