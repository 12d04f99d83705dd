"""Adapters that plug bridge envs into the RL trainers people use.

Every adapter is built on a bridge env factory (:data:`bridge.sync.EnvFactory`: an
in-process simulator's ``sim.env``, or a client pool's ``pool.env``) and the task to pose
(a :class:`~bridge.records.TaskInstance`), and shares one episode loop,
:func:`trainers.rollout.rollout` (the runner and a VLM adapter, unchanged). The reward is
:func:`bridge.reward.shaped_reward`, the one ``mgb train`` uses; an infra error scores 0
and is flagged.

==========================  ===================================================  ==========
module                      for                                                  needs
==========================  ===================================================  ==========
:mod:`trainers.rollout`     any trainer with an async model call                 —
:mod:`trainers.gym_vector`  Gymnasium ``VectorEnv`` trainers (actions as JSON)   —
:mod:`trainers.gem_env`     GEM / ROLL text envs (raw model replies)             gem-llm*
:mod:`trainers.skyrl_env`   SkyRL-gym ``BaseTextEnv``                            skyrl-gym
:mod:`trainers.verl_loop`   verl ``AgentLoopBase`` (0.7.1)                       verl
:mod:`trainers.rllm_flow`   rLLM ``@rllm.rollout`` flows and evaluators          rLLM
==========================  ===================================================  ==========

(*) only :func:`trainers.gem_env.register_gem`; the env itself needs nothing. Optional
frameworks are imported when first used, never by importing this package.
"""

from trainers.errors import MissingExtra, TrainerError
from trainers.gem_env import PhoneTextEnv, register_gem
from trainers.gym_vector import PhoneVectorEnv
from trainers.rllm_flow import make_evaluator, make_flow
from trainers.rollout import ModelCall, RolloutOutcome, Turn, rollout
from trainers.rows import task_from_row, task_row
from trainers.skyrl_env import make_skyrl_env, register_skyrl
from trainers.stepwise import StepwiseRollout
from trainers.verl_loop import dataset_row, make_agent_loop

__all__ = [
    "MissingExtra",
    "ModelCall",
    "PhoneTextEnv",
    "PhoneVectorEnv",
    "RolloutOutcome",
    "StepwiseRollout",
    "TrainerError",
    "Turn",
    "dataset_row",
    "make_agent_loop",
    "make_evaluator",
    "make_flow",
    "make_skyrl_env",
    "register_gem",
    "register_skyrl",
    "rollout",
    "task_from_row",
    "task_row",
]
