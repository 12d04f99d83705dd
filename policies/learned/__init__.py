"""A small learned policy (numpy, CPU): candidate actions scored by a linear softmax model.

``LearnedPolicy.load(path)`` gives the policy stored in a checkpoint directory; the policy
registry builds it for the spec ``learned:CHECKPOINT``. :mod:`policies.grpo` trains it.
"""

from policies.errors import CheckpointError
from policies.learned.candidates import KINDS, Candidate, build_candidates
from policies.learned.checkpoint import CheckpointConfig
from policies.learned.features import DIM, FEATURE_VERSION, featurize
from policies.learned.policy import Decision, LearnedPolicy, StepTrace

__all__ = [
    "DIM",
    "FEATURE_VERSION",
    "KINDS",
    "Candidate",
    "CheckpointConfig",
    "CheckpointError",
    "Decision",
    "LearnedPolicy",
    "StepTrace",
    "build_candidates",
    "featurize",
]
