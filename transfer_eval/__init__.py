"""Paired sim/real evaluation, statistics, reports, replays, and the command lines."""
