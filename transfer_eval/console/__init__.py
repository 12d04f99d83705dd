"""``mgb console``: live policy debugging on a phone, the virtual phone or the simulator.

:mod:`.session` is the state machine a person operates (propose, approve, override, run,
pause, reset, finish) and records; :mod:`.live` the live screen; :mod:`.server` the page's
HTTP API; :mod:`.launch` starts a world, a session and the server together.
"""
