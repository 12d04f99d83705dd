"""Fresh policies per episode from a spec; ``scripted`` follows the task's oracle plan.

The composition roots (sim runs, phone runs, transfer-eval) all build policies here, so a
spec means the same thing everywhere.
"""

from __future__ import annotations

from collections.abc import Callable

from bridge.plans import Plan
from bridge.policy import Policy
from bridge.schema import PolicyContext, TaskInstance
from policies.registry import load
from sim.tasks.base import TaskTemplate

__all__ = ["policy_factory"]


def policy_factory(
    spec: str, template: TaskTemplate, task: TaskInstance, seed_offset: int = 0
) -> Callable[[], Policy]:
    """A factory of policies for one episode of ``task``."""

    def plan_for(_instruction: str, _context: PolicyContext) -> Plan:
        return template.oracle(task.params, task.lang)

    return lambda: load(spec, plan_for=plan_for, seed=task.seed + seed_offset)
