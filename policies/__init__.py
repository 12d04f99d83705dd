"""Policies: scripted, random, replay, VLM adapters and a small learned policy."""
