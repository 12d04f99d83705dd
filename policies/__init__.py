"""Policies: scripted, random, replay, VLM adapters and a small learned policy."""

from policies.errors import PolicySpecError
from policies.registry import PolicySpec, load, parse_spec

__all__ = ["PolicySpec", "PolicySpecError", "load", "parse_spec"]
