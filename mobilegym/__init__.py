"""The MobileGym world: a user's own MobileGym build (the public browser-based phone
simulator) driven as a bridge ``Env``, so the same policy, task specs and judge run in it
beside our simulator and a phone.

Imports point down: this package builds on ``bridge/`` only (no other world). The build is
the user's (``mobilegym:URL`` or ``mobilegym:PATH``, :mod:`mobilegym.source`); nothing of
MobileGym's code or data is part of this repository.
"""
