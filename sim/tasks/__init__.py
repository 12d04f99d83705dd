"""Tasks: seeded templates with setup, checks over state, expected changes and oracles."""
