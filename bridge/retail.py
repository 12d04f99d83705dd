"""Whether a retail phone (no root) can pose a task: the one rule, computed from its bound spec.

A phone poses and judges a task only by its bound spec (:class:`~bridge.taskspec.TaskSpec`),
so a task that carries none is posed on no phone; a spec that ``requires`` a fact only the
simulator and the virtual phone can be made to hold (an SMS in the inbox, an app-private
provider) is posed on no retail phone. Every user asks here: suite selections
(``transfer_eval.suites``), the paired grid and ``mgb device run`` before a run, and
``device.env.AndroidEnv.reset`` on a real phone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bridge.records import TaskInstance

__all__ = ["NO_SPEC", "retail_can_pose", "retail_refusal"]

NO_SPEC = (
    "carries no spec: instantiate it with the simulator's task registry (transfer-eval and "
    "`mgb device run` do) so it is posed and judged as there"
)
"""Why no phone (the virtual one included) can pose a task without a bound spec."""


def retail_refusal(task: TaskInstance) -> str | None:
    """Why a retail phone cannot pose and judge ``task``, or None when it can: the task
    carries no spec (:data:`NO_SPEC`), or each requirement's reason and the fact it needs."""
    if task.spec is None:
        return f"it {NO_SPEC}"
    if task.spec.requires:
        return "; ".join(f"{r.reason} (needs {r.fact})" for r in task.spec.requires)
    return None


def retail_can_pose(task: TaskInstance) -> bool:
    """Whether a retail phone (no root) can pose and judge ``task``: it has a bound spec that
    requires no fact only the simulator and the virtual phone can be made to hold."""
    return retail_refusal(task) is None
