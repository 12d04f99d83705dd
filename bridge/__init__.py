"""The contract every part of mobilegym-bridge agrees on.

Import the models and protocols from here; the submodules (``coords``, ``uitree``,
``runner``, ``trajectory``) hold the machinery behind them.
"""

from bridge.env import Env, ForkableEnv
from bridge.errors import (
    BridgeError,
    CoordinateError,
    EnvError,
    EnvTimeout,
    EnvUsageError,
    PolicyError,
    TrajectoryError,
    UITreeError,
)
from bridge.policy import Policy
from bridge.records import EpisodeRecord, StepRecord, TaskInstance
from bridge.runner import EpisodeJob, run_episode, run_episodes
from bridge.schema import (
    SCHEMA_VERSION,
    Action,
    AnswerField,
    BackendInfo,
    CheckResult,
    ExecutedAction,
    Foreground,
    Observation,
    Point,
    PolicyContext,
    PolicyOutput,
    Screenshot,
    ScreenSpec,
    StepResult,
    StepTimings,
    Target,
    UINode,
    UIStatus,
    Verdict,
    parse_action,
)
from bridge.trajectory import EpisodeWriter, RunManifest, RunStore
from bridge.uitree import UITree, parse_hierarchy, to_xml

__all__ = [
    "SCHEMA_VERSION",
    "Action",
    "AnswerField",
    "BackendInfo",
    "BridgeError",
    "CheckResult",
    "CoordinateError",
    "Env",
    "EnvError",
    "EnvTimeout",
    "EnvUsageError",
    "EpisodeJob",
    "EpisodeRecord",
    "EpisodeWriter",
    "ExecutedAction",
    "Foreground",
    "ForkableEnv",
    "Observation",
    "Point",
    "Policy",
    "PolicyContext",
    "PolicyError",
    "PolicyOutput",
    "RunManifest",
    "RunStore",
    "ScreenSpec",
    "Screenshot",
    "StepRecord",
    "StepResult",
    "StepTimings",
    "Target",
    "TaskInstance",
    "TrajectoryError",
    "UINode",
    "UIStatus",
    "UITree",
    "UITreeError",
    "Verdict",
    "parse_action",
    "parse_hierarchy",
    "run_episode",
    "run_episodes",
    "to_xml",
]
