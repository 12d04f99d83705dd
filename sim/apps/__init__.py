"""The simulated apps, one package each (see :mod:`sim.app` for how an app is written)."""
