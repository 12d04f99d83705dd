"""Many simulator hosts for trainers: a Ray actor per host, and a pool of bridge envs over
them (or over ``mgb sim serve`` servers); see :mod:`scaleout.pool`."""
