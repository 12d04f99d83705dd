"""A synthetic app registry for the launcher tests: 30 made-up apps (no stub app ships).

:data:`SYNTHETIC` lists them as (id, English name, Chinese name, aliases);
:func:`synthetic_entries` gives them as launcher entries (for the pure layout functions) and
:func:`synthetic_apps` as installable apps (for a real :class:`~sim.phone.Phone` or
simulator), each with a one-screen app whose identity is its own, not ``bridge/apps.json``'s.
"""

from tests.sim.launcher_fixture.app import SYNTHETIC, synthetic_apps, synthetic_entries

__all__ = ["SYNTHETIC", "synthetic_apps", "synthetic_entries"]
