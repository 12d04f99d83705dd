"""Device variants of the simulator's tasks: set up and judged on a real (or virtual) phone."""
